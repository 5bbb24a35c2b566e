import { PGlite } from '@electric-sql/pglite';
import { sql } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { pgliteParsers, wrapPGlite, type Database } from '../../src/db/database.js';
import { EmbeddedVacuum, vacuumDueTables } from '../../src/db/embedded-vacuum.js';
import { eventually } from '../helpers/app.js';

/**
 * PGlite runs no autovacuum (single-user mode), so the service stands in for it on the
 * embedded database: src/db/embedded-vacuum.ts. Each test works on tables of its own.
 */

interface TableStats {
  n_dead_tup: number;
  n_mod_since_analyze: number;
  vacuum_count: number;
  analyze_count: number;
}

describe('embedded database vacuum', () => {
  let database: Database;
  const db = () => database.db;

  beforeAll(async () => {
    database = wrapPGlite(await PGlite.create({ parsers: pgliteParsers }));
  });
  afterAll(async () => {
    await database.close();
  });

  /** The statistics as a round sees them: a backend reports its counts at most once a second unless told to now. */
  const flushStats = async () => {
    await sql`SELECT pg_stat_force_next_flush()`.execute(db());
    await sql`SELECT 1`.execute(db());
  };
  const statsOf = async (table: string) =>
    (
      await sql<TableStats>`SELECT n_dead_tup, n_mod_since_analyze, vacuum_count, analyze_count FROM pg_stat_user_tables WHERE relname = ${table}`.execute(
        db(),
      )
    ).rows[0]!;
  const makeTable = async (table: string, rows: number) => {
    await sql`CREATE TABLE ${sql.table(table)} (id int PRIMARY KEY, n int NOT NULL)`.execute(db());
    await sql`INSERT INTO ${sql.table(table)} SELECT g, 0 FROM generate_series(1, ${rows}::int) g`.execute(db());
  };

  beforeEach(async () => {
    // Whatever the previous test left due, so each round below sees only its own test's tables.
    await flushStats();
    await vacuumDueTables(db());
  });

  it('vacuums and analyzes a table whose updates left dead rows, and then leaves it alone', async () => {
    await makeTable('updated_rows', 1_000);
    await flushStats();
    await vacuumDueTables(db());
    for (let i = 0; i < 3; i += 1) await sql`UPDATE updated_rows SET n = n + 1`.execute(db());
    await flushStats();
    expect((await statsOf('updated_rows')).n_dead_tup).toBeGreaterThan(250);

    const before = await statsOf('updated_rows');
    const round = await vacuumDueTables(db());
    expect(round).toEqual({ vacuumed: ['updated_rows'], analyzed: [], ms: expect.any(Number) });
    await flushStats();
    const after = await statsOf('updated_rows');
    expect(after).toEqual({
      n_dead_tup: 0,
      n_mod_since_analyze: 0,
      vacuum_count: before.vacuum_count + 1,
      analyze_count: before.analyze_count + 1,
    });

    // Nothing changed since: the next round does nothing.
    expect(await vacuumDueTables(db())).toEqual({ vacuumed: [], analyzed: [], ms: expect.any(Number) });
  });

  it('analyzes, without vacuuming, a table past the analyze threshold only', async () => {
    await makeTable('grown_rows', 1_000);
    await flushStats();
    await vacuumDueTables(db());
    // 200 new rows: past 50 + 10 % changed (analyze), short of 1,000 + 20 % inserted (vacuum).
    await sql`INSERT INTO grown_rows SELECT g, 0 FROM generate_series(1001, 1200) g`.execute(db());
    await flushStats();

    const before = await statsOf('grown_rows');
    expect(await vacuumDueTables(db())).toEqual({ vacuumed: [], analyzed: ['grown_rows'], ms: expect.any(Number) });
    await flushStats();
    expect(await statsOf('grown_rows')).toMatchObject({
      n_mod_since_analyze: 0,
      vacuum_count: before.vacuum_count,
      analyze_count: before.analyze_count + 1,
    });
  });

  it("follows a table's own thresholds before the server's (as audit_log's, migration 0038)", async () => {
    await makeTable('own_threshold_rows', 1_000);
    await sql`ALTER TABLE own_threshold_rows SET (autovacuum_vacuum_insert_threshold = 100, autovacuum_vacuum_insert_scale_factor = 0)`.execute(
      db(),
    );
    await flushStats();
    await vacuumDueTables(db());
    // 200 new rows: only analyzed under the server's thresholds (previous test), vacuumed under its own.
    await sql`INSERT INTO own_threshold_rows SELECT g, 0 FROM generate_series(1001, 1200) g`.execute(db());
    await flushStats();
    expect(await vacuumDueTables(db())).toEqual({
      vacuumed: ['own_threshold_rows'],
      analyzed: [],
      ms: expect.any(Number),
    });
  });

  it('leaves a table with a few changes alone, as autovacuum would', async () => {
    await makeTable('quiet_rows', 1_000);
    await flushStats();
    await vacuumDueTables(db());
    await sql`UPDATE quiet_rows SET n = 1 WHERE id <= 40`.execute(db());
    await flushStats();
    expect((await statsOf('quiet_rows')).n_dead_tup).toBe(40);
    expect(await vacuumDueTables(db())).toEqual({ vacuumed: [], analyzed: [], ms: expect.any(Number) });
    expect((await statsOf('quiet_rows')).n_dead_tup).toBe(40);
  });

  it('runs rounds on its own once started, and stops', async () => {
    await makeTable('timed_rows', 1_000);
    await flushStats();
    await vacuumDueTables(db());
    await sql`UPDATE timed_rows SET n = n + 1`.execute(db());
    await flushStats();
    const before = await statsOf('timed_rows');

    const logged: Array<{ level: string; object: object }> = [];
    const log = {
      debug: (object: object) => logged.push({ level: 'debug', object }),
      warn: (object: object) => logged.push({ level: 'warn', object }),
    };
    // Its rounds come from an interval the test's clock drives: stopped, none is left to come.
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    try {
      const vacuum = new EmbeddedVacuum(db(), log, 50);
      vacuum.start();
      try {
        await eventually(async () => {
          vi.advanceTimersByTime(50);
          await flushStats();
          expect((await statsOf('timed_rows')).vacuum_count).toBe(before.vacuum_count + 1);
        });
      } finally {
        await vacuum.stop();
      }
      expect(logged).toContainEqual({
        level: 'debug',
        object: { vacuumed: ['timed_rows'], analyzed: [], ms: expect.any(Number) },
      });
      expect(logged.filter((entry) => entry.level === 'warn')).toEqual([]);

      // Stopped: no round is scheduled, so more dead rows stay until something vacuums them.
      expect(vi.getTimerCount()).toBe(0);
      await sql`UPDATE timed_rows SET n = n + 1`.execute(db());
      vi.advanceTimersByTime(1_000);
      await flushStats();
      expect((await statsOf('timed_rows')).n_dead_tup).toBeGreaterThan(250);
    } finally {
      vi.useRealTimers();
    }
  });
});
