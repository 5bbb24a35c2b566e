import type { Kysely } from 'kysely';
import type { Tables } from '../../db/tables.js';
import { alertRoleKeysOfUsers } from '../operations/alert-subscriptions/index.js';
import { broadcastNotificationOf, type DeliveredNotification } from '../notifications/index.js';
import { queryUserAccess, type UserAccess } from '../users/index.js';

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

/**
 * The broadcast's notification for each of these users who sees it now (notifications' rule, the
 * player's list's), in one query per chunk.
 */
export async function broadcastNotificationsFor(
  db: Db,
  broadcastId: string,
  userIds: readonly string[],
  now: Date,
): Promise<DeliveredNotification[]> {
  const delivered: DeliveredNotification[] = [];
  for (const ids of chunks(userIds)) delivered.push(...(await broadcastNotificationOf(db, broadcastId, ids, now)));
  return delivered;
}
