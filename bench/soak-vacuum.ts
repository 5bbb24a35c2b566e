import pg from 'pg';
import { onCleanup } from './cleanup.js';

/**
 * PostgreSQL's default autovacuum thresholds (autovacuum_vacuum_threshold/scale_factor,
 * autovacuum_vacuum_insert_threshold/scale_factor, autovacuum_analyze_threshold/scale_factor).
 */
const THRESHOLDS = { dead: [50, 0.2], inserted: [1_000, 0.2], modified: [50, 0.1] } as const;
/** autovacuum_naptime's default. */
const ROUND_EVERY_MS = 60_000;

export interface VacuumRound {
  /** Seconds since the stand-in started. */
  atSecond: number;
  /** The tables vacuumed (with ANALYZE) or only analyzed, as autovacuum would have chosen them. */
  vacuumed: string[];
  analyzed: string[];
  seconds: number;
}

export interface AutovacuumStandIn {
  /** The server's `autovacuum` setting. */
  serverSetting: string;
  /** Whether the stand-in runs (only when the server's autovacuum is off). */
  active: boolean;
  stop(): Promise<VacuumRound[]>;
}

interface TableStats {
  relname: string;
  reltuples: number;
  n_dead_tup: number;
  n_ins_since_vacuum: number;
  n_mod_since_analyze: number;
}

const over = ([base, scale]: readonly [number, number], tuples: number, value: number) => value > base + scale * Math.max(0, tuples);
const quoteIdent = (name: string) => `"${name.replace(/"/g, '""')}"`;

/**
 * A production server vacuums and analyzes tables as they change; a CI server may not (this
 * machine's PostgreSQL has `autovacuum = off`), and then a soak measures dead rows piling up and
 * plans made on the seed's statistics, which production never sees. When the server's autovacuum
 * is off, this does its job for the soak's database: once a minute, the tables past the default
 * thresholds get `VACUUM (ANALYZE)` or `ANALYZE`, on a connection of their own (its CPU counts as
 * the database's, as autovacuum workers' would).
 */
export async function startAutovacuumStandIn(databaseUrl: string, enabled: boolean): Promise<AutovacuumStandIn> {
  const client = new pg.Client({ connectionString: databaseUrl });
  client.on('error', () => {});
  await client.connect();
  const serverSetting = (await client.query<{ autovacuum: string }>('SHOW autovacuum')).rows[0]?.autovacuum ?? 'unknown';
  if (serverSetting !== 'off' || !enabled) {
    await client.end();
    return { serverSetting, active: false, stop: async () => [] };
  }
  const started = performance.now();
  const rounds: VacuumRound[] = [];
  let running: Promise<void> = Promise.resolve();
  const round = async () => {
    const roundStarted = performance.now();
    const { rows } = await client.query<TableStats>(`
      SELECT s.relname, c.reltuples::float8 AS reltuples, s.n_dead_tup::float8 AS n_dead_tup,
             s.n_ins_since_vacuum::float8 AS n_ins_since_vacuum, s.n_mod_since_analyze::float8 AS n_mod_since_analyze
        FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid`);
    const vacuumed: string[] = [];
    const analyzed: string[] = [];
    for (const table of rows) {
      if (over(THRESHOLDS.dead, table.reltuples, table.n_dead_tup) || over(THRESHOLDS.inserted, table.reltuples, table.n_ins_since_vacuum)) {
        await client.query(`VACUUM (ANALYZE) ${quoteIdent(table.relname)}`);
        vacuumed.push(table.relname);
      } else if (over(THRESHOLDS.modified, table.reltuples, table.n_mod_since_analyze)) {
        await client.query(`ANALYZE ${quoteIdent(table.relname)}`);
        analyzed.push(table.relname);
      }
    }
    rounds.push({ atSecond: (roundStarted - started) / 1_000, vacuumed, analyzed, seconds: (performance.now() - roundStarted) / 1_000 });
  };
  const timer = setInterval(() => {
    running = running.then(round).catch((error: unknown) => {
      process.stderr.write(`autovacuum stand-in: ${error instanceof Error ? error.message : String(error)}\n`);
    });
  }, ROUND_EVERY_MS);
  timer.unref();
  let stopped: Promise<VacuumRound[]> | undefined;
  const stop = () => {
    stopped ??= (async () => {
      clearInterval(timer);
      await running;
      await client.end();
      return rounds;
    })();
    return stopped;
  };
  // Before the database is dropped (clean-ups run newest first), on every exit.
  onCleanup('stop the autovacuum stand-in', async () => { await stop(); });
  return { serverSetting, active: true, stop };
}
