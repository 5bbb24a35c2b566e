import { z } from 'zod';
import { isoDateTime } from '../../../lib/instant.js';
import { pageQuery, pagedResponse } from '../../../kernel/pagination.js';

// The outbox routes write snake_case, as the rest of the email group.

const dateTime = isoDateTime();
export const MESSAGE_STATUSES = ['queued', 'sending', 'sent', 'failed', 'skipped', 'cancelled'] as const;
const CATEGORIES = ['marketing', 'transactional'] as const;

export const idParams = z.object({ id: z.guid() });

export const listOutboxQuery = pageQuery(['created_at'], { field: 'created_at', direction: 'desc' })
  .extend({
    status: z.enum(MESSAGE_STATUSES).optional(),
    category: z.enum(CATEGORIES).optional(),
    campaign_id: z.guid().optional(),
    broadcast_id: z.guid().optional(),
    user_id: z.guid().optional(),
    created_from: dateTime.optional().describe('Inclusive lower bound of created_at.'),
    created_to: dateTime.optional().describe('Exclusive upper bound of created_at.'),
  })
  .describe('`q` matches the recipient address (case-insensitive substring).');
export type ListOutboxQuery = z.infer<typeof listOutboxQuery>;

export const outboxMessage = z
  .object({
    id: z.guid(),
    to_email: z.string(),
    user_id: z.guid().nullable(),
    category: z
      .enum(CATEGORIES)
      .describe(
        '`marketing` mail carries List-Unsubscribe and is never sent to a suppressed address; `transactional` is ' +
          'sent regardless.',
      ),
    template_id: z.guid().nullable().describe('Null for a message with literal content.'),
    template_key: z.string().nullable(),
    template_version: z.number().int().nullable().describe('The version fixed when the message was queued.'),
    subject: z.string().describe('As sent (templated messages are rendered with their vars).'),
    campaign_id: z.guid().nullable(),
    broadcast_id: z.guid().nullable(),
    status: z
      .enum(MESSAGE_STATUSES)
      .describe(
        '`queued` → `sending` → `sent`, `failed` (refused, out of attempts, or `interrupted` mid-send and never ' +
          'resent) or back to `queued` for a retry; `skipped` (suppressed address); `cancelled`.',
      ),
    held: z.boolean().describe('Queued but not picked up (a paused campaign).'),
    attempts: z.number().int(),
    next_attempt_at: z.date().describe('When a queued message is due.'),
    last_error: z
      .string()
      .nullable()
      .describe(
        "Why it failed, is being retried, or was skipped: `suppressed`, `interrupted`, or the mail server's answer.",
      ),
    transport: z
      .enum(['smtp', 'outbox'])
      .nullable()
      .describe('What delivered it: `outbox` (the embedded default) records and sends nothing.'),
    transport_message_id: z
      .string()
      .nullable()
      .describe("The transport's reference (SMTP: the server's final reply, naming its queue entry)."),
    created_at: z.date(),
    sent_at: z.date().nullable(),
  })
  .meta({ id: 'OutboxMessage', description: 'One outbound email: its state, attempts and transport.' });
export type OutboxMessageView = z.infer<typeof outboxMessage>;
export const outboxPage = pagedResponse(outboxMessage);

export const outboxMessageDetail = outboxMessage
  .extend({
    vars: z
      .record(z.string(), z.unknown())
      .describe(
        'The variables a templated message is rendered with (besides `email` and `unsubscribe_url`, which the ' +
          'service adds).',
      ),
    from: z.string(),
    message_id: z.string().describe('The Message-ID header, the same on every attempt.'),
    html: z.string(),
    text: z.string(),
    headers: z
      .record(z.string(), z.string())
      .describe(
        'Every header the service sets: From, To, Subject, Message-ID and, for marketing mail, List-Unsubscribe and ' +
          'List-Unsubscribe-Post.',
      ),
  })
  .meta({ id: 'OutboxMessageDetail', description: 'One outbound email with the variables it was rendered from.' });
export type OutboxMessageDetailView = z.infer<typeof outboxMessageDetail>;
