import pg from 'pg';
import { DUE_TABLES_SQL } from '../src/db/embedded-vacuum.js';
import { onCleanup } from './cleanup.js';

/** autovacuum_naptime's default. */
const ROUND_EVERY_MS = 60_000;

export interface VacuumRound {
  /** Seconds since the stand-in started. */
  atSecond: number;
  /** Wall clock at its start, to set beside the soak's seconds. */
  startedEpochMs: number;
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

interface DueTable {
  name: string;
  needs_vacuum: boolean;
}

const quoteIdent = (name: string) => `"${name.replace(/"/g, '""')}"`;

/**
 * A production server vacuums and analyzes tables as they change; a CI server may not (this
 * machine's PostgreSQL has `autovacuum = off`), and then a soak measures dead rows piling up and
 * plans made on the seed's statistics, which production never sees. When the server's autovacuum
 * is off, this does its job for the soak's database: once a minute, the tables past its
 * thresholds (the server's settings and each table's own) get `VACUUM (ANALYZE)` or `ANALYZE`,
 * on a connection of their own (its CPU counts as the database's, as autovacuum workers' would).
 */
export async function startAutovacuumStandIn(databaseUrl: string, enabled: boolean): Promise<AutovacuumStandIn> {
  const client = new pg.Client({ connectionString: databaseUrl });
  client.on('error', () => {});
  await client.connect();
  const serverSetting =
    (await client.query<{ autovacuum: string }>('SHOW autovacuum')).rows[0]?.autovacuum ?? 'unknown';
  if (serverSetting !== 'off' || !enabled) {
    await client.end();
    return { serverSetting, active: false, stop: async () => [] };
  }
  // Throttled as autovacuum's workers are (autovacuum_vacuum_cost_delay 2 ms per 200 cost units
  // by default). Unthrottled, each round's burst of writes and WAL held up every commit behind it:
  // the soak's stalls of 20-40 s came right after the rounds that vacuumed audit_log.
  await client.query(`
    SELECT set_config('vacuum_cost_delay', current_setting('autovacuum_vacuum_cost_delay'), false),
           set_config('vacuum_cost_limit', CASE current_setting('autovacuum_vacuum_cost_limit')
             WHEN '-1' THEN current_setting('vacuum_cost_limit') ELSE current_setting('autovacuum_vacuum_cost_limit') END, false)`);
  const started = performance.now();
  const rounds: VacuumRound[] = [];
  let running: Promise<void> = Promise.resolve();
  const round = async () => {
    const roundStarted = performance.now();
    const startedEpochMs = Date.now();
    // The service's own choice of tables (src/db/embedded-vacuum.ts): the server's thresholds and each table's
    // settings.
    const { rows } = await client.query<DueTable>(DUE_TABLES_SQL);
    const vacuumed: string[] = [];
    const analyzed: string[] = [];
    for (const table of rows) {
      if (table.needs_vacuum) {
        await client.query(`VACUUM (ANALYZE) ${quoteIdent(table.name)}`);
        vacuumed.push(table.name);
      } else {
        await client.query(`ANALYZE ${quoteIdent(table.name)}`);
        analyzed.push(table.name);
      }
    }
    rounds.push({
      atSecond: (roundStarted - started) / 1_000,
      startedEpochMs,
      vacuumed,
      analyzed,
      seconds: (performance.now() - roundStarted) / 1_000,
    });
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
  onCleanup('stop the autovacuum stand-in', async () => {
    await stop();
  });
  return { serverSetting, active: true, stop };
}

/**
 * The rounds under way at some moment of a wall-clock span (a slow second and its requests'
 * latency): beside a slow second, whether the vacuum stand-in could have held it up.
 */
export function roundsDuring(rounds: VacuumRound[], fromEpochMs: number, toEpochMs: number): VacuumRound[] {
  return rounds.filter(
    (round) => round.startedEpochMs <= toEpochMs && round.startedEpochMs + round.seconds * 1_000 >= fromEpochMs,
  );
}
