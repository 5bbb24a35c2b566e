import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readMigrations } from '../../src/db/migrate.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { cli } from './cli-process.js';

/**
 * `platform-api seed --demo` as the real CLI, once: on the embedded database from a DATA_DIR that
 * does not exist yet (a newcomer's first command, so it migrates first), or on the PostgreSQL run
 * a migrated PostgreSQL database. What it writes is tested in process by seed-demo.test.ts.
 */

const SECRET = 'seed-demo-process-secret-0123456789-abcdef';
const SLOW = 360_000;

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

      // Making the database and migrating it come first: allowed more than the usual run.
      const run = await cli(['seed', '--demo'], settings, SLOW - 30_000);
      expect(run.code, run.stderr).toBe(0);
      // A database never migrated is migrated first, and stderr says so; a current one is not mentioned.
      const files = readMigrations().length;
      if (postgres === undefined) {
        expect(run.stderr).toMatch(
          new RegExp(`^seed --demo: applied ${files} pending migrations first \\(0001_[^,]*, …\\)\\n`),
        );
        expect(existsSync(join(dataDir, 'pglite', 'PG_VERSION'))).toBe(true);
      } else expect(run.stderr).not.toContain('migration');
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
