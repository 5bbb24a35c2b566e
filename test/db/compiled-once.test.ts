import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CompiledOnce } from '../../src/db/compiled-once.js';
import type { Tables } from '../../src/db/tables.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

/** A statement compiled once per choice runs each later call with that call's values. */

let testDatabase: TestDatabase;
let db: Kysely<Tables>;

beforeAll(async () => {
  testDatabase = await createTestDatabase();
  db = testDatabase.database.db;
});
afterAll(async () => {
  await testDatabase.drop();
});

type Sign = 'plus' | 'minus';

describe('CompiledOnce', () => {
  it("compiles a choice once and runs it again with each call's own values", async () => {
    let compiled = 0;
    const sums = new CompiledOnce<Tables, Sign, { n: number }>();
    const sum = (sign: Sign, a: number, b: number) =>
      sums.execute(db, sign, [a, b], () => {
        compiled += 1;
        const operator = sql.raw(sign === 'plus' ? '+' : '-');
        return db.selectNoFrom(sql<number>`${a}::int ${operator} ${b}::int`.as('n'));
      });
    expect(await sum('plus', 2, 3)).toEqual([{ n: 5 }]);
    expect(await sum('plus', 10, 20)).toEqual([{ n: 30 }]);
    expect(await sum('minus', 10, 20)).toEqual([{ n: -10 }]);
    expect(await sum('minus', 7, 2)).toEqual([{ n: 5 }]);
    expect(compiled).toBe(2);
  });

  it('refuses a builder whose parameters are not exactly its values, before running it', async () => {
    const statements = new CompiledOnce<Tables, 'own' | 'reordered', { n: number }>();
    await expect(
      statements.execute(db, 'own', [2], () => db.selectNoFrom(sql<number>`${2}::int + ${1}::int`.as('n'))),
    ).rejects.toThrow('a statement compiled once takes exactly its values as parameters: 2 parameters for 1 values');
    await expect(
      statements.execute(db, 'reordered', [1, 5], () => db.selectNoFrom(sql<number>`${5}::int - ${1}::int`.as('n'))),
    ).rejects.toThrow('2 parameters for 2 values');
  });
});
