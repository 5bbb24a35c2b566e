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
const UNKNOWN = 'An unknown id is 404 `not_found`; an id that is not a uuid is a 400 SchemaError.';

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
          'Every message the service queued (campaigns, broadcasts, transactional mail), whichever transport ' +
          'delivers it; with the embedded default (no `SMTP_URL`) nothing leaves the service and this is where a ' +
          'developer reads what would have gone out. Paged with `meta.total`, newest first ' +
          '(`sort=created_at:asc|desc`). Filters `status`, `category`, `campaign_id`, `broadcast_id`, `user_id`, ' +
          '`q` (part of the recipient address, case-insensitive), `created_from` (inclusive) and `created_to` ' +
          '(exclusive); all combine. Rows carry the rendered subject but no bodies (see the message route). A ' +
          'malformed filter is a 400 SchemaError; 401 without a valid token; 403 `forbidden` (`details.perm`) ' +
          'without `email.read`.',
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
          `The message as it was (or will be) sent: From, subject, HTML and text bodies rendered from its template ` +
          `version and vars (templated messages are rendered on read, with the same code as at sending; the ` +
          `unsubscribe link's token reads \`withheld\`, since a signed link unsubscribes its holder), and the headers ` +
          `set on it (Message-ID; List-Unsubscribe, its token withheld too, and List-Unsubscribe-Post for marketing ` +
          `mail). ${UNKNOWN} 401 without a valid token; 403 \`forbidden\` (\`details.perm\`) without ` +
          `\`email.read\`.`,
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
          `Puts a \`failed\` message back in the queue, due at once, with its attempts counted afresh (up to 5) and ` +
          `its error cleared; answers 200 with the message. A message \`interrupted\` mid-send may have been ` +
          `delivered already: retrying it may send a second copy. Any other status is 422 \`invalid_state\` ` +
          `(\`details.status\`), changing nothing. ${UNKNOWN} 401 without a valid token; 403 \`forbidden\` ` +
          `(\`details.perm\`) without \`email.send\`. Audited (\`email.message.retry\`).`,
        params: idParams,
        response: { 200: outboxMessage },
      },
    },
    (request) => service.retry(actorOf(request), request.params.id),
  );
}
