import { sql, type ExpressionBuilder, type Kysely } from 'kysely';
import type { Tables } from '../../db/tables.js';
import { readPage } from '../../kernel/pagination.js';
import type { NotificationView } from './schemas.js';
import './tables.js';

/** A notification as a user sees it: its fields and their read time (`n` joined to `r`). */
const NOTIFICATION_FIELDS = [
  'n.id',
  'n.kind',
  'n.title',
  'n.body',
  'n.action_url',
  'n.starts_at',
  'n.ends_at',
  'n.created_at',
  'r.read_at',
] as const;

type Db = Kysely<Tables>;

/**
 * What a user sees: notifications for everyone, and those they are a recipient of, within their
 * time window. The recipient row (if any) carries the read state; for an everyone-notification it
 * appears when the user first reads it.
 */
function visibleTo(db: Db, userId: string, now: Date) {
  return db
    .selectFrom('notifications as n')
    .leftJoin('notification_recipients as r', (join) =>
      join.onRef('r.notification_id', '=', 'n.id').on('r.user_id', '=', userId),
    )
    .where((eb) =>
      eb.and([
        eb.or([eb('n.audience', '=', 'everyone'), eb('r.user_id', 'is not', null)]),
        eb.or([eb('n.starts_at', 'is', null), eb('n.starts_at', '<=', now)]),
        eb.or([eb('n.ends_at', 'is', null), eb('n.ends_at', '>', now)]),
      ]),
    );
}

/** One page of what the user sees, newest first, and how many that is in all. */
export async function listVisible(
  db: Db,
  userId: string,
  now: Date,
  page: { page: number; per_page: number; unreadOnly: boolean },
): Promise<{ rows: NotificationView[]; total: number }> {
  let shown = visibleTo(db, userId, now);
  if (page.unreadOnly) shown = shown.where('r.read_at', 'is', null);
  const { rows, total } = await readPage(shown, page, (matching) =>
    matching.select(NOTIFICATION_FIELDS).orderBy('n.created_at', 'desc').orderBy('n.id', 'desc'),
  );
  const views = rows.map((row) => ({
    ...row,
    read_at: row.read_at ?? null,
    read: row.read_at !== null && row.read_at !== undefined,
  }));
  return { rows: views, total };
}

export async function unreadCount(db: Db, userId: string, now: Date): Promise<number> {
  const row = await visibleTo(db, userId, now)
    .where('r.read_at', 'is', null)
    .select(sql<number>`count(*)::int`.as('n'))
    .executeTakeFirstOrThrow();
  return row.n;
}

function readUpsert(db: Db) {
  return db.insertInto('notification_recipients').columns(['notification_id', 'user_id', 'read_at']);
}

const keepFirstRead = (eb: ExpressionBuilder<Tables, 'notification_recipients'>) => ({
  read_at: eb.fn.coalesce('notification_recipients.read_at', sql<Date>`excluded.read_at`),
});

/** Marks one notification the user sees as read (an earlier read time stays); false when the user does not see it. */
export async function markOneRead(db: Db, userId: string, now: Date, id: string): Promise<boolean> {
  const seen = await visibleTo(db, userId, now).where('n.id', '=', id).select('n.id').executeTakeFirst();
  if (seen === undefined) return false;
  await db
    .insertInto('notification_recipients')
    .values({ notification_id: id, user_id: userId, read_at: now })
    .onConflict((oc) => oc.columns(['user_id', 'notification_id']).doUpdateSet(keepFirstRead))
    .execute();
  return true;
}

/** Marks every unread notification the user sees as read, in one statement; answers how many. */
export async function markAllRead(db: Db, userId: string, now: Date): Promise<number> {
  const unread = visibleTo(db, userId, now)
    .where('r.read_at', 'is', null)
    .select(['n.id', sql<string>`${userId}::uuid`.as('user_id'), sql<Date>`${now}::timestamptz`.as('read_at')]);
  const result = await readUpsert(db)
    .expression(unread)
    .onConflict((oc) => oc.columns(['user_id', 'notification_id']).doUpdateSet(keepFirstRead))
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0);
}

/** A user the broadcast's notification reaches, and that notification as their list shows it. */
export interface DeliveredNotification {
  userId: string;
  notification: NotificationView;
}

/**
 * The broadcast's notification for each of these users who sees it now (the same rule as the
 * player's list: for everyone or a recipient, inside its time window), in one query: realtime
 * delivers it to their sockets.
 */
export async function broadcastNotificationOf(
  db: Db,
  broadcastId: string,
  userIds: readonly string[],
  now: Date,
): Promise<DeliveredNotification[]> {
  const rows = await db
    .selectFrom('notifications as n')
    .innerJoin('user_directory as u', (join) => join.on('u.id', 'in', userIds))
    .leftJoin('notification_recipients as r', (join) =>
      join.onRef('r.notification_id', '=', 'n.id').onRef('r.user_id', '=', 'u.id'),
    )
    .where('n.broadcast_id', '=', broadcastId)
    .where((eb) =>
      eb.and([
        eb.or([eb('n.audience', '=', 'everyone'), eb('r.user_id', 'is not', null)]),
        eb.or([eb('n.starts_at', 'is', null), eb('n.starts_at', '<=', now)]),
        eb.or([eb('n.ends_at', 'is', null), eb('n.ends_at', '>', now)]),
      ]),
    )
    .select(['u.id as user_id', ...NOTIFICATION_FIELDS])
    .execute();
  return rows.map(({ user_id, read_at, ...fields }) => ({
    userId: user_id,
    notification: { ...fields, read_at: read_at ?? null, read: read_at !== null && read_at !== undefined },
  }));
}
