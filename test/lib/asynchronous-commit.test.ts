import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ASYNCHRONOUS_COMMIT } from '../../src/lib/asynchronous-commit.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

let testDb: TestDatabase;
beforeAll(async () => {
  testDb = await createTestDatabase();
});
afterAll(async () => {
  await testDb.drop();
});

const synchronousCommit = async (db: TestDatabase['database']['db']) =>
  (await sql<{ synchronous_commit: string }>`SHOW synchronous_commit`.execute(db)).rows[0]?.synchronous_commit;

describe('ASYNCHRONOUS_COMMIT', () => {
  it("turns synchronous_commit off for the statement's transaction alone, once the statement reads it", async () => {
    const { db } = testDb.database;
    await db.transaction().execute(async (trx) => {
      await sql`WITH ${ASYNCHRONOUS_COMMIT} SELECT 1 FROM async`.execute(trx);
      expect(await synchronousCommit(trx)).toBe('off');
    });
    await db.transaction().execute(async (trx) => {
      expect(await synchronousCommit(trx)).toBe('on');
      // Named but never read: the CTE does not run.
      await sql`WITH ${ASYNCHRONOUS_COMMIT} SELECT 1`.execute(trx);
      expect(await synchronousCommit(trx)).toBe('on');
    });
  });
});
