import { sql, type Kysely, type Selectable } from 'kysely';
import type { Tables } from '../../../db/tables.js';
import { likePattern, readPage } from '../../../kernel/pagination.js';
import type { EmailMessagesTable } from '../tables.js';
import type { LiteralContent, NewEmail, TemplatedContent } from './new-email.js';
import type { ListOutboxQuery } from './schemas.js';

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
  return readPage(filtered, query, (matching) =>
    matching
      .select(ROW_COLUMNS)
      .orderBy(`m.${query.sort.field}`, query.sort.direction)
      .orderBy('m.id', query.sort.direction),
  );
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

const isTemplated = (email: NewEmail): email is NewEmail & TemplatedContent => 'template_id' in email;

/**
 * Inserts the messages under these ids (one each, in order) in one statement: arrays unnested
 * server-side, so 50,000 rows are one round trip and no parameter limit applies. `now` is the
 * send time of messages that name none.
 */
export async function insertMessages(trx: Db, ids: string[], emails: readonly NewEmail[], now: Date): Promise<void> {
  const column = <T>(pick: (email: NewEmail) => T) => emails.map(pick);
  const templated = (pick: (email: TemplatedContent) => unknown) => column((e) => (isTemplated(e) ? pick(e) : null));
  const literal = (pick: (email: LiteralContent) => string) => column((e) => (isTemplated(e) ? null : pick(e)));
  await sql`
    INSERT INTO email_messages (id, to_email, category, user_id, template_id, template_version, vars, subject, html,
      text,
                                campaign_id, broadcast_id, held, next_attempt_at)
    SELECT id, to_email, category, user_id, template_id, template_version, vars::jsonb, subject, html, text,
           campaign_id, broadcast_id, held, next_attempt_at
    FROM unnest(
      ${ids}::uuid[], ${column((e) => e.to_email)}::text[], ${column((e) => e.category)}::text[],
        ${column((e) => e.user_id ?? null)}::uuid[],
      ${templated((e) => e.template_id)}::uuid[], ${templated((e) => e.template_version)}::integer[],
      ${column((e) => JSON.stringify(isTemplated(e) ? (e.vars ?? {}) : {}))}::text[],
      ${literal((e) => e.subject)}::text[], ${literal((e) => e.html)}::text[], ${literal((e) => e.text)}::text[],
      ${column((e) => e.campaign_id ?? null)}::uuid[], ${column((e) => e.broadcast_id ?? null)}::uuid[],
      ${column((e) => e.held ?? false)}::boolean[],
        ${column((e) => (e.next_attempt_at ?? now).toISOString())}::timestamptz[]
    ) AS m(id, to_email, category, user_id, template_id, template_version, vars, subject, html, text, campaign_id,
      broadcast_id, held, next_attempt_at)
  `.execute(trx);
}

/**
 * The messages waiting to be sent (queued, not held by a paused campaign): due now, or deferred to
 * a later attempt. Read at every scrape (metrics): one count over the dispatcher's own partial
 * index (the predicate written as the index's, so the planner uses it), the queue and no history.
 */
export async function outboxDepth(db: Db, now: Date): Promise<{ due: number; deferred: number }> {
  return db
    .selectFrom('email_messages')
    .select([
      sql<number>`count(*) FILTER (WHERE next_attempt_at <= ${now})::int`.as('due'),
      sql<number>`count(*) FILTER (WHERE next_attempt_at > ${now})::int`.as('deferred'),
    ])
    .where(sql<boolean>`status = 'queued' AND NOT held`)
    .executeTakeFirstOrThrow();
}

/** How many of these broadcasts' messages are in each status (a broadcast's history). */
export function mailCountsOfBroadcasts(db: Db, broadcastIds: string[]) {
  return db
    .selectFrom('email_messages')
    .select(['broadcast_id', 'status', sql<number>`count(*)::int`.as('n')])
    .where('broadcast_id', 'in', broadcastIds)
    .groupBy(['broadcast_id', 'status'])
    .execute();
}
