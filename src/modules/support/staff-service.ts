import type { Kysely } from 'kysely';
import type { Tables } from '../../db/tables.js';
import type { Actor } from '../../kernel/actor.js';
import { invalidState, notFound } from '../../kernel/errors.js';
import { paged } from '../../kernel/pagination.js';
import { queueEmails } from '../email/delivery/index.js';
import type { Writes } from '../../kernel/write.js';
import { replyMail } from './mail.js';
import type { SupportAttachments } from '../files/index.js';
import { withAttachments } from './attachment-views.js';
import {
  findStaffTicket,
  insertMessage,
  listStaffTickets,
  lockTicket,
  messagesOf,
  updateTicket,
  userEmail,
  type TicketRow,
} from './queries.js';
import type { StaffReplyInput, StaffTicketsQuery, StaffTicketView } from './schemas.js';
import { ticketPicture } from './audit-picture.js';

type Db = Kysely<Tables>;

/**
 * The staff side of support: the queue, one ticket with its conversation, and the three writes
 * (reply, close, reopen). Each write locks the ticket, checks its status, and lands with its
 * audit row and dashboard event in one transaction.
 */
export class SupportDeskService {
  constructor(
    private readonly db: Db,
    private readonly write: Writes,
    private readonly attachments: SupportAttachments,
  ) {}

  async list(query: StaffTicketsQuery) {
    const { rows, total } = await listStaffTickets(this.db, query);
    return paged(rows, query, total);
  }

  async get(id: string): Promise<StaffTicketView> {
    const ticket = await findStaffTicket(this.db, id);
    if (ticket === undefined) throw notFound();
    return { ...ticket, messages: await withAttachments(this.attachments, await messagesOf(this.db, id)) };
  }

  /**
   * Stored as a staff message; the ticket waits on the player ('answered'); the reply is mailed when the player has an
   * address.
   */
  async reply(actor: Actor, id: string, input: StaffReplyInput): Promise<StaffTicketView> {
    await this.write(actor, async (w) => {
      const ticket = await this.#lockOpen(w.trx, id);
      const message = await insertMessage(w.trx, {
        ticket_id: id,
        author: 'staff',
        author_id: actor.userId,
        body: input.message,
      });
      const answered = { status: 'answered' } as const;
      await updateTicket(w.trx, id, answered);
      const email = await userEmail(w.trx, ticket.user_id);
      if (email !== null) {
        await queueEmails(w.trx, [
          { ...replyMail(ticket, input.message), to_email: email, user_id: ticket.user_id, category: 'transactional' },
        ]);
      }
      await w.auditRow(ticketPicture, {
        action: 'support.ticket.reply',
        targetType: 'support_ticket',
        targetId: id,
        before: ticket,
        after: answered,
        only: ['status'],
        extra: { message_id: message.id, mailed: email !== null },
      });
      await w.publish({
        kind: 'dashboard',
        name: 'support.ticket_replied',
        payload: { ticket_id: id, user_id: ticket.user_id, message_id: message.id },
      });
    });
    return this.get(id);
  }

  async close(actor: Actor, id: string, reason: string | undefined): Promise<StaffTicketView> {
    await this.write(actor, async (w) => {
      const ticket = await this.#lockOpen(w.trx, id);
      const closed = { status: 'closed', closed_by: actor.userId, close_reason: reason ?? null } as const;
      await updateTicket(w.trx, id, closed);
      await w.auditRow(ticketPicture, {
        action: 'support.ticket.close',
        targetType: 'support_ticket',
        targetId: id,
        reason: reason ?? null,
        before: ticket,
        after: closed,
        only: ['status'],
      });
      await w.publish({
        kind: 'dashboard',
        name: 'support.ticket_closed',
        payload: { ticket_id: id, user_id: ticket.user_id },
      });
    });
    return this.get(id);
  }

  /** A closed ticket waits on staff again ('open'); its closing fields are cleared. */
  async reopen(actor: Actor, id: string, reason: string | undefined): Promise<StaffTicketView> {
    await this.write(actor, async (w) => {
      const ticket = await lockTicket(w.trx, id);
      if (ticket === undefined) throw notFound();
      if (ticket.status !== 'closed') throw invalidState({ status: ticket.status });
      const reopened = { status: 'open' } as const;
      await updateTicket(w.trx, id, reopened);
      await w.auditRow(ticketPicture, {
        action: 'support.ticket.reopen',
        targetType: 'support_ticket',
        targetId: id,
        reason: reason ?? null,
        before: ticket,
        after: reopened,
        only: ['status', 'close_reason'],
      });
      await w.publish({
        kind: 'dashboard',
        name: 'support.ticket_reopened',
        payload: { ticket_id: id, user_id: ticket.user_id },
      });
    });
    return this.get(id);
  }

  /** The ticket, locked; 404 when unknown, 422 `invalid_state` when closed (reopen it first). */
  async #lockOpen(trx: Db, id: string): Promise<TicketRow> {
    const ticket = await lockTicket(trx, id);
    if (ticket === undefined) throw notFound();
    if (ticket.status === 'closed') throw invalidState({ status: ticket.status });
    return ticket;
  }
}
