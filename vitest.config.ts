import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/helpers/global-setup.ts'],
    // Each file gets its own database (a PGlite copy or a PostgreSQL clone), so files run in parallel.
    pool: 'forks',
    // Vitest's default on N cores is N - 1 forks: one on the 2-core CI machine, so files ran one
    // at a time while the other core idled. Files share nothing but the template database.
    maxWorkers: 2,
    testTimeout: 20_000,
    hookTimeout: 60_000,
    reporters: ['default'],
  },
});
