import { defineConfig } from 'vitest/config';
import { asGlob, DATABASE_FREE_TESTS } from './test/database-free.js';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Faults of a database server reached over the network: the embedded database has no network
    // to cut, so these run only when the run is on PostgreSQL (CI runs both).
    // The browser tests (the console's, /docs, the local provider's pages) drive the service on the
    // embedded database, as `npm start` runs it: the PostgreSQL run would drive the same pages over
    // the same routes. Files that touch no database (test/database-free.ts) would test the same
    // thing twice.
    exclude:
      process.env.TEST_DATABASE_URL === undefined
        ? ['test/reliability/postgres-faults.test.ts', 'test/reliability/transaction-conflicts.test.ts']
        : [
            'test/console/**',
            'test/kernel/docs-ui.test.ts',
            'test/modules/billing/checkout/local-pages.test.ts',
            ...DATABASE_FREE_TESTS.map(asGlob),
          ],
    globalSetup: ['test/helpers/global-setup.ts'],
    // Each file gets its own database (a PGlite copy or a PostgreSQL clone), so files run in parallel.
    pool: 'forks',
    // Vitest's default on N cores is N - 1 forks: one on the 2-core CI machine, so files ran one
    // at a time while the other core idled. Files share nothing but the template database.
    maxWorkers: 2,
    // Files in one fork share loaded modules instead of importing the whole app again each
    // (collecting was half the run). Nothing of a test's lives in module state: each file
    // builds its own app and database, and fake timers are restored after each test. Measured:
    // docs/decisions/0075-test-files-share-loaded-modules.md.
    isolate: false,
    testTimeout: 20_000,
    hookTimeout: 60_000,
    reporters: ['default'],
  },
});
