import type { Kysely } from 'kysely';
import type { IdentityProvider } from '../../adapters/identity/index.js';
import type { StorageAdapter } from '../../adapters/storage/index.js';
import type { Tables } from '../../db/tables.js';
import type { EventPublisher } from '../events.js';

/** The kernel's services a job may call besides its transaction (outside services, events, logs). */
export interface JobServices {
  identity: IdentityProvider;
  events: EventPublisher;
  storage: StorageAdapter;
  log: { info(object: object, message: string): void; warn(object: object, message: string): void };
  /** Counts a finished run (metrics), once its transaction has committed; absent when nothing is measured. */
  recordRun?: (job: string, outcome: JobOutcome, seconds: number) => void;
}

/** How a run ended: its handler returned (`ok`) or threw (`error`, its work rolled back). */
export type JobOutcome = 'ok' | 'error';

export interface JobContext {
  /** The scheduler's clock at the start of the run: handlers measure ages against it, not now(). */
  now: Date;
  /**
   * Absent on a scheduler built without a kernel (tests of the scheduler itself): jobs that need them fail their run.
   */
  services: JobServices | undefined;
}

/** The services of a job that cannot run without them; the run fails (and is recorded) otherwise. */
export function requireServices(context: JobContext, job: string): JobServices {
  if (context.services === undefined)
    throw new Error(`job "${job}" needs the service's kernel (identity, storage, events); this scheduler has none`);
  return context.services;
}

/** A small picture of what the run did (counts), kept with the run record. */
export type JobSummary = Record<string, unknown>;

/**
 * The work of one job. `trx` is the run's transaction: the work, the run record and the job's
 * next run commit together, and a throw rolls the work back. Use only `trx` (on the embedded
 * database a second connection would wait for this one forever), and keep the work short.
 */
export type JobHandler = (trx: Kysely<Tables>, context: JobContext) => Promise<JobSummary>;

/**
 * Handlers by job key. A job's row (key, cron, description) is seeded by a migration; a row whose
 * key has no handler fails its runs.
 */
export type JobHandlers = Readonly<Record<string, JobHandler>>;
