import { sql, type Kysely } from 'kysely';
import type { Tables } from '../../../db/tables.js';
import './tables.js';

type Db = Kysely<Tables>;

export async function roleExists(db: Db, roleId: string): Promise<boolean> {
  return (await db.selectFrom('role_directory').select('id').where('id', '=', roleId).executeTakeFirst()) !== undefined;
}

export async function roleKey(db: Db, roleId: string): Promise<string | undefined> {
  return (await db.selectFrom('role_directory').select('key').where('id', '=', roleId).executeTakeFirst())?.key;
}

export async function subscriptionsOf(db: Db, roleId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('role_alert_subscriptions')
    .select('alert')
    .where('role_id', '=', roleId)
    .orderBy('alert')
    .execute();
  return rows.map((row) => row.alert);
}

export async function replaceSubscriptions(trx: Db, roleId: string, alerts: readonly string[]): Promise<void> {
  await trx.deleteFrom('role_alert_subscriptions').where('role_id', '=', roleId).execute();
  if (alerts.length > 0)
    await trx
      .insertInto('role_alert_subscriptions')
      .values(alerts.map((alert) => ({ role_id: roleId, alert })))
      .execute();
}

/** Keys of the user's current roles (unexpired grants) that hear at least one alert. */
export async function alertRoleKeysOf(db: Db, userId: string, now: Date): Promise<string[]> {
  return (await alertRoleKeysOfUsers(db, [userId], now)).get(userId) ?? [];
}

/** `alertRoleKeysOf` for many users at once: each user's keys, sorted (a user with none is absent). */
export async function alertRoleKeysOfUsers(
  db: Db,
  userIds: readonly string[],
  now: Date,
): Promise<Map<string, string[]>> {
  const keys = new Map<string, string[]>();
  if (userIds.length === 0) return keys;
  const rows = await db
    .selectFrom('role_grants as ur')
    .innerJoin('role_directory as r', 'r.id', 'ur.role_id')
    .select(['ur.user_id', 'r.key'])
    .where('ur.user_id', 'in', userIds)
    .where((eb) => eb.or([eb('ur.expires_at', 'is', null), eb('ur.expires_at', '>', now)]))
    .where((eb) =>
      eb.exists(
        eb.selectFrom('role_alert_subscriptions as s').select(sql.lit(1).as('one')).whereRef('s.role_id', '=', 'r.id'),
      ),
    )
    .orderBy('r.key')
    .execute();
  for (const row of rows) keys.set(row.user_id, [...(keys.get(row.user_id) ?? []), row.key]);
  return keys;
}

/** Keys of the roles subscribed to an alert. */
export async function roleKeysSubscribedTo(db: Db, alert: string): Promise<string[]> {
  const rows = await db
    .selectFrom('role_alert_subscriptions as s')
    .innerJoin('role_directory as r', 'r.id', 's.role_id')
    .select('r.key')
    .where('s.alert', '=', alert)
    .execute();
  return rows.map((row) => row.key);
}
