import { actorOf } from '../../../kernel/auth.js';
import type { Deps } from '../../../composition/platform.js';
import type { ZodApp } from '../../../kernel/http/zod-app.js';
import { jobServicesOf } from './job-handlers.js';
import { JobScheduler } from './scheduler.js';
import { SystemCronService } from './service.js';
import {
  listSystemCronJobRuns,
  listSystemCronJobs,
  runSystemCronJob,
  setSystemCronJobActive,
} from './route-options.js';

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

  app.get('/v1/admin/system/cron', listSystemCronJobs, () => cron.list());

  app.patch('/v1/admin/system/cron/:id', setSystemCronJobActive, (request) =>
    cron.setActive(actorOf(request), request.params.id, request.body.active),
  );

  app.post('/v1/admin/system/cron/:id/run', runSystemCronJob, (request) =>
    cron.runNow(actorOf(request), request.params.id),
  );

  app.get('/v1/admin/system/cron/:id/runs', listSystemCronJobRuns, (request) =>
    cron.runs(request.params.id, request.query),
  );
}
