import { sql, type Kysely } from 'kysely';
import type { Tables } from '../../../db/tables.js';
import { readPage } from '../../../kernel/pagination.js';
import type { RunsQuery } from './schemas.js';
import type { JobResult, JobTrigger, ScheduledJobRow } from './tables.js';
import './tables.js';

/** Every column of a job: its view shows each of them. */
const JOB_COLUMNS = [
  'id',
  'key',
  'cron',
  'description',
  'deletes_data',
  'active',
  'next_run_at',
  'last_run_at',
  'last_result',
  'last_error',
  'created_at',
  'updated_at',
] as const;

export function listJobs(db: Kysely<Tables>) {
  return db.selectFrom('scheduled_jobs').select(JOB_COLUMNS).orderBy('id').execute();
}

export function findJob(db: Kysely<Tables>, id: number) {
  return db.selectFrom('scheduled_jobs').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The job row locked for the rest of the transaction: a manual run or a toggle waits for a running job. */
export function lockJob(trx: Kysely<Tables>, id: number) {
  return trx.selectFrom('scheduled_jobs').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
}

/**
 * One due job, locked. SKIP LOCKED: a job another instance is running right now is not waited
 * for but passed over, and once that run commits its next_run_at lies in the future. So each
 * due run happens on exactly one instance, and instances polling together share the due jobs.
 */
export function claimDueJob(trx: Kysely<Tables>, now: Date): Promise<ScheduledJobRow | undefined> {
  return trx
    .selectFrom('scheduled_jobs')
    .selectAll()
    .where('active', '=', true)
    .where('next_run_at', '<=', now)
    .orderBy('next_run_at')
    .orderBy('id')
    .limit(1)
    .forUpdate()
    .skipLocked()
    .executeTakeFirst();
}

/** Active jobs without a next run yet: just seeded by a migration (or never firing again). */
export function unscheduledJobs(db: Kysely<Tables>) {
  return db
    .selectFrom('scheduled_jobs')
    .select(['id', 'key', 'cron', 'last_error'])
    .where('active', '=', true)
    .where('next_run_at', 'is', null)
    .execute();
}

/** Only while still unscheduled and active: two instances starting together write the same value once. */
export async function scheduleJob(db: Kysely<Tables>, id: number, nextRunAt: Date): Promise<void> {
  await db
    .updateTable('scheduled_jobs')
    .set({ next_run_at: nextRunAt })
    .where('id', '=', id)
    .where('active', '=', true)
    .where('next_run_at', 'is', null)
    .execute();
}

/** Shows on the job why it cannot be scheduled; true when that is news (so it is logged once). */
export async function markUnschedulable(db: Kysely<Tables>, id: number, problem: string): Promise<boolean> {
  const result = await db
    .updateTable('scheduled_jobs')
    .set({ last_result: 'error', last_error: problem })
    .where('id', '=', id)
    .where(sql<boolean>`last_error IS DISTINCT FROM ${problem}`)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export interface NewRun {
  jobId: number;
  trigger: JobTrigger;
  triggeredBy: string | null;
  startedAt: Date;
  finishedAt: Date;
  result: JobResult;
  error: string | null;
  summary: Record<string, unknown>;
  instanceId: string;
}

export function insertRun(trx: Kysely<Tables>, run: NewRun) {
  return trx
    .insertInto('scheduled_job_runs')
    .values({
      job_id: run.jobId,
      trigger: run.trigger,
      triggered_by: run.triggeredBy,
      started_at: run.startedAt,
      finished_at: run.finishedAt,
      result: run.result,
      error: run.error,
      summary: JSON.stringify(run.summary),
      instance_id: run.instanceId,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export interface JobOutcome {
  lastRunAt: Date;
  lastResult: JobResult;
  lastError: string | null;
  /** Omitted by a manual run: it does not move the schedule. */
  nextRunAt?: Date | null;
}

export async function recordOutcome(trx: Kysely<Tables>, id: number, outcome: JobOutcome): Promise<void> {
  await trx
    .updateTable('scheduled_jobs')
    .set({
      last_run_at: outcome.lastRunAt,
      last_result: outcome.lastResult,
      last_error: outcome.lastError,
      ...(outcome.nextRunAt === undefined ? {} : { next_run_at: outcome.nextRunAt }),
    })
    .where('id', '=', id)
    .execute();
}

export async function setActive(
  trx: Kysely<Tables>,
  id: number,
  active: boolean,
  nextRunAt: Date | null,
): Promise<void> {
  await trx
    .updateTable('scheduled_jobs')
    .set({ active, next_run_at: nextRunAt, updated_at: new Date() })
    .where('id', '=', id)
    .execute();
}

export async function listRuns(db: Kysely<Tables>, jobId: number, query: RunsQuery) {
  let filtered = db.selectFrom('scheduled_job_runs').where('job_id', '=', jobId);
  if (query.result !== undefined) filtered = filtered.where('result', '=', query.result);
  return readPage(filtered, query, (matching) =>
    matching
      .select([
        'id',
        'job_id',
        'trigger',
        'triggered_by',
        'started_at',
        'finished_at',
        'result',
        'error',
        'summary',
        'instance_id',
      ])
      .orderBy('started_at', query.sort.direction)
      .orderBy('id', query.sort.direction),
  );
}

/** A run's handler works inside this savepoint of the run's transaction: its failure rolls back only its own work. */
export async function beginRunSavepoint(trx: Kysely<Tables>): Promise<void> {
  await sql`SAVEPOINT scheduled_job_run`.execute(trx);
}

export async function releaseRunSavepoint(trx: Kysely<Tables>): Promise<void> {
  await sql`RELEASE SAVEPOINT scheduled_job_run`.execute(trx);
}

export async function rollbackToRunSavepoint(trx: Kysely<Tables>): Promise<void> {
  await sql`ROLLBACK TO SAVEPOINT scheduled_job_run`.execute(trx);
}

// The system's own jobs (job-handlers.ts); each answers how many rows it deleted.

export async function deleteRunsStartedBefore(trx: Kysely<Tables>, cutoff: Date): Promise<number> {
  const result = await trx.deleteFrom('scheduled_job_runs').where('started_at', '<', cutoff).executeTakeFirst();
  return Number(result.numDeletedRows);
}
