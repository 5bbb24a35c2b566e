import { randomUUID } from 'node:crypto';
import type { MailMessage, MailTransport } from './index.js';

/**
 * The embedded default: accepts every message and delivers none. The message's queued row,
 * marked sent with transport `outbox`, is what staff read at GET /v1/admin/email/outbox.
 */
export class OutboxTransport implements MailTransport {
  readonly kind = 'outbox' as const;

  async send(_message: MailMessage): Promise<{ transportMessageId: string }> {
    return { transportMessageId: `outbox-${randomUUID()}` };
  }

  async close(): Promise<void> {}
}
