import { PGlite } from '@electric-sql/pglite';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { cli } from './cli-process.js';

/**
 * `platform-api seed --demo` as the real CLI, once, against an embedded data directory (or on
 * the PostgreSQL run a PostgreSQL database): the wiring of the command. What it writes is
 * tested in process by seed-demo.test.ts.
 */

const SECRET = 'seed-demo-process-secret-0123456789-abcdef';
const SLOW = 240_000;

describe('platform-api seed', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pa-seed-'));
  const dataDir = join(dir, 'data');
  let postgres: TestDatabase | undefined;
  let settings: Record<string, string>;

  beforeAll(async () => {
    if (process.env.TEST_DATABASE_URL !== undefined) {
      postgres = await createTestDatabase();
      settings = { DATABASE_URL: postgres.url!, JWT_SECRET: SECRET, DATA_DIR: dataDir };
    } else {
      settings = { DATA_DIR: dataDir, JWT_SECRET: SECRET };
      // The suite's migrated template, laid into DATA_DIR: what "migrate" makes, without its minute.
      mkdirSync(dataDir, { recursive: true });
      const pglite = await PGlite.create(join(dataDir, 'pglite'), {
        loadDataDir: new Blob([readFileSync(inject('pgliteDump')!)]),
      });
      await pglite.close();
    }
  }, SLOW);
  afterAll(async () => {
    await postgres?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it(
    'without --demo prints the usage and fails; with it, writes the data set and reports it',
    async () => {
      const bare = await cli(['seed'], settings);
      expect(bare.code).toBe(1);
      expect(bare.stderr).toMatch(/^say which data set: --demo \(the only one\)\n\nUsage: platform-api seed --demo/);
      expect(bare.stderr).toContain('olivia.owner.demo@example.com');

      const run = await cli(['seed', '--demo'], settings);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toMatch(/^Demo data set written: \d+ items made\.\n/);
      expect(run.stdout).toMatch(/\n {2}players +50 +0\n/);
      // Progress on stderr, plain lines off a terminal, and a last line with the time taken.
      expect(run.stderr).toMatch(/seed --demo: 9 steps in [\d.]+ s\n$/);
      // The local payment provider's state is kept where serve keeps it: its subscriptions outlive the command.
      expect(existsSync(join(dataDir, 'local-payments.json'))).toBe(true);
    },
    SLOW,
  );
});
