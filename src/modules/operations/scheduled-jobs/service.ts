import type { Kysely } from 'kysely';
import type { Tables } from '../../../db/tables.js';
import type { Actor } from '../../../kernel/actor.js';
import { notFound } from '../../../kernel/errors.js';
import { paged } from '../../../kernel/pagination.js';
import type { Writes } from '../../../kernel/write.js';
import { cronProblem, nextRunAfter } from './cron.js';
import { recordRun, runJob } from './job-runner.js';
import { findJob, listJobs, listRuns, lockJob, setActive } from './queries.js';
import type { JobScheduler } from './scheduler.js';
import type { RunsQuery, RunView } from './schemas.js';
import { scheduledJobPicture } from './audit-picture.js';

const TARGET_TYPE = 'scheduled_job';

async function lockedJobOrThrow(trx: Kysely<Tables>, id: number) {
  const job = await lockJob(trx, id);
  if (job === undefined) throw notFound('not_found', { id });
  return job;
}

/** Staff operations on scheduled jobs; the scheduler does the runs themselves. */
export class SystemCronService {
  constructor(
    private readonly db: Kysely<Tables>,
    private readonly write: Writes,
    private readonly scheduler: JobScheduler,
  ) {}

  async list() {
    return { data: await listJobs(this.db) };
  }

  /**
   * Operation 17. Enabling schedules the next occurrence from now (a job switched off for a
   * week does not fire at once for what it missed); disabling clears the next run.
   */
  async setActive(actor: Actor, id: number, active: boolean): Promise<{ ok: true }> {
    await this.write(actor, async (w) => {
      const job = await lockedJobOrThrow(w.trx, id);
      let nextRunAt = job.next_run_at;
      if (job.active !== active) {
        nextRunAt = active && cronProblem(job.cron) === undefined ? nextRunAfter(job.cron, this.scheduler.now()) : null;
        await setActive(w.trx, id, active, nextRunAt);
      }
      await w.auditRow(scheduledJobPicture, {
        action: active ? 'system.cron.enable' : 'system.cron.disable',
        targetType: TARGET_TYPE,
        targetId: String(id),
        before: job,
        after: { active, next_run_at: nextRunAt },
        extra: { key: job.key },
      });
    });
    return { ok: true };
  }

  /**
   * Runs a job now on this instance, disabled or not, without moving its schedule. The row lock
   * makes it wait for a scheduled run of the same job in progress rather than overlap it.
   */
  async runNow(actor: Actor, id: number): Promise<RunView> {
    const { key, run } = await this.write(actor, async (w) => {
      const job = await lockedJobOrThrow(w.trx, id);
      const run = await runJob(w.trx, {
        job,
        now: this.scheduler.now(),
        trigger: 'manual',
        triggeredBy: actor.userId,
        instanceId: this.scheduler.instanceId,
        handlers: this.scheduler.handlers,
        services: this.scheduler.services,
      });
      await w.audit({
        action: 'system.cron.run',
        targetType: TARGET_TYPE,
        targetId: String(id),
        extra: { key: job.key, run_id: run.id, result: run.result, summary: run.summary, error: run.error },
      });
      return { key: job.key, run };
    });
    recordRun(this.scheduler.services, key, run);
    return run;
  }

  async runs(id: number, query: RunsQuery) {
    if ((await findJob(this.db, id)) === undefined) throw notFound('not_found', { id });
    const { rows, total } = await listRuns(this.db, id, query);
    return paged(
      rows.map((row) => ({ ...row, summary: row.summary as Record<string, unknown> })),
      query,
      total,
    );
  }
}
