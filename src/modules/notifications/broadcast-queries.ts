import { sql, type Insertable, type Kysely } from 'kysely';
import type { Tables } from '../../db/tables.js';
import { readPage } from '../../kernel/pagination.js';
import { queueSelectedEmails } from '../email/delivery/index.js';
import { type EmailCategory, isSuppressed } from '../email/index.js';
import { type UserSegment, usersInSegment } from '../users/index.js';
import type { ListBroadcastsQuery } from './schemas.js';
import type { NotificationBroadcastsTable, NotificationsTable } from './tables.js';

/** The statements of broadcasts (broadcast.ts) and of their history (service.ts). */

type Db = Kysely<Tables>;

/** The broadcast this staff member sent under this Idempotency-Key; undefined: none. */
export function broadcastByRequestKey(db: Db, createdBy: string, idempotencyKey: string) {
  return db
    .selectFrom('notification_broadcasts')
    .select(['recipients', 'notifications_created', 'emails_queued', 'request_fingerprint'])
    .where('created_by', '=', createdBy)
    .where('idempotency_key', '=', idempotencyKey)
    .executeTakeFirst();
}

/** Active-by-default users the segment matches, counted no further than `cap` + 1. */
export async function countSegmentUpTo(trx: Db, segment: UserSegment, cap: number): Promise<number> {
  const matched = usersInSegment(trx, segment, { defaultStatus: 'active' })
    .select('users.id')
    .limit(cap + 1);
  const row = await trx
    .selectFrom(matched.as('m'))
    .select(sql<number>`count(*)::int`.as('n'))
    .executeTakeFirstOrThrow();
  return row.n;
}

export function insertBroadcast(trx: Db, broadcast: Insertable<NotificationBroadcastsTable>): Promise<{ id: string }> {
  return trx.insertInto('notification_broadcasts').values(broadcast).returning('id').executeTakeFirstOrThrow();
}

export async function setBroadcastCounts(
  trx: Db,
  broadcastId: string,
  counts: { notificationsCreated: number | null; emailsQueued: number | null },
): Promise<void> {
  await trx
    .updateTable('notification_broadcasts')
    .set({ notifications_created: counts.notificationsCreated, emails_queued: counts.emailsQueued })
    .where('id', '=', broadcastId)
    .execute();
}

export function insertNotification(trx: Db, notification: Insertable<NotificationsTable>): Promise<{ id: string }> {
  return trx.insertInto('notifications').values(notification).returning('id').executeTakeFirstOrThrow();
}

/** One recipient row per user the segment matches (active by default), in one statement; answers how many. */
export async function insertSegmentRecipients(trx: Db, notificationId: string, segment: UserSegment): Promise<number> {
  const inserted = await trx
    .insertInto('notification_recipients')
    .columns(['notification_id', 'user_id'])
    .expression(
      usersInSegment(trx, segment, { defaultStatus: 'active' }).select([
        sql<string>`${notificationId}::uuid`.as('notification_id'),
        'users.id as user_id',
      ]),
    )
    .executeTakeFirst();
  return Number(inserted.numInsertedOrUpdatedRows ?? 0);
}

export interface SegmentMail {
  broadcastId: string;
  segment: UserSegment;
  template: { id: string; category: EmailCategory; version: number };
  vars: Record<string, unknown>;
}

/**
 * Queues one message per user the segment matches (active by default) with an address, in one
 * statement, skipping suppressed addresses for marketing mail; answers how many.
 */
export async function queueSegmentMail(trx: Db, { broadcastId, segment, template, vars }: SegmentMail) {
  let recipients = usersInSegment(trx, segment, { defaultStatus: 'active' }).where('users.email', 'is not', null);
  if (template.category === 'marketing') {
    recipients = recipients.where((eb) => eb.not(isSuppressed(sql<string>`lower(users.email)`)));
  }
  return queueSelectedEmails(
    trx,
    recipients.select([
      sql<string>`users.email`.as('to_email'),
      'users.id as user_id',
      sql<string>`${template.category}`.as('category'),
      sql<string>`${template.id}::uuid`.as('template_id'),
      sql<number>`${template.version}::int`.as('template_version'),
      sql<string>`jsonb_build_object('display_name', coalesce(users.display_name, '')) ||
        ${JSON.stringify(vars)}::jsonb`.as('vars'),
      sql<string>`${broadcastId}::uuid`.as('broadcast_id'),
    ]),
  );
}

// History (service.ts).

/** A page of broadcast ids, in the query's order, and how many broadcasts there are. */
export async function broadcastIdPage(db: Db, query: ListBroadcastsQuery) {
  const { rows, total } = await readPage(db.selectFrom('notification_broadcasts'), query, (broadcasts) =>
    broadcasts.select('id').orderBy('created_at', query.sort.direction).orderBy('id', query.sort.direction),
  );
  return { ids: rows.map((row) => row.id), total };
}

/** What the history shows of these broadcasts. */
export function broadcastsByIds(db: Db, ids: string[]) {
  return db
    .selectFrom('notification_broadcasts')
    .select([
      'id',
      'segment',
      'recipients',
      'email_template_id',
      'email_template_version',
      'emails_queued',
      'created_by',
      'created_at',
    ])
    .where('id', 'in', ids)
    .execute();
}

/** The notifications of these broadcasts, each with how many of its recipients read it. */
export function notificationsOfBroadcasts(db: Db, broadcastIds: string[]) {
  return db
    .selectFrom('notifications as n')
    .select([
      'n.id',
      'n.broadcast_id',
      'n.audience',
      'n.kind',
      'n.title',
      'n.body',
      'n.action_url',
      'n.starts_at',
      'n.ends_at',
      'n.created_at',
      (eb) =>
        eb
          .selectFrom('notification_recipients as r')
          .select(sql<number>`count(*)::int`.as('c'))
          .whereRef('r.notification_id', '=', 'n.id')
          .where('r.read_at', 'is not', null)
          .as('read_count'),
    ])
    .where('n.broadcast_id', 'in', broadcastIds)
    .execute();
}
