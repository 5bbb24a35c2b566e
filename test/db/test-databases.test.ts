import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { createTestDatabase } from '../helpers/database.js';

/**
 * The harness's promise to every test file: its database is a fresh copy of the migrated one,
 * whatever the copies made before it in the same process did to theirs. On the embedded run the
 * copies share the dump read once per fork (test/helpers/embedded-copy.ts): a copy writing
 * through to it would hand the next file another file's rows.
 */
describe('test databases', () => {
  it('start as the migrated database, whatever an earlier copy wrote, even after it closed', async () => {
    const first = await createTestDatabase();
    await sql`CREATE TABLE left_by_an_earlier_file (id int)`.execute(first.database.db);
    await sql`INSERT INTO left_by_an_earlier_file SELECT generate_series(1, 1000)`.execute(first.database.db);
    await sql`UPDATE ops_panic_state SET level = 'lockdown', reason = 'an earlier file'`.execute(first.database.db);
    await first.drop();

    const second = await createTestDatabase();
    try {
      const leftOver = await sql<{ n: number }>`
        SELECT count(*)::int AS n FROM pg_class WHERE relname = 'left_by_an_earlier_file'`.execute(second.database.db);
      expect(leftOver.rows[0]!.n).toBe(0);
      const panic = await sql<{ level: string; reason: string | null }>`
        SELECT level, reason FROM ops_panic_state`.execute(second.database.db);
      expect(panic.rows).toEqual([{ level: 'off', reason: null }]);
    } finally {
      await second.drop();
    }
  });
});
