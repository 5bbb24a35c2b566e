import { sql } from 'kysely';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { openDatabase } from '../../src/db/database.js';

/** DATABASE_POOL_SIZE bounds the sessions one instance opens for its queries. */
describe.runIf(process.env.TEST_DATABASE_URL)('DATABASE_POOL_SIZE', () => {
  async function sessionsUsedBy(poolSize: string): Promise<number> {
    const config = loadConfig({ DATABASE_URL: process.env.TEST_DATABASE_URL!, DATABASE_POOL_SIZE: poolSize, JWT_SECRET: 'x'.repeat(32), DATA_DIR: mkdtempSync(join(tmpdir(), 'pa-pool-')) });
    const database = await openDatabase(config);
    try {
      const rows = await Promise.all(Array.from({ length: 6 }, () => sql<{ pid: number }>`SELECT pg_backend_pid() AS pid, pg_sleep(0.05)`.execute(database.db)));
      return new Set(rows.map((result) => result.rows[0]!.pid)).size;
    } finally {
      await database.close();
    }
  }

  it('six queries at once share the pool it sets', async () => {
    expect(await sessionsUsedBy('2')).toBe(2);
    expect(await sessionsUsedBy('6')).toBe(6);
  });
});
