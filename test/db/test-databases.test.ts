import { sql } from 'kysely';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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

  // The console's files start from a dump of the seeded demo (test/console/harness.ts).
  it.skipIf(process.env.TEST_DATABASE_URL)('copy a dump taken earlier in the run, as it was then', async () => {
    const seeded = await createTestDatabase();
    await sql`CREATE TABLE seeded_earlier (note text)`.execute(seeded.database.db);
    await sql`INSERT INTO seeded_earlier VALUES ('kept')`.execute(seeded.database.db);
    const dir = mkdtempSync(join(tmpdir(), 'pa-dump-'));
    const dump = join(dir, 'seeded.tar');
    writeFileSync(dump, await seeded.dump!());
    await sql`UPDATE seeded_earlier SET note = 'after the dump'`.execute(seeded.database.db);
    await seeded.drop();

    const copy = await createTestDatabase(dump);
    try {
      const notes = await sql<{ note: string }>`SELECT note FROM seeded_earlier`.execute(copy.database.db);
      expect(notes.rows).toEqual([{ note: 'kept' }]);
    } finally {
      await copy.drop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
