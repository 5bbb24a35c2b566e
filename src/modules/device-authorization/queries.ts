import { sql, type Kysely, type Selectable, type Updateable } from 'kysely';
import type { Tables } from '../../db/tables.js';
import type { DeviceAuthorizationsTable } from './tables.js';
import './tables.js';

export type DeviceAuthorizationRow = Selectable<DeviceAuthorizationsTable>;
export type DeviceAuthorizationPatch = Updateable<DeviceAuthorizationsTable>;
export type NewDeviceAuthorization = Pick<
  DeviceAuthorizationRow,
  | 'client_id'
  | 'scope'
  | 'device_code_hash'
  | 'user_code'
  | 'requester_ip'
  | 'requester_user_agent'
  | 'created_at'
  | 'expires_at'
  | 'interval_seconds'
>;

/** Inserts unless the user code (or hash) is taken; answers whether it went in. */
export async function insertDeviceAuthorization(db: Kysely<Tables>, row: NewDeviceAuthorization): Promise<boolean> {
  const inserted = await db
    .insertInto('device_authorizations')
    .values(row)
    .onConflict((oc) => oc.doNothing())
    .returning('id')
    .executeTakeFirst();
  return inserted !== undefined;
}

/** The row, locked for this transaction: two polls at once must not both redeem one code. */
export function lockByColumn(
  trx: Kysely<Tables>,
  column: 'device_code_hash' | 'refresh_token_hash' | 'user_code',
  value: string,
): Promise<DeviceAuthorizationRow | undefined> {
  return trx.selectFrom('device_authorizations').selectAll().where(column, '=', value).forUpdate().executeTakeFirst();
}

export async function updateDeviceAuthorization(
  trx: Kysely<Tables>,
  id: string,
  patch: DeviceAuthorizationPatch,
): Promise<void> {
  await trx.updateTable('device_authorizations').set(patch).where('id', '=', id).execute();
}

export interface HolderStanding {
  email: string | null;
  active: boolean;
  tokens_valid_after: Date | null;
  session_revoked: boolean;
}

/**
 * Whether the approving user may still get tokens: account state, "sign out everywhere", this session ended elsewhere.
 */
export async function holderStanding(
  trx: Kysely<Tables>,
  userId: string,
  sessionId: string | null,
): Promise<HolderStanding | undefined> {
  const { rows } = await sql<HolderStanding>`
    SELECT u.email, u.status = 'active' AS active, u.tokens_valid_after,
           (${sessionId}::text IS NOT NULL AND EXISTS (
             SELECT 1 FROM session_revocations rs WHERE rs.user_id = u.id AND rs.session_id = ${sessionId}::text
           )) AS session_revoked
      FROM user_directory u WHERE u.id = ${userId}`.execute(trx);
  return rows[0];
}

/** What the list of a player's approved devices shows of each. */
export type ApprovedDeviceRow = Pick<
  DeviceAuthorizationRow,
  'id' | 'client_id' | 'scope' | 'requester_ip' | 'decided_at' | 'redeemed_at' | 'last_used_at' | 'last_used_ip'
>;

/**
 * The caller's approved devices still in force: not revoked, session not ended elsewhere, and
 * either signed in or still able to collect their tokens.
 */
export function listApprovedDevices(db: Kysely<Tables>, userId: string, now: Date): Promise<ApprovedDeviceRow[]> {
  return db
    .selectFrom('device_authorizations as d')
    .select([
      'd.id',
      'd.client_id',
      'd.scope',
      'd.requester_ip',
      'd.decided_at',
      'd.redeemed_at',
      'd.last_used_at',
      'd.last_used_ip',
    ])
    .where('d.user_id', '=', userId)
    .where('d.status', '=', 'approved')
    .where('d.revoked_at', 'is', null)
    .where((eb) => eb.or([eb('d.redeemed_at', 'is not', null), eb('d.expires_at', '>', now)]))
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('session_revocations as rs')
            .select(sql.lit(1).as('one'))
            .whereRef('rs.user_id', '=', 'd.user_id')
            .whereRef('rs.session_id', '=', 'd.session_id'),
        ),
      ),
    )
    .orderBy('d.decided_at', 'desc')
    .execute();
}

/** One of the caller's approved, unrevoked devices, locked; undefined for anyone else's id. */
export function lockApprovedDevice(
  trx: Kysely<Tables>,
  userId: string,
  id: string,
): Promise<DeviceAuthorizationRow | undefined> {
  return trx
    .selectFrom('device_authorizations')
    .selectAll()
    .where('id', '=', id)
    .where('user_id', '=', userId)
    .where('status', '=', 'approved')
    .where('revoked_at', 'is', null)
    .forUpdate()
    .executeTakeFirst();
}

/** Deletes codes never redeemed that expired before `expiredBefore`; answers how many. */
export async function deleteUnredeemedCodes(trx: Kysely<Tables>, expiredBefore: Date): Promise<number> {
  const expired = await trx
    .deleteFrom('device_authorizations')
    .where('redeemed_at', 'is', null)
    .where('expires_at', '<', expiredBefore)
    .executeTakeFirst();
  return Number(expired.numDeletedRows);
}

/** Deletes devices revoked before `revokedBefore`; answers how many. */
export async function deleteRevokedDevices(trx: Kysely<Tables>, revokedBefore: Date): Promise<number> {
  const revoked = await trx
    .deleteFrom('device_authorizations')
    .where('revoked_at', '<', revokedBefore)
    .executeTakeFirst();
  return Number(revoked.numDeletedRows);
}
