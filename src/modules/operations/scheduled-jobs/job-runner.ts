import type { Kysely } from 'kysely';
import { performance } from 'node:perf_hooks';
import { databaseErrorSummary } from '../../../db/failures.js';
import { errorType, inInternalSpan, markFailed } from '../../../lib/spans.js';
import type { Tables } from '../../../db/tables.js';
import type { JobHandlers, JobServices, JobSummary } from '../../../kernel/areas/jobs.js';
import { beginRunSavepoint, insertRun, recordOutcome, releaseRunSavepoint, rollbackToRunSavepoint } from './queries.js';
import type { RunView } from './schemas.js';
import type { JobTrigger, ScheduledJobRow } from './tables.js';

/** Long enough for a stack-less database error, short enough for a list view. */
const MAX_ERROR_LENGTH = 2_000;

export interface RunRequest {
  job: ScheduledJobRow;
  now: Date;
  trigger: JobTrigger;
  triggeredBy: string | null;
  instanceId: string;
  handlers: JobHandlers;
  services: JobServices | undefined;
  /** The job's next run, for scheduled runs; a manual run leaves the schedule alone. */
  nextRunAt?: Date | null;
}

/** `type`: what kind of failure it was (a SQLSTATE, an error's class), for the run's span. */
type Attempt = { result: 'ok'; summary: JobSummary } | { result: 'error'; error: string; type: string };

/** Why the run failed, as staff read it; a database error names its SQLSTATE and table, never the values. */
function errorText(error: unknown): string {
  const text = databaseErrorSummary(error) ?? (error instanceof Error ? error.message || error.name : String(error));
  return text.slice(0, MAX_ERROR_LENGTH);
}

/**
 * Runs the handler inside a savepoint of the caller's transaction: a failure rolls back the
 * handler's partial work (and clears an aborted transaction) while the run record still commits.
 */
async function attempt(trx: Kysely<Tables>, request: RunRequest): Promise<Attempt> {
  const { job, handlers } = request;
  if (!Object.hasOwn(handlers, job.key))
    return { result: 'error', error: `no handler for job key "${job.key}"`, type: 'no_handler' };
  const handler = handlers[job.key]!;
  await beginRunSavepoint(trx);
  try {
    const summary = await handler(trx, { now: request.now, services: request.services });
    await releaseRunSavepoint(trx);
    return { result: 'ok', summary };
  } catch (error) {
    await rollbackToRunSavepoint(trx);
    return { result: 'error', error: errorText(error), type: errorType(error) };
  }
}

/**
 * Runs one job in `trx` (which holds the job's row lock) and records the run and the outcome,
 * inside a span named after the job (tracing on): a trace's root when the scheduler runs it, a
 * child of the request's span when staff do. Its statements are its children.
 */
export function runJob(trx: Kysely<Tables>, request: RunRequest): Promise<RunView> {
  const { job, trigger } = request;
  return inInternalSpan(`job ${job.key}`, { [JOB_KEY]: job.key, [JOB_TRIGGER]: trigger }, async (span) => {
    const run = await recordedRun(trx, request);
    span?.setAttribute(JOB_OUTCOME, run.outcome.result);
    if (span !== undefined && run.outcome.result === 'error') markFailed(span, run.outcome.type);
    return run.view;
  });
}

/** The span attributes of a job's run: its key, what started it (`schedule`, `manual`) and how it ended. */
const JOB_KEY = 'job.key';
const JOB_TRIGGER = 'job.trigger';
const JOB_OUTCOME = 'job.outcome';

async function recordedRun(trx: Kysely<Tables>, request: RunRequest): Promise<{ view: RunView; outcome: Attempt }> {
  const started = performance.now();
  const outcome = await attempt(trx, request);
  // Times follow the scheduler's clock, so a test's chosen clock yields a consistent record.
  const finishedAt = new Date(request.now.getTime() + Math.round(performance.now() - started));
  const error = outcome.result === 'error' ? outcome.error : null;
  const run = await insertRun(trx, {
    jobId: request.job.id,
    trigger: request.trigger,
    triggeredBy: request.triggeredBy,
    startedAt: request.now,
    finishedAt,
    result: outcome.result,
    error,
    summary: outcome.result === 'ok' ? (outcome.summary ?? {}) : {},
    instanceId: request.instanceId,
  });
  await recordOutcome(trx, request.job.id, {
    lastRunAt: request.now,
    lastResult: outcome.result,
    lastError: error,
    nextRunAt: request.nextRunAt,
  });
  return { view: { ...run, summary: run.summary as Record<string, unknown> }, outcome };
}

/** Counts a committed run (metrics): by job key and outcome, with the time its handler took. */
export function recordRun(services: JobServices | undefined, key: string, run: RunView): void {
  services?.recordRun?.(key, run.result, (run.finished_at.getTime() - run.started_at.getTime()) / 1_000);
}
