import type { Kysely } from 'kysely';
import type { Tables } from '../../../db/tables.js';
import type { Actor } from '../../../kernel/actor.js';
import { invalidState, notFound } from '../../../kernel/errors.js';
import { paged } from '../../../kernel/pagination.js';
import type { Writes } from '../../../kernel/write.js';
import { contentOf, extraHeadersOf, messageIdOf, subjectOf, type ComposeContext } from './compose.js';
import {
  listOutbox,
  lockMessage,
  outboxDepth,
  outboxMessage,
  requeueMessage,
  templateVersion,
  type OutboxRow,
} from './queries.js';
import type { ListOutboxQuery, OutboxMessageDetailView, OutboxMessageView } from './schemas.js';
import { messagePicture } from './audit-picture.js';

/**
 * What staff read of outbound mail (every message, whichever transport) and the one repair they
 * may make: send a failed message again. Templated messages are rendered on read with the same
 * code the dispatcher sends with, so the view is what went (or will go) out; the routes compose
 * with unsubscribe tokens withheld.
 */
export class EmailOutboxService {
  constructor(
    private readonly db: Kysely<Tables>,
    private readonly write: Writes,
    private readonly context: () => ComposeContext,
  ) {}

  async list(query: ListOutboxQuery) {
    const { rows, total } = await listOutbox(this.db, query);
    const context = this.context();
    return paged(
      rows.map((row) => this.#view(context, row)),
      query,
      total,
    );
  }

  /** The messages waiting to be sent, due now or deferred (metrics read it at each scrape). */
  depth(): Promise<{ due: number; deferred: number }> {
    return outboxDepth(this.db, new Date());
  }

  async get(id: string): Promise<OutboxMessageDetailView> {
    const row = await outboxMessage(this.db, id);
    if (row === undefined) throw notFound();
    const version =
      row.template_id === null ? undefined : await templateVersion(this.db, row.template_id, row.template_version!);
    const context = this.context();
    const content = contentOf(context, row, version);
    const messageId = messageIdOf(context, row.id);
    return {
      ...this.#view(context, row),
      vars: row.vars as Record<string, unknown>,
      from: context.from,
      message_id: messageId,
      html: content.html,
      text: content.text,
      subject: content.subject,
      headers: {
        From: context.from,
        To: row.to_email,
        Subject: content.subject,
        'Message-ID': messageId,
        ...extraHeadersOf(context, row),
      },
    };
  }

  /** A failed message back in the queue, due now, with its attempts counted afresh. */
  async retry(actor: Actor, id: string): Promise<OutboxMessageView> {
    const row = await this.write(actor, async (w) => {
      const message = await lockMessage(w.trx, id);
      if (message === undefined) throw notFound();
      if (message.status !== 'failed')
        throw invalidState({ reason: 'only a failed message can be retried', status: message.status });
      await requeueMessage(w.trx, id, new Date());
      await w.auditRow(messagePicture, {
        action: 'email.message.retry',
        targetType: 'email_message',
        targetId: id,
        before: message,
        after: { status: 'queued', attempts: 0 },
        extra: { to_email: message.to_email, campaign_id: message.campaign_id, broadcast_id: message.broadcast_id },
      });
      // Read in the transaction: after commit the dispatcher may already be sending it.
      return (await outboxMessage(w.trx, id))!;
    });
    return this.#view(this.context(), row);
  }

  #view(context: ComposeContext, row: OutboxRow): OutboxMessageView {
    return {
      id: row.id,
      to_email: row.to_email,
      user_id: row.user_id,
      category: row.category,
      template_id: row.template_id,
      template_key: row.template_key,
      template_version: row.template_version,
      subject: subjectOf(context, row, row.version_subject),
      campaign_id: row.campaign_id,
      broadcast_id: row.broadcast_id,
      status: row.status,
      held: row.held,
      attempts: row.attempts,
      next_attempt_at: row.next_attempt_at,
      last_error: row.last_error,
      transport: row.transport,
      transport_message_id: row.transport_message_id,
      created_at: row.created_at,
      sent_at: row.sent_at,
    };
  }
}
