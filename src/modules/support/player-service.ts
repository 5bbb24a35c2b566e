import type { Kysely } from 'kysely';
import type { Tables } from '../../db/tables.js';
import type { Actor } from '../../kernel/actor.js';
import { invalidState, notFound } from '../../kernel/errors.js';
import { paged } from '../../kernel/pagination.js';
import { queueEmails } from '../email/delivery/index.js';
import type { SupportAttachments } from '../files/index.js';
import type { Writes } from '../../kernel/write.js';
import { withAttachments } from './attachment-views.js';
import { confirmationMail } from './mail.js';
import {
  findMyTicket,
  insertMessage,
  insertTicket,
  listMyTickets,
  lockTicket,
  messagesOf,
  updateTicket,
  userEmail,
} from './queries.js';
import type { CreateTicketInput, MyTicketsQuery, MyTicketView, PlayerMessageInput } from './schemas.js';

type Db = Kysely<Tables>;

/** What the player sees of a message: never which staff member wrote it. */
const forPlayer = ({
  author_id: _author,
  ...message
}: { author_id: string | null } & MyTicketView['messages'][number]) => message;

/**
 * The player's own tickets. Every call is scoped by the token's subject: a ticket of another
 * user is answered exactly like an unknown id (404 `not_found`), and nothing is changed.
 */
export class MySupportService {
  constructor(
    private readonly db: Db,
    private readonly write: Writes,
    private readonly attachments: SupportAttachments,
  ) {}

  /**
   * The ticket with its first message, the confirmation mail (when the player has an address) and
   * the event: one transaction, after the attachments are checked (a refusal writes nothing).
   */
  async open(actor: Actor, input: CreateTicketInput): Promise<MyTicketView> {
    const attachments = await this.attachments.check(actor.userId, input.attachment_keys ?? []);
    const id = await this.write(async (w) => {
      const ticket = await insertTicket(w.trx, {
        user_id: actor.userId,
        subject: input.subject,
        category: input.category,
      });
      await this.attachments.claim(w.trx, actor.userId, attachments);
      await insertMessage(w.trx, {
        ticket_id: ticket.id,
        author: 'player',
        author_id: actor.userId,
        body: input.message,
        attachment_keys: input.attachment_keys,
      });
      const email = await userEmail(w.trx, actor.userId);
      if (email !== null) {
        await queueEmails(w.trx, [
          { ...confirmationMail(ticket), to_email: email, user_id: actor.userId, category: 'transactional' },
        ]);
      }
      await w.publish({
        kind: 'dashboard',
        name: 'support.ticket_opened',
        actorId: actor.userId,
        requestId: actor.requestId,
        payload: { ticket_id: ticket.id, user_id: actor.userId, category: ticket.category },
      });
      return ticket.id;
    });
    return this.get(actor.userId, id);
  }

  async list(userId: string, query: MyTicketsQuery) {
    const { rows, total } = await listMyTickets(this.db, userId, query);
    return paged(rows, query, total);
  }

  async get(userId: string, id: string): Promise<MyTicketView> {
    const ticket = await findMyTicket(this.db, userId, id);
    if (ticket === undefined) throw notFound();
    return {
      ...ticket,
      messages: (await withAttachments(this.attachments, await messagesOf(this.db, id))).map(forPlayer),
    };
  }

  /**
   * A follow-up from the player: the ticket waits on staff again ('answered' → 'open').
   * A closed ticket takes no more messages (422 `invalid_state`): the player opens a new one.
   */
  async addMessage(actor: Actor, id: string, input: PlayerMessageInput): Promise<MyTicketView> {
    // Whose ticket it is comes first: attachment refusals never tell about another user's ticket.
    if ((await findMyTicket(this.db, actor.userId, id)) === undefined) throw notFound();
    const attachments = await this.attachments.check(actor.userId, input.attachment_keys ?? []);
    await this.write(async (w) => {
      const ticket = await lockTicket(w.trx, id, actor.userId);
      if (ticket === undefined) throw notFound();
      if (ticket.status === 'closed') throw invalidState({ status: ticket.status });
      await this.attachments.claim(w.trx, actor.userId, attachments);
      const message = await insertMessage(w.trx, {
        ticket_id: id,
        author: 'player',
        author_id: actor.userId,
        body: input.message,
        attachment_keys: input.attachment_keys,
      });
      await updateTicket(w.trx, id, { status: 'open' });
      await w.publish({
        kind: 'dashboard',
        name: 'support.ticket_message_added',
        actorId: actor.userId,
        requestId: actor.requestId,
        payload: { ticket_id: id, user_id: actor.userId, message_id: message.id },
      });
    });
    return this.get(actor.userId, id);
  }
}
