import type { Kysely } from 'kysely';
import type { Tables } from '../../../db/tables.js';
import type { JobContext, JobHandlers, JobServices, JobSummary } from '../../../kernel/areas/jobs.js';
import type { Deps } from '../../../composition/platform.js';
import { deleteOutboxEventsBefore } from '../../../kernel/events.js';
import { deleteGrantsExpiredBy } from '../../roles/index.js';
import { deleteRunsStartedBefore } from './queries.js';

/** What a scheduler built by the service hands its jobs. */
export function jobServicesOf(deps: Deps<'events' | 'identity' | 'log' | 'metrics' | 'storage'>): JobServices {
  const { metrics } = deps;
  return {
    identity: deps.identity,
    events: deps.events,
    storage: deps.storage,
    log: deps.log,
    ...(metrics === undefined ? {} : { recordRun: metrics.jobRan.bind(metrics) }),
  };
}

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

/** The service-wide jobs (tidying the kernel's tables); each area declares its own in its module.ts. */
export const SYSTEM_JOBS: JobHandlers = {
  'expire-role-grants': expireRoleGrants,
  'purge-event-outbox': purgeEventOutbox,
  'prune-job-runs': pruneJobRuns,
};
