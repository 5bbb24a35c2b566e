import { actorOf } from '../../../kernel/auth.js';
import type { Deps } from '../../../composition/platform.js';
import type { ZodApp } from '../../../kernel/http/zod-app.js';
import { composeContext } from './compose.js';
import { mailDispatcherFor } from './dispatcher.js';
import { idParams, listOutboxQuery, outboxMessage, outboxMessageDetail, outboxPage } from './schemas.js';
import { EmailOutboxService } from './service.js';

const tags = ['email outbox'];
const read = { perms: ['email.read'] } as const;
const send = { perms: ['email.send'] } as const;

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

  app.get(
    '/v1/admin/email/outbox',
    {
      config: read,
      schema: {
        operationId: 'listEmailOutbox',
        tags,
        summary: 'List outbound email',
        description:
          'Every message the service queued, whichever transport delivers it, newest first and paged; filters ' +
          'combine. Without `SMTP_URL` this is where a developer reads what would have gone out. In depth: ' +
          '[docs/api/email.md](docs/api/email.md#list-outbound-email).',
        querystring: listOutboxQuery,
        response: { 200: outboxPage },
      },
    },
    (request) => service.list(request.query),
  );

  app.get(
    '/v1/admin/email/outbox/:id',
    {
      config: { ...read, errors: { 404: ['not_found'] } },
      schema: {
        operationId: 'getEmailOutboxMessage',
        tags,
        summary: 'Read one outbound message',
        description:
          'The message as it was (or will be) sent: From, subject, rendered HTML and text bodies and headers. ' +
          'Unsubscribe tokens read `withheld`. In depth: ' +
          '[docs/api/email.md](docs/api/email.md#read-one-outbound-message).',
        params: idParams,
        response: { 200: outboxMessageDetail },
      },
    },
    (request) => service.get(request.params.id),
  );

  app.post(
    '/v1/admin/email/outbox/:id/retry',
    {
      config: { ...send, errors: { 404: ['not_found'], 422: ['invalid_state'] } },
      schema: {
        operationId: 'retryEmailOutboxMessage',
        tags,
        summary: 'Send a failed message again',
        description:
          'Puts a `failed` message back in the queue, due at once, with its attempts counted afresh. One failed as ' +
          'interrupted mid-send may have been delivered already: retrying it may send a second copy. In depth: ' +
          '[docs/api/email.md](docs/api/email.md#send-a-failed-message-again).',
        params: idParams,
        response: { 200: outboxMessage },
      },
    },
    (request) => service.retry(actorOf(request), request.params.id),
  );
}
