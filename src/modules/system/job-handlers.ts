import type { Kysely } from 'kysely';
import type { IdentityProvider } from '../../adapters/identity/index.js';
import type { StorageAdapter } from '../../adapters/storage/index.js';
import type { Tables } from '../../db/tables.js';
import type { EventPublisher } from '../../kernel/events.js';
import type { Kernel } from '../../kernel/kernel.js';
import { purgeDeletedAccountsJob } from '../account-deletion/purge.js';
import { purgeDeviceAuthorizationsJob } from '../device-authorization/cleanup.js';
import { pruneLoginSessionsJob } from '../login-sessions/retention.js';
import { expireStorageUploadsJob, sweepOrphanObjectsJob } from '../storage/cleanup.js';
import { expireCreditLotsJob } from '../billing/credits/ledger.js';
import { launchScheduledCampaignsJob } from '../email/campaigns/launch.js';
import { deleteGrantsExpiredBy, deleteOutboxEventsBefore, deleteRunsStartedBefore } from './queries.js';

/** The kernel's services a job may call besides its transaction (outside services, events, logs). */
export interface JobServices {
  identity: IdentityProvider;
  events: EventPublisher;
  storage: StorageAdapter;
  log: { info(object: object, message: string): void; warn(object: object, message: string): void };
}

export function jobServicesOf(kernel: Kernel): JobServices {
  return { identity: kernel.identity, events: kernel.events, storage: kernel.storage, log: kernel.log };
}

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

export type JobHandlers = Readonly<Record<string, JobHandler>>;

const OUTBOX_RETENTION_MS = 7 * 24 * 3_600_000;

/**
 * Run records are kept 90 days: `launch-scheduled-campaigns` alone records a run a minute (half a
 * million rows a year), and each job's latest outcome stays on its own row (`last_run_at`,
 * `last_result`, `last_error`) whatever the history keeps.
 */
export const JOB_RUN_RETENTION_MS = 90 * 24 * 3_600_000;

/** Expired grants already give nothing (every permission read filters them); this tidies them away. */
async function expireRoleGrants(trx: Kysely<Tables>, { now }: JobContext): Promise<JobSummary> {
  return { deleted: await deleteGrantsExpiredBy(trx, now) };
}

/** Events are delivered right after commit; a week of outbox is kept for inspection only. */
async function purgeEventOutbox(trx: Kysely<Tables>, { now }: JobContext): Promise<JobSummary> {
  const cutoff = new Date(now.getTime() - OUTBOX_RETENTION_MS);
  return { deleted: await deleteOutboxEventsBefore(trx, cutoff) };
}

/** The history behind GET /v1/admin/system/cron/{id}/runs, past its retention. */
async function pruneJobRuns(trx: Kysely<Tables>, { now }: JobContext): Promise<JobSummary> {
  const cutoff = new Date(now.getTime() - JOB_RUN_RETENTION_MS);
  return { deleted: await deleteRunsStartedBefore(trx, cutoff) };
}

/**
 * Every job the service knows, by key. A new job: add its handler here and seed its row
 * (key, cron, description) in a migration; a row whose key is missing here fails its runs.
 */
export const JOB_HANDLERS: JobHandlers = {
  'expire-role-grants': expireRoleGrants,
  'purge-event-outbox': purgeEventOutbox,
  'expire-credit-lots': expireCreditLotsJob,
  'launch-scheduled-campaigns': launchScheduledCampaignsJob,
  'purge-deleted-accounts': purgeDeletedAccountsJob,
  'purge-device-authorizations': purgeDeviceAuthorizationsJob,
  'prune-login-sessions': pruneLoginSessionsJob,
  'expire-storage-uploads': expireStorageUploadsJob,
  'sweep-orphan-objects': sweepOrphanObjectsJob,
  'prune-job-runs': pruneJobRuns,
};
