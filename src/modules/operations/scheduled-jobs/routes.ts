import { actorOf } from '../../../kernel/auth.js';
import type { Deps } from '../../../composition/platform.js';
import type { ZodApp } from '../../../kernel/http/zod-app.js';
import { jobServicesOf } from './job-handlers.js';
import { JobScheduler } from './scheduler.js';
import { jobIdParams, jobsBody, okResult, runBody, runsPage, runsQuery, setActiveBody } from './schemas.js';
import { SystemCronService } from './service.js';

const tags = ['scheduled jobs'];
const unknownJob =
  'An unknown id is 404 `not_found` (`details.id`); an id that is not an integer from 1 to 2147483647 is a 400 ' +
  'SchemaError.';

/**
 * Scheduled jobs: the staff routes, and this instance's scheduler, which starts when the app is
 * ready and stops (waiting for a run in progress) when it closes, before the database does.
 */
export function registerSystemRoutes(
  app: ZodApp,
  deps: Deps<'config' | 'db' | 'drain' | 'events' | 'identity' | 'jobs' | 'log' | 'metrics' | 'storage' | 'write'>,
): void {
  const scheduler = new JobScheduler({
    db: deps.db,
    handlers: deps.jobs,
    log: deps.log,
    poll: deps.config.scheduledJobs,
    services: jobServicesOf(deps),
    drain: deps.drain,
  });
  const cron = new SystemCronService(deps.db, deps.write, scheduler);
  app.addHook('onReady', async () => scheduler.start());
  app.addHook('onClose', async () => scheduler.stop());

  app.get(
    '/v1/admin/system/cron',
    {
      config: { perms: ['settings.read'] },
      schema: {
        operationId: 'listSystemCronJobs',
        tags,
        summary: 'List scheduled jobs with their next and last run',
        response: { 200: jobsBody },
      },
    },
    () => cron.list(),
  );

  app.patch(
    '/v1/admin/system/cron/:id',
    {
      config: { perms: ['settings.write'], errors: { 404: ['not_found'] } },
      schema: {
        operationId: 'setSystemCronJobActive',
        tags,
        summary: 'Enable or disable a scheduled job',
        description:
          `Enabling schedules the next occurrence from now; disabling clears the next run. Audited as ` +
          `\`system.cron.enable\` / \`system.cron.disable\`. ${unknownJob}`,
        params: jobIdParams,
        body: setActiveBody,
        response: { 200: okResult },
      },
    },
    (request) => cron.setActive(actorOf(request), request.params.id, request.body.active),
  );

  app.post(
    '/v1/admin/system/cron/:id/run',
    {
      config: { perms: ['settings.write'], errors: { 404: ['not_found'] } },
      schema: {
        operationId: 'runSystemCronJob',
        tags,
        summary: 'Run a scheduled job now',
        description:
          `Runs on this instance, even when the job is disabled, without moving its schedule; waits for a scheduled ` +
          `run of the same job in progress. Answers the run record: a failing job is still 200, with \`result: ` +
          `"error"\` and \`error\`. Audited as \`system.cron.run\`. ${unknownJob}`,
        params: jobIdParams,
        response: { 200: runBody },
      },
    },
    (request) => cron.runNow(actorOf(request), request.params.id),
  );

  app.get(
    '/v1/admin/system/cron/:id/runs',
    {
      config: { perms: ['settings.read'], errors: { 404: ['not_found'] } },
      schema: {
        operationId: 'listSystemCronJobRuns',
        tags,
        summary: "A scheduled job's run history, newest first",
        description:
          `Runs are kept 90 days (the daily \`prune-job-runs\` job); the job's last outcome stays on the job ` +
          `itself. ${unknownJob}`,
        params: jobIdParams,
        querystring: runsQuery,
        response: { 200: runsPage },
      },
    },
    (request) => cron.runs(request.params.id, request.query),
  );
}
