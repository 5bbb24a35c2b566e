import { sql, type Kysely } from 'kysely';
import pg from 'pg';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { openDatabase, openPostgres, type Database } from '../../src/db/database.js';
import type { Tables } from '../../src/db/tables.js';
import { asRead } from '../../src/lib/split-pool.js';
import { createTestDatabase } from '../helpers/database.js';
import { waitFor } from '../helpers/waiting.js';

/**
 * DATABASE_POOL_SIZE bounds the sessions one instance opens for its queries, split into a read
 * budget and a write budget (6 and 4 of 10): reads are answered while every write session waits.
 */
describe.runIf(process.env.TEST_DATABASE_URL)('DATABASE_POOL_SIZE', () => {
  async function withDatabase<T>(poolSize: string, use: (database: Database) => Promise<T>): Promise<T> {
    const config = loadConfig({
      DATABASE_URL: process.env.TEST_DATABASE_URL!,
      DATABASE_POOL_SIZE: poolSize,
      JWT_SECRET: 'x'.repeat(32),
      DATA_DIR: mkdtempSync(join(tmpdir(), 'pa-pool-')),
    });
    const database = await openDatabase(config);
    try {
      return await use(database);
    } finally {
      await database.close();
    }
  }

  /** A plain SELECT built with Kysely: a read (src/lib/split-pool.ts judges the query, not its text). */
  const read = async (db: Kysely<Tables>) =>
    (
      await db
        .selectNoFrom([sql<number>`pg_backend_pid()`.as('pid'), sql`pg_sleep(0.05)`.as('slept')])
        .executeTakeFirstOrThrow()
    ).pid;
  const write = (db: Kysely<Tables>) => db.transaction().execute(read);
  const sessions = async (queries: Array<Promise<number>>) => new Set(await Promise.all(queries)).size;
  const twelve = <T>(make: () => T) => Array.from({ length: 12 }, make);

  it('ten sessions: six for reads, four for writes, ten in all', async () => {
    await withDatabase('10', async ({ db }) => {
      expect(await sessions(twelve(() => read(db)))).toBe(6);
      expect(await sessions(twelve(() => write(db)))).toBe(4);
      expect(await sessions([...twelve(() => read(db)), ...twelve(() => write(db))])).toBe(10);
    });
  });

  it('names its sessions by pool, so pg_stat_activity tells reads from writes', async () => {
    const name = async (db: Kysely<Tables>) =>
      (await asRead(sql<{ name: string }>`SELECT current_setting('application_name') AS name`).execute(db)).rows[0]!
        .name;
    await withDatabase('10', async ({ db }) => {
      expect(await name(db)).toBe('platform-api reads');
      expect(await db.transaction().execute(name)).toBe('platform-api writes');
    });
    await withDatabase('1', async ({ db }) => {
      expect(await name(db)).toBe('platform-api');
    });
  });

  it('one session serves reads and writes alike (migrations run on one)', async () => {
    await withDatabase('1', async ({ db }) => {
      expect(await sessions([...twelve(() => read(db)), ...twelve(() => write(db))])).toBe(1);
    });
  });

  it('reads are answered while every write session waits on a lock, and the other writes wait in the pool', async () => {
    const LOCK = 914_273;
    const holder = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
    await holder.connect();
    const lockWaiters = async () =>
      (
        await holder.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND position($1 in query) > 0`,
          [`${LOCK}`],
        )
      ).rows[0]!.n;
    try {
      await holder.query('SELECT pg_advisory_lock($1)', [LOCK]);
      await withDatabase('10', async ({ db }) => {
        const writes = Array.from({ length: 10 }, () =>
          db.transaction().execute((trx) => sql`SELECT pg_advisory_xact_lock(${sql.lit(LOCK)})`.execute(trx)),
        );
        try {
          await waitFor(async () => (await lockWaiters()) >= 4, 'four writes waiting on the lock');

          expect((await asRead(sql<{ one: number }>`SELECT 1 AS one`).execute(db)).rows).toEqual([{ one: 1 }]);
          expect(await lockWaiters()).toBe(4);
        } finally {
          // Before the pool closes, which waits for every write.
          await holder.query('SELECT pg_advisory_unlock($1)', [LOCK]);
        }
        expect((await Promise.allSettled(writes)).map((outcome) => outcome.status)).toEqual(
          Array(10).fill('fulfilled'),
        );
      });
    } finally {
      await holder.end();
    }
  });

  it('opens all ten sessions before the first query, and keeps them through a lull', async () => {
    const testDatabase = await createTestDatabase();
    const observer = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
    await observer.connect();
    const openSessions = async () =>
      (
        await observer.query<{ name: string; n: number }>(
          `SELECT application_name AS name, count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND application_name LIKE 'platform-api%' GROUP BY 1 ORDER BY 1`,
          [new URL(testDatabase.url!).pathname.slice(1)],
        )
      ).rows;
    // pg closes a session idle for 10 s unless the pool is to keep it: its clock is faked here.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const database = openPostgres({ connectionString: testDatabase.url!, poolMax: 10 });
    try {
      await database.warm();
      const all = [
        { name: 'platform-api reads', n: 6 },
        { name: 'platform-api writes', n: 4 },
      ];
      expect(await openSessions()).toEqual(all);

      await Promise.all(twelve(() => read(database.db)));
      // No idle timer waits to close a session (pg sets one per idle session unless told to keep it).
      expect(vi.getTimerCount()).toBe(0);
      vi.advanceTimersByTime(60_000);
      vi.useRealTimers();
      expect(await openSessions()).toEqual(all);
    } finally {
      vi.useRealTimers();
      await database.close();
      await observer.end();
      await testDatabase.drop();
    }
  });
});
