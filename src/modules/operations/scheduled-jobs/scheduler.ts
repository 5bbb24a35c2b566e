import type { Kysely } from 'kysely';
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Tables } from '../../../db/tables.js';
import type { DrainState } from '../../../kernel/drain.js';
import { cronProblem, nextRunAfter } from './cron.js';
import type { JobHandlers, JobServices } from '../../../kernel/areas/jobs.js';
import { recordRun, runJob } from './job-runner.js';
import { claimDueJob, markUnschedulable, scheduleJob, unscheduledJobs } from './queries.js';
import type { RunView } from './schemas.js';
import type { ScheduledJobRow } from './tables.js';

export const DEFAULT_POLL_MS = 5_000;

interface SchedulerLog {
  info(object: object, message: string): void;
  warn(object: object, message: string): void;
  error(object: object, message: string): void;
}

const silent: SchedulerLog = { info() {}, warn() {}, error() {} };

export interface JobSchedulerOptions {
  db: Kysely<Tables>;
  log?: SchedulerLog;
  /** Names this process in run records; unique per instance by default. */
  instanceId?: string;
  /** The jobs it knows (the service's: `platform.jobs`); a job whose key is missing fails its runs. */
  handlers: JobHandlers;
  /** What jobs may call besides the database; without them, jobs that need them fail their runs. */
  services?: JobServices;
  pollMs?: number;
  /** False: start() only schedules new jobs; due jobs run on other instances (or by runDueJobs). */
  poll?: boolean;
  clock?: () => Date;
  /** The instance's drain: once it begins, no job starts (the one running finishes). */
  drain?: DrainState;
}

/** The next run after `now`, or null (with the reason when the expression is unusable). */
function nextRun(cron: string, now: Date): { next: Date | null; problem?: string } {
  const problem = cronProblem(cron);
  if (problem !== undefined) return { next: null, problem: `invalid cron expression "${cron}": ${problem}` };
  return { next: nextRunAfter(cron, now) };
}

/**
 * Runs due jobs in this process, polling every few seconds. Every instance of the service runs
 * one; row locks (see claimDueJob) make each due run happen on exactly one of them.
 */
export class JobScheduler {
  readonly instanceId: string;
  readonly handlers: JobHandlers;
  readonly services: JobServices | undefined;
  readonly #db: Kysely<Tables>;
  readonly #log: SchedulerLog;
  readonly #pollMs: number;
  readonly #polling: boolean;
  readonly #clock: () => Date;
  readonly #drain: DrainState | undefined;
  #timer: NodeJS.Timeout | undefined;
  #tick: Promise<void> | undefined;
  #stopping = false;

  constructor(options: JobSchedulerOptions) {
    this.#db = options.db;
    this.#log = options.log ?? silent;
    this.instanceId = options.instanceId ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
    this.handlers = options.handlers;
    this.services = options.services;
    this.#pollMs = options.pollMs ?? DEFAULT_POLL_MS;
    this.#polling = options.poll ?? true;
    this.#clock = options.clock ?? (() => new Date());
    this.#drain = options.drain;
  }

  now(): Date {
    return this.#clock();
  }

  /** Schedules newly seeded jobs at once (so lists show their next run), then polls. */
  async start(): Promise<void> {
    this.#stopping = false;
    await this.scheduleNewJobs(this.#clock()).catch((error: unknown) =>
      this.#log.error({ err: error }, 'scheduling jobs failed'),
    );
    if (!this.#polling) return;
    // Unref'd: a pending poll never keeps the process (or a test run) alive.
    this.#timer = setInterval(() => this.#poll(), this.#pollMs);
    this.#timer.unref();
  }

  /** Stops polling and waits for a run in progress, so the database can close after this. */
  async stop(): Promise<void> {
    this.#stopping = true;
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#tick;
  }

  /**
   * Runs every job due at `now`, one transaction per job, and returns the runs made here.
   * Tests call this with a chosen clock instead of waiting for the poll.
   */
  async runDueJobs(now: Date = this.#clock()): Promise<RunView[]> {
    await this.scheduleNewJobs(now);
    const runs: RunView[] = [];
    // Each run moves its job's next_run_at past `now`, so the loop ends once no job is due.
    // Checked before each claim: the app's close hooks run only after SHUTDOWN_DELAY_MS, and a job
    // started meanwhile could outlast the drain's timeout.
    while (!this.#stopping && this.#drain?.draining !== true) {
      const ran = await this.#db.transaction().execute(async (trx) => {
        const job = await claimDueJob(trx, now);
        return job === undefined ? undefined : { key: job.key, run: await runJob(trx, this.#request(job, now)) };
      });
      if (ran === undefined) break;
      runs.push(ran.run);
      this.#logRun(ran.run);
      recordRun(this.services, ran.key, ran.run);
    }
    return runs;
  }

  /** Gives active jobs without a next run (just seeded) their first one. */
  async scheduleNewJobs(now: Date): Promise<void> {
    for (const job of await unscheduledJobs(this.#db)) {
      const { next, problem } = nextRun(job.cron, now);
      if (next !== null) await scheduleJob(this.#db, job.id, next);
      else if (problem !== undefined && (await markUnschedulable(this.#db, job.id, problem))) {
        this.#log.error({ job: job.key }, problem);
      }
    }
  }

  /** What a scheduled run of `job` at `now` needs, including where its schedule moves to. */
  #request(job: ScheduledJobRow, now: Date) {
    // An unusable expression leaves next_run_at null; scheduleNewJobs then shows why on the job.
    const { next } = nextRun(job.cron, now);
    return {
      job,
      now,
      trigger: 'schedule' as const,
      triggeredBy: null,
      instanceId: this.instanceId,
      handlers: this.handlers,
      services: this.services,
      nextRunAt: next,
    };
  }

  #logRun(run: RunView): void {
    if (run.result === 'ok') this.#log.info({ job_id: run.job_id, summary: run.summary }, 'scheduled job ran');
    else this.#log.warn({ job_id: run.job_id, error: run.error }, 'scheduled job failed');
  }

  /** One poll at a time: a slow run delays the next poll instead of overlapping it. */
  #poll(): void {
    if (this.#tick !== undefined || this.#drain?.draining) return;
    this.#tick = this.runDueJobs()
      .then(() => undefined)
      .catch((error: unknown) => this.#log.error({ err: error }, 'scheduled jobs poll failed'))
      .finally(() => (this.#tick = undefined));
  }
}
