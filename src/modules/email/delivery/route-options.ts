// What each route of routes.ts is (permission, errors, schemas, OpenAPI text), named by its operationId.
import { idParams, listOutboxQuery, outboxMessage, outboxMessageDetail, outboxPage } from './schemas.js';

const tags = ['email outbox'];
const read = { perms: ['email.read'] } as const;
const send = { perms: ['email.send'] } as const;

export const listEmailOutbox = {
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
} as const;

export const getEmailOutboxMessage = {
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
} as const;

export const retryEmailOutboxMessage = {
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
} as const;
