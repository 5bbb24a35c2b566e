import { sql, type InferResult, type Kysely, type Selectable } from 'kysely';
import type { Tables } from '../../db/tables.js';
import { likePattern, type PageRequest, readPage } from '../../kernel/pagination.js';
import type { MyTicketSummary, StaffTicketSummary, StaffTicketsQuery } from './schemas.js';
import type {
  MessageAuthor,
  SupportCategory,
  SupportMessagesTable,
  SupportTicketsTable,
  TicketStatus,
} from './tables.js';
import './tables.js';

type Db = Kysely<Tables>;
export type TicketRow = Selectable<SupportTicketsTable>;
type MessageRow = Selectable<SupportMessagesTable>;

export interface MessageView {
  id: string;
  author: MessageAuthor;
  author_id: string | null;
  message: string;
  attachment_keys: string[];
  created_at: Date;
}

const SUMMARY_COLUMNS = ['t.id', 't.subject', 't.category', 't.status', 't.created_at', 't.updated_at'] as const;
/** What a message's view reads: every column but its ticket. */
const MESSAGE_COLUMNS = ['id', 'author', 'author_id', 'body', 'attachment_keys', 'created_at'] as const;

function messageView(row: Pick<MessageRow, (typeof MESSAGE_COLUMNS)[number]>): MessageView {
  return {
    id: row.id,
    author: row.author,
    author_id: row.author_id,
    message: row.body,
    attachment_keys: row.attachment_keys as string[],
    created_at: row.created_at,
  };
}

export function insertTicket(
  trx: Db,
  values: { user_id: string; subject: string; category: SupportCategory },
): Promise<TicketRow> {
  return trx.insertInto('support_tickets').values(values).returningAll().executeTakeFirstOrThrow();
}

export async function insertMessage(
  trx: Db,
  values: { ticket_id: string; author: MessageAuthor; author_id: string; body: string; attachment_keys?: string[] },
): Promise<MessageView> {
  const row = await trx
    .insertInto('support_messages')
    .values({ ...values, attachment_keys: JSON.stringify(values.attachment_keys ?? []) })
    .returningAll()
    .executeTakeFirstOrThrow();
  return messageView(row);
}

/**
 * The ticket, locked until commit so two writes to one ticket (a reply and a close) run one
 * after the other. With `ownerId`, only that user's ticket: another's is as absent as an unknown id.
 */
export function lockTicket(trx: Db, id: string, ownerId?: string): Promise<TicketRow | undefined> {
  let query = trx.selectFrom('support_tickets').selectAll().where('id', '=', id);
  if (ownerId !== undefined) query = query.where('user_id', '=', ownerId);
  return query.forUpdate().executeTakeFirst();
}

/** Moves the ticket to `status` and marks the activity; closing fields are set or cleared with it. */
export function updateTicket(
  trx: Db,
  id: string,
  changes: { status: TicketStatus; closed_by?: string | null; close_reason?: string | null },
): Promise<TicketRow> {
  const closed = changes.status === 'closed';
  return trx
    .updateTable('support_tickets')
    .set({
      status: changes.status,
      updated_at: sql<Date>`now()`,
      closed_at: closed ? sql<Date>`now()` : null,
      closed_by: closed ? (changes.closed_by ?? null) : null,
      close_reason: closed ? (changes.close_reason ?? null) : null,
    })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function messagesOf(db: Db, ticketId: string): Promise<MessageView[]> {
  const rows = await db
    .selectFrom('support_messages')
    .select(MESSAGE_COLUMNS)
    .where('ticket_id', '=', ticketId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map(messageView);
}

export async function userEmail(db: Db, userId: string): Promise<string | null> {
  const row = await db.selectFrom('user_directory').select('email').where('id', '=', userId).executeTakeFirst();
  return row?.email ?? null;
}

export function findMyTicket(db: Db, userId: string, id: string): Promise<MyTicketSummary | undefined> {
  return db
    .selectFrom('support_tickets as t')
    .select(SUMMARY_COLUMNS)
    .where('t.id', '=', id)
    .where('t.user_id', '=', userId)
    .executeTakeFirst();
}

/** The caller's tickets, newest first, and how many they have (the (user_id, created_at) index serves both). */
export function listMyTickets(db: Db, userId: string, page: PageRequest) {
  return readPage(db.selectFrom('support_tickets as t').where('t.user_id', '=', userId), page, (mine) =>
    mine.select(SUMMARY_COLUMNS).orderBy('t.created_at', 'desc').orderBy('t.id', 'desc'),
  );
}

function staffTickets(db: Db) {
  return db.selectFrom('support_tickets as t').innerJoin('user_directory as u', 'u.id', 't.user_id');
}

function withStaffColumns(query: ReturnType<typeof staffTickets>) {
  return query.select([
    ...SUMMARY_COLUMNS,
    't.closed_at',
    't.closed_by',
    't.close_reason',
    'u.id as user_id',
    'u.email as user_email',
    'u.display_name as user_display_name',
    (eb) =>
      eb
        .selectFrom('support_messages as m')
        .select(sql<number>`count(*)::int`.as('n'))
        .whereRef('m.ticket_id', '=', 't.id')
        .as('message_count'),
  ]);
}

type StaffSummaryRow = InferResult<ReturnType<typeof withStaffColumns>>[number];

function staffSummary({
  user_id,
  user_email,
  user_display_name,
  message_count,
  ...ticket
}: StaffSummaryRow): StaffTicketSummary {
  const user = { id: user_id, email: user_email, display_name: user_display_name };
  return { ...ticket, user, message_count: message_count ?? 0 };
}

export async function listStaffTickets(
  db: Db,
  query: StaffTicketsQuery,
): Promise<{ rows: StaffTicketSummary[]; total: number }> {
  let filtered = staffTickets(db);
  if (query.status !== undefined) filtered = filtered.where('t.status', '=', query.status);
  if (query.category !== undefined) filtered = filtered.where('t.category', '=', query.category);
  if (query.user_id !== undefined) filtered = filtered.where('t.user_id', '=', query.user_id);
  if (query.q !== undefined) {
    const pattern = likePattern(query.q);
    filtered = filtered.where((eb) => eb.or([eb('t.subject', 'ilike', pattern), eb('u.email', 'ilike', pattern)]));
  }
  const { rows, total } = await readPage(filtered, query, (matching) =>
    withStaffColumns(matching)
      .orderBy(`t.${query.sort.field}`, query.sort.direction)
      .orderBy('t.id', query.sort.direction),
  );
  return { rows: rows.map(staffSummary), total };
}

export async function findStaffTicket(db: Db, id: string): Promise<StaffTicketSummary | undefined> {
  const [row] = await withStaffColumns(staffTickets(db).where('t.id', '=', id)).execute();
  return row && staffSummary(row);
}
