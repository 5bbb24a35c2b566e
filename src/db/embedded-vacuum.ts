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

/**
 * The tables past PostgreSQL's default autovacuum thresholds (`autovacuum_vacuum_threshold` 50 +
 * 0.2 of the rows dead, `autovacuum_vacuum_insert_threshold` 1000 + 0.2 inserted since the last
 * vacuum, `autovacuum_analyze_threshold` 50 + 0.1 changed since the last analyze), so a round
 * does what the server's autovacuum would, and nothing on a table that has not changed.
 */
async function dueTables(db: Kysely<Tables>): Promise<DueTable[]> {
  const { rows } = await sql<DueTable>`
    SELECT s.relname AS name,
           s.n_dead_tup > 50 + 0.2 * greatest(c.reltuples, 0)
             OR s.n_ins_since_vacuum > 1000 + 0.2 * greatest(c.reltuples, 0) AS needs_vacuum
      FROM pg_stat_user_tables s
      JOIN pg_class c ON c.oid = s.relid
     WHERE s.schemaname = current_schema()
       AND (s.n_dead_tup > 50 + 0.2 * greatest(c.reltuples, 0)
            OR s.n_ins_since_vacuum > 1000 + 0.2 * greatest(c.reltuples, 0)
            OR s.n_mod_since_analyze > 50 + 0.1 * greatest(c.reltuples, 0))
     ORDER BY s.relname`.execute(db);
  return rows;
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
      this.#round ??= this.#runRound().finally(() => { this.#round = undefined; });
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
