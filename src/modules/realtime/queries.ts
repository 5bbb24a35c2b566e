import type { Kysely } from 'kysely';
import type { Tables, UserStatus } from '../../db/tables.js';
import type { NotificationView } from '../notifications/index.js';

type Db = Kysely<Tables>;

/** Large enough to be one query for most instances, small enough to stay far from the bind-parameter cap. */
const IDS_PER_QUERY = 1_000;

export interface AccountStanding {
  status: UserStatus;
  /** "Sign out everywhere" instant: tickets issued before it no longer admit. */
  tokensValidAfter: Date | null;
}

function chunks<T>(items: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += IDS_PER_QUERY) out.push(items.slice(i, i + IDS_PER_QUERY));
  return out;
}

/** Status of each of these users (a missing user is absent from the map). */
export async function accountStandings(db: Db, userIds: readonly string[]): Promise<Map<string, AccountStanding>> {
  const standings = new Map<string, AccountStanding>();
  for (const ids of chunks(userIds)) {
    const rows = await db
      .selectFrom('users')
      .select(['id', 'status', 'tokens_valid_after'])
      .where('id', 'in', ids)
      .execute();
    for (const row of rows) standings.set(row.id, { status: row.status, tokensValidAfter: row.tokens_valid_after });
  }
  return standings;
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
