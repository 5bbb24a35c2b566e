import type { Kysely } from 'kysely';
import type { Tables } from '../../db/tables.js';
import { purgeDeletedAccountsJob } from '../account-deletion/purge.js';
import { expireCreditLotsJob } from '../credits/ledger.js';
import { launchScheduledCampaignsJob } from '../email-campaigns/launch.js';

export interface JobContext {
  /** The scheduler's clock at the start of the run: handlers measure ages against it, not now(). */
  now: Date;
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

/** Expired grants already give nothing (every permission read filters them); this tidies them away. */
async function expireRoleGrants(trx: Kysely<Tables>, { now }: JobContext): Promise<JobSummary> {
  const result = await trx.deleteFrom('user_roles').where('expires_at', 'is not', null).where('expires_at', '<=', now).executeTakeFirst();
  return { deleted: Number(result.numDeletedRows) };
}

/** Events are delivered right after commit; a week of outbox is kept for inspection only. */
async function purgeEventOutbox(trx: Kysely<Tables>, { now }: JobContext): Promise<JobSummary> {
  const cutoff = new Date(now.getTime() - OUTBOX_RETENTION_MS);
  const result = await trx.deleteFrom('event_outbox').where('created_at', '<', cutoff).executeTakeFirst();
  return { deleted: Number(result.numDeletedRows) };
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
};
