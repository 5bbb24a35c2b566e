import { actorOf } from '../../../kernel/auth.js';
import type { Deps } from '../../../composition/platform.js';
import type { ZodApp } from '../../../kernel/http/zod-app.js';
import { composeContext } from './compose.js';
import { mailDispatcherFor } from './dispatcher.js';
import { EmailOutboxService } from './service.js';
import { getEmailOutboxMessage, listEmailOutbox, retryEmailOutboxMessage } from './route-options.js';

/**
 * The outbox: every message the service queued, as staff read it. Also starts this instance's
 * mail dispatcher when it runs scheduled jobs (SCHEDULED_JOBS=on), and stops it, waiting for
 * the sends in progress, before the database closes.
 */
export function registerEmailDeliveryRoutes(
  app: ZodApp,
  deps: Deps<'config' | 'db' | 'log' | 'mail' | 'metrics' | 'signingKey' | 'write'>,
): void {
  // Staff read what went out with the unsubscribe token withheld: a signed link is never an answer.
  const service = new EmailOutboxService(deps.db, deps.write, () => ({
    ...composeContext(deps),
    withholdTokens: true,
  }));
  if (deps.config.scheduledJobs) {
    const dispatcher = mailDispatcherFor(deps);
    app.addHook('onReady', async () => dispatcher.start());
    app.addHook('onClose', async () => dispatcher.stop());
  }
  deps.metrics?.queryAtScrape(
    'email_outbox_depth',
    'Messages waiting in the outbox (shared by every instance): due (to be sent now) or deferred (a retry waiting ' +
      'out its backoff); held messages of paused campaigns are not waiting.',
    'state',
    ['due', 'deferred'],
    () => service.depth(),
  );

  app.get('/v1/admin/email/outbox', listEmailOutbox, (request) => service.list(request.query));

  app.get('/v1/admin/email/outbox/:id', getEmailOutboxMessage, (request) => service.get(request.params.id));

  app.post('/v1/admin/email/outbox/:id/retry', retryEmailOutboxMessage, (request) =>
    service.retry(actorOf(request), request.params.id),
  );
}
