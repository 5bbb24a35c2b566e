import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import type { Tables } from '../../src/db/tables.js';
import { readPage } from '../../src/kernel/pagination.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

/** `readPage` on a real database: the page the list's own order gives, and the filter's total. */

type ProbeTables = {
  paging_items: { id: number; label: string; kind: string; rank: number };
  paging_notes: { item_id: number; note: string };
};

let testDatabase: TestDatabase;
let db: Kysely<Tables & ProbeTables>;

beforeAll(async () => {
  testDatabase = await createTestDatabase();
  db = testDatabase.database.db.withTables<ProbeTables>();
  await sql`CREATE TABLE paging_items (id int PRIMARY KEY, label text NOT NULL, kind text NOT NULL,
    rank int NOT NULL)`.execute(db);
  await sql`CREATE TABLE paging_notes (item_id int PRIMARY KEY REFERENCES paging_items, note text NOT NULL)`.execute(
    db,
  );
  // Ten items: even ids are kind 'a', odd ids 'b'; ranks repeat so the id tie-break decides.
  await db
    .insertInto('paging_items')
    .values(
      Array.from({ length: 10 }, (_, i) => ({
        id: i + 1,
        label: `item ${i + 1}`,
        kind: (i + 1) % 2 === 0 ? 'a' : 'b',
        rank: i % 3,
      })),
    )
    .execute();
  await db
    .insertInto('paging_notes')
    .values([2, 4, 6].map((id) => ({ item_id: id, note: `note ${id}` })))
    .execute();
});
afterAll(async () => {
  await testDatabase.drop();
});

const kindA = () => db.selectFrom('paging_items').where('kind', '=', 'a');

describe('readPage', () => {
  it("answers the page in the list's order (its own tie-break) and the filter's total", async () => {
    const page = await readPage(kindA(), { page: 2, per_page: 2 }, (matching) =>
      matching.select(['id', 'rank']).orderBy('rank', 'desc').orderBy('id'),
    );
    expectTypeOf(page.rows).toEqualTypeOf<{ id: number; rank: number }[]>();
    // Kind 'a' (id: rank) is 2: 1, 4: 0, 6: 2, 8: 1, 10: 0; by rank desc then id: 6, 2, 8, 4, 10.
    expect(page).toEqual({
      rows: [
        { id: 8, rank: 1 },
        { id: 4, rank: 0 },
      ],
      total: 5,
    });
  });

  it('answers no rows past the last page, and still the total', async () => {
    const page = await readPage(kindA(), { page: 4, per_page: 2 }, (matching) => matching.select('id').orderBy('id'));
    expect(page).toEqual({ rows: [], total: 5 });
  });

  it('counts the filtered query, not the rows a join in the page leaves', async () => {
    const page = await readPage(kindA().where('rank', '<', 2), { page: 1, per_page: 2 }, (matching) =>
      matching
        .innerJoin('paging_notes', 'paging_notes.item_id', 'paging_items.id')
        .select(['paging_items.label', 'paging_notes.note'])
        .orderBy('paging_items.id', 'desc'),
    );
    expect(page).toEqual({
      rows: [
        { label: 'item 4', note: 'note 4' },
        { label: 'item 2', note: 'note 2' },
      ],
      // Kind 'a' with rank < 2 is 2, 4, 8 and 10; only 2 and 4 have notes.
      total: 4,
    });
  });
});
