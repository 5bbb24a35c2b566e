import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { prepareDataDir } from '../helpers/data-dir.js';
import { createTestDatabase } from '../helpers/database.js';
import { cli } from './cli-process.js';

/**
 * What only the process shows, of the commands the other CLI tests run in their own process:
 * src/main.ts hands the dispatcher the real environment and streams and exits with its status,
 * and a command that opened the database ends its process by itself (nothing left holding it).
 * `serve` as a process: serve.test.ts, data-dir-lock.test.ts and test/reliability.
 */

const SECRET = 'entry-point-secret-0123456789-abcdefghijk';

describe('src/main.ts as a process', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pa-entry-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('exits 0 after --help, 1 after an invalid setting, and ends by itself after a database command', async () => {
    const postgres = process.env.TEST_DATABASE_URL === undefined ? undefined : await createTestDatabase();
    try {
      const dataDir = join(dir, 'data');
      if (postgres === undefined) await prepareDataDir(dataDir);
      const database: Record<string, string> =
        postgres === undefined ? { DATA_DIR: dataDir } : { DATABASE_URL: postgres.url! };
      const [help, invalid, status] = await Promise.all([
        cli(['--help'], {}),
        cli(['config', 'check'], { PORT: 'eighty' }),
        cli(['db', 'status'], { ...database, JWT_SECRET: SECRET }),
      ]);
      expect({ code: help.code, stderr: help.stderr }).toEqual({ code: 0, stderr: '' });
      expect(help.stdout.startsWith('Usage: platform-api <command> [options]\n')).toBe(true);
      expect(invalid).toEqual({
        code: 1,
        stdout: '',
        stderr: 'Configuration error: PORT: must be an integer from 0 to 65535, got "eighty"\n',
      });
      // cli() fails after 90 s of a process that does not end.
      expect({ code: status.code, stderr: status.stderr }).toEqual({ code: 0, stderr: '' });
      expect(status.stdout.endsWith('Database is up to date.\n')).toBe(true);
    } finally {
      await postgres?.drop();
    }
  }, 120_000);
});
