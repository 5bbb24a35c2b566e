import type { Kysely } from 'kysely';
import type { Tables } from '../../db/tables.js';
import { queryUserAccess, type UserAccess } from '../../kernel/principal.js';
import { alertRoleKeysOfUsers } from '../operations/alert-subscriptions/index.js';
import type { NotificationView } from '../notifications/index.js';

type Db = Kysely<Tables>;

/** Large enough to be one query for most instances, small enough to stay far from the bind-parameter cap. */
const IDS_PER_QUERY = 1_000;

function chunks<T>(items: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += IDS_PER_QUERY) out.push(items.slice(i, i + IDS_PER_QUERY));
  return out;
}

/** What an open socket of the user may stay in: the account's state, its permissions and its roles' alerts. */
export interface SocketAccess extends UserAccess {
  /** Keys of the user's current roles that hear alerts (their `alerts:<key>` channels). */
  alertRoleKeys: readonly string[];
}

/**
 * The access of each of these users (a missing user is absent from the map): two statements per
 * thousand users, so a role edit re-checks every socket of an instance in a few round trips.
 */
export async function socketAccess(db: Db, userIds: readonly string[], now: Date): Promise<Map<string, SocketAccess>> {
  const access = new Map<string, SocketAccess>();
  for (const ids of chunks(userIds)) {
    const [users, alertKeys] = await Promise.all([queryUserAccess(db, ids), alertRoleKeysOfUsers(db, ids, now)]);
    for (const [id, user] of users) access.set(id, { ...user, alertRoleKeys: alertKeys.get(id) ?? [] });
  }
  return access;
}

export interface DeliveredNotification {
  userId: string;
  notification: NotificationView;
}

/**
 * The broadcast's notification for each of these users who sees it now (the same rule as the
 * player's list: for everyone or a recipient, inside its time window), in one query per chunk.
 */
export async function broadcastNotificationsFor(
  db: Db,
  broadcastId: string,
  userIds: readonly string[],
  now: Date,
): Promise<DeliveredNotification[]> {
  const delivered: DeliveredNotification[] = [];
  for (const ids of chunks(userIds)) {
    const rows = await db
      .selectFrom('notifications as n')
      .innerJoin('users as u', (join) => join.on('u.id', 'in', ids))
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
      .select([
        'u.id as user_id',
        'n.id',
        'n.kind',
        'n.title',
        'n.body',
        'n.action_url',
        'n.starts_at',
        'n.ends_at',
        'n.created_at',
        'r.read_at',
      ])
      .execute();
    for (const { user_id, read_at, ...fields } of rows) {
      delivered.push({
        userId: user_id,
        notification: { ...fields, read_at: read_at ?? null, read: read_at !== null && read_at !== undefined },
      });
    }
  }
  return delivered;
}
