import { sql, type Kysely } from 'kysely';
import type { Tables } from './tables.js';

/** Autovacuum's own default: a round a minute. */
export const EMBEDDED_VACUUM_INTERVAL_MS = 60_000;

/** What one round did, table by table, for the log. */
export interface VacuumRound {
  vacuumed: string[];
  analyzed: string[];
  ms: number;
}

interface DueTable {
  name: string;
  needs_vacuum: boolean;
}

/** The per-table settings (`ALTER TABLE … SET (…)`) that change a table's thresholds. */
const THRESHOLD_OPTIONS = [
  'autovacuum_vacuum_threshold',
  'autovacuum_vacuum_scale_factor',
  'autovacuum_vacuum_insert_threshold',
  'autovacuum_vacuum_insert_scale_factor',
  'autovacuum_analyze_threshold',
  'autovacuum_analyze_scale_factor',
];

/**
 * The tables past autovacuum's thresholds, as the server's autovacuum would choose them: dead
 * rows past `autovacuum_vacuum_threshold` + `_scale_factor` × rows, rows inserted since the last
 * vacuum past `autovacuum_vacuum_insert_threshold` + `_scale_factor` × rows (vacuum), or rows
 * changed since the last analyze past `autovacuum_analyze_threshold` + `_scale_factor` × rows
 * (analyze only). A table's own settings (migration 0038 sets audit_log's) come before the
 * server's.
 */
export const DUE_TABLES_SQL = `
  WITH tables AS (
    SELECT s.relname AS name, greatest(c.reltuples, 0) AS tuples, s.n_dead_tup AS dead,
           s.n_ins_since_vacuum AS inserted, s.n_mod_since_analyze AS modified,
           (SELECT coalesce(jsonb_object_agg(o.option_name, o.option_value::float8), '{}')
              FROM pg_options_to_table(c.reloptions) o
             WHERE o.option_name IN (${THRESHOLD_OPTIONS.map((option) => `'${option}'`).join(', ')})) AS own
      FROM pg_stat_user_tables s
      JOIN pg_class c ON c.oid = s.relid
     WHERE s.schemaname = current_schema()
  ), thresholds AS (
    SELECT name,
           dead > coalesce((own->>'autovacuum_vacuum_threshold')::float8,
             current_setting('autovacuum_vacuum_threshold')::float8)
                  + coalesce((own->>'autovacuum_vacuum_scale_factor')::float8,
                    current_setting('autovacuum_vacuum_scale_factor')::float8) * tuples
           OR inserted > coalesce((own->>'autovacuum_vacuum_insert_threshold')::float8,
             current_setting('autovacuum_vacuum_insert_threshold')::float8)
                  + coalesce((own->>'autovacuum_vacuum_insert_scale_factor')::float8,
                    current_setting('autovacuum_vacuum_insert_scale_factor')::float8) * tuples
             AS needs_vacuum,
           modified > coalesce((own->>'autovacuum_analyze_threshold')::float8,
             current_setting('autovacuum_analyze_threshold')::float8)
                  + coalesce((own->>'autovacuum_analyze_scale_factor')::float8,
                    current_setting('autovacuum_analyze_scale_factor')::float8) * tuples
             AS needs_analyze
      FROM tables
  )
  SELECT name, needs_vacuum FROM thresholds WHERE needs_vacuum OR needs_analyze ORDER BY name`;

async function dueTables(db: Kysely<Tables>): Promise<DueTable[]> {
  return (await sql<DueTable>`${sql.raw(DUE_TABLES_SQL)}`.execute(db)).rows;
}

/** One round: VACUUM (ANALYZE) or ANALYZE of each table that is due, one at a time. */
export async function vacuumDueTables(db: Kysely<Tables>): Promise<VacuumRound> {
  const started = performance.now();
  const round: VacuumRound = { vacuumed: [], analyzed: [], ms: 0 };
  for (const table of await dueTables(db)) {
    // One statement per table, outside any transaction (VACUUM refuses to run in one).
    if (table.needs_vacuum) {
      await sql`VACUUM (ANALYZE) ${sql.table(table.name)}`.execute(db);
      round.vacuumed.push(table.name);
    } else {
      await sql`ANALYZE ${sql.table(table.name)}`.execute(db);
      round.analyzed.push(table.name);
    }
  }
  round.ms = Math.round(performance.now() - started);
  return round;
}

interface VacuumLog {
  debug(object: object, message: string): void;
  warn(object: object, message: string): void;
}

/**
 * Stands in for autovacuum on the embedded database. PGlite runs PostgreSQL in single-user mode,
 * where no autovacuum worker ever starts (it reports `autovacuum = on` all the same): without
 * this, every update (a sighting a minute per player, each profile change) leaves a dead row
 * for good, and the planner keeps the statistics of the first day. A round runs on the service's
 * only connection, so requests wait while it does: tables are vacuumed one at a time, and only
 * those past autovacuum's thresholds. PostgreSQL servers run their own autovacuum (keep it on).
 */
export class EmbeddedVacuum {
  #timer: NodeJS.Timeout | undefined;
  #round: Promise<void> | undefined;

  constructor(
    private readonly db: Kysely<Tables>,
    private readonly log: VacuumLog,
    private readonly intervalMs = EMBEDDED_VACUUM_INTERVAL_MS,
  ) {}

  start(): void {
    if (this.#timer !== undefined) return;
    this.#timer = setInterval(() => {
      // A round still under way when the next is due is not doubled.
      this.#round ??= this.#runRound().finally(() => {
        this.#round = undefined;
      });
    }, this.intervalMs);
    this.#timer.unref();
  }

  /** Stops the rounds, waiting for one under way (so the database is not closed under it). */
  async stop(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#round;
  }

  async #runRound(): Promise<void> {
    try {
      const round = await vacuumDueTables(this.db);
      if (round.vacuumed.length + round.analyzed.length > 0) this.log.debug(round, 'embedded database vacuumed');
    } catch (error) {
      // The next round tries again; a failed vacuum leaves the data as it was.
      this.log.warn({ err: error }, 'embedded database vacuum failed');
    }
  }
}
