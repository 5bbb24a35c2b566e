import type { Kysely, Selectable } from 'kysely';
import type { Tables } from '../../../db/tables.js';
import { countRows, likePattern, offsetOf } from '../../../kernel/pagination.js';
import type { EmailMessagesTable } from '../tables.js';
import type { ListOutboxQuery } from './schemas.js';
import '../tables.js';

type Db = Kysely<Tables>;
export type MessageRow = Selectable<EmailMessagesTable>;

/** A message row with what its list view adds: the template's key and the version's subject. */
export type OutboxRow = MessageRow & { template_key: string | null; version_subject: string | null };

function withTemplate(db: Db) {
  return db
    .selectFrom('email_messages as m')
    .leftJoin('email_templates as t', 't.id', 'm.template_id')
    .leftJoin('email_template_versions as v', (join) =>
      join.onRef('v.template_id', '=', 'm.template_id').onRef('v.version', '=', 'm.template_version'),
    );
}

const ROW_COLUMNS = [
  'm.id',
  'm.to_email',
  'm.user_id',
  'm.category',
  'm.template_id',
  'm.template_version',
  'm.vars',
  'm.subject',
  'm.html',
  'm.text',
  'm.campaign_id',
  'm.broadcast_id',
  'm.status',
  'm.held',
  'm.attempts',
  'm.next_attempt_at',
  'm.lease_until',
  'm.last_error',
  'm.transport',
  'm.transport_message_id',
  'm.created_at',
  'm.sent_at',
  't.key as template_key',
  'v.subject as version_subject',
] as const;

export async function listOutbox(db: Db, query: ListOutboxQuery): Promise<{ rows: OutboxRow[]; total: number }> {
  // The joins add one row at most (template by id, version by its key), so they never change the count.
  let filtered = withTemplate(db);
  if (query.status !== undefined) filtered = filtered.where('m.status', '=', query.status);
  if (query.category !== undefined) filtered = filtered.where('m.category', '=', query.category);
  if (query.campaign_id !== undefined) filtered = filtered.where('m.campaign_id', '=', query.campaign_id);
  if (query.broadcast_id !== undefined) filtered = filtered.where('m.broadcast_id', '=', query.broadcast_id);
  if (query.user_id !== undefined) filtered = filtered.where('m.user_id', '=', query.user_id);
  if (query.q !== undefined) filtered = filtered.where('m.to_email', 'ilike', likePattern(query.q));
  if (query.created_from !== undefined) filtered = filtered.where('m.created_at', '>=', new Date(query.created_from));
  if (query.created_to !== undefined) filtered = filtered.where('m.created_at', '<', new Date(query.created_to));
  const [rows, total] = await Promise.all([
    filtered
      .select(ROW_COLUMNS)
      .orderBy(`m.${query.sort.field}`, query.sort.direction)
      .orderBy('m.id', query.sort.direction)
      .limit(query.per_page)
      .offset(offsetOf(query))
      .execute(),
    countRows(filtered),
  ]);
  return { rows, total };
}

export function outboxMessage(db: Db, id: string): Promise<OutboxRow | undefined> {
  return withTemplate(db).select(ROW_COLUMNS).where('m.id', '=', id).executeTakeFirst();
}

export function templateVersion(db: Db, templateId: string, version: number) {
  return db
    .selectFrom('email_template_versions')
    .select(['subject', 'html', 'text'])
    .where('template_id', '=', templateId)
    .where('version', '=', version)
    .executeTakeFirst();
}

export function lockMessage(trx: Db, id: string): Promise<MessageRow | undefined> {
  return trx.selectFrom('email_messages').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
}

/** A failed message due again now, with a fresh count of attempts. */
export function requeueMessage(trx: Db, id: string, now: Date) {
  return trx
    .updateTable('email_messages')
    .set({ status: 'queued', attempts: 0, next_attempt_at: now, last_error: null, lease_until: null })
    .where('id', '=', id)
    .where('status', '=', 'failed')
    .executeTakeFirstOrThrow();
}
