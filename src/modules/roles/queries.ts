import { sql, type Kysely } from 'kysely';
import type { Tables } from '../../db/tables.js';
import { likePattern, readPage } from '../../kernel/pagination.js';
import type { ListRolesQuery, RoleView } from './schemas.js';

const activeGrant = sql<boolean>`(user_roles.expires_at IS NULL OR user_roles.expires_at > now())`;

function roleViews(db: Kysely<Tables>) {
  return db
    .selectFrom('roles')
    .select((eb) => [
      'roles.id',
      'roles.key',
      'roles.name',
      'roles.description',
      'roles.is_protected as protected',
      'roles.created_at',
      'roles.updated_at',
      eb.fn
        .coalesce(
          eb
            .selectFrom('role_permissions')
            .select(sql<string[]>`array_agg(permission_key ORDER BY permission_key)`.as('keys'))
            .whereRef('role_permissions.role_id', '=', 'roles.id'),
          sql<string[]>`'{}'::text[]`,
        )
        .as('permissions'),
      eb
        .selectFrom('user_roles')
        .select(sql<number>`count(*)::int`.as('n'))
        .whereRef('user_roles.role_id', '=', 'roles.id')
        .where(activeGrant)
        .as('member_count'),
    ]);
}

export async function listRoles(
  db: Kysely<Tables>,
  query: ListRolesQuery,
): Promise<{ rows: RoleView[]; total: number }> {
  let filtered = db.selectFrom('roles');
  if (query.q !== undefined) {
    const pattern = likePattern(query.q);
    filtered = filtered.where((eb) => eb.or([eb('key', 'ilike', pattern), eb('name', 'ilike', pattern)]));
  }
  const { rows, total } = await readPage(filtered, query, (matching) =>
    roleViews(db)
      .where('roles.id', 'in', matching.select('id'))
      .orderBy(`roles.${query.sort.field}`, query.sort.direction)
      .orderBy('roles.id'),
  );
  return { rows: rows as RoleView[], total };
}

export async function findRole(db: Kysely<Tables>, id: string): Promise<RoleView | undefined> {
  return (await roleViews(db).where('roles.id', '=', id).executeTakeFirst()) as RoleView | undefined;
}

/** The role row locked for the rest of the transaction, so concurrent edits queue up. */
export function lockRole(trx: Kysely<Tables>, id: string) {
  return trx.selectFrom('roles').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
}

/** Locked NO KEY UPDATE: bulk grant requests for one role queue up, single grants (a key share) do not. */
export async function lockRoleForBulkGrants(trx: Kysely<Tables>, id: string): Promise<void> {
  await trx.selectFrom('roles').select('id').where('id', '=', id).forNoKeyUpdate().execute();
}

export function insertRole(trx: Kysely<Tables>, role: { key: string; name: string; description: string | null }) {
  return trx.insertInto('roles').values(role).returning(['id']).executeTakeFirstOrThrow();
}

export async function updateRole(
  trx: Kysely<Tables>,
  id: string,
  changes: { name: string; description: string | null },
): Promise<void> {
  await trx
    .updateTable('roles')
    .set({ ...changes, updated_at: new Date() })
    .where('id', '=', id)
    .execute();
}

/** Stamps the role as changed now (its permissions were replaced). */
export async function touchRole(trx: Kysely<Tables>, id: string): Promise<void> {
  await trx.updateTable('roles').set({ updated_at: new Date() }).where('id', '=', id).execute();
}

export async function deleteRole(trx: Kysely<Tables>, id: string): Promise<void> {
  await trx.deleteFrom('roles').where('id', '=', id).execute();
}

/**
 * Grants the role to each subject without an end, giving an expiring grant its end back; answers the
 * subjects whose grant was made or changed (an unexpiring grant already there is left alone).
 */
export async function grantUnexpiringRole(
  trx: Kysely<Tables>,
  roleId: string,
  subjects: string[],
  reason: string,
): Promise<string[]> {
  const { rows } = await sql<{ user_id: string }>`
      INSERT INTO user_roles (user_id, role_id, reason)
      SELECT u, ${roleId}::uuid, ${reason}
        FROM unnest(${subjects}::uuid[]) AS u
      ON CONFLICT (user_id, role_id) DO UPDATE SET expires_at = NULL
        WHERE user_roles.expires_at IS NOT NULL
      RETURNING user_id`.execute(trx);
  return rows.map((row) => row.user_id);
}

/** Every role with how many hold it now and how many permission keys it grants, by key. */
export function roleSummaries(db: Kysely<Tables>) {
  return db
    .selectFrom('roles')
    .select((eb) => [
      'roles.key',
      'roles.name',
      'roles.is_protected as protected',
      eb
        .selectFrom('user_roles')
        .select(sql<number>`count(*)::int`.as('n'))
        .whereRef('user_roles.role_id', '=', 'roles.id')
        .where(activeGrant)
        .as('member_count'),
      eb
        .selectFrom('role_permissions')
        .select(sql<number>`count(*)::int`.as('n'))
        .whereRef('role_permissions.role_id', '=', 'roles.id')
        .as('permission_count'),
    ])
    .orderBy('roles.key')
    .execute();
}

/** Everyone granted the role, expired grants included (flagged), oldest grant first. */
export function roleMembers(db: Kysely<Tables>, roleId: string) {
  return db
    .selectFrom('user_roles')
    .innerJoin('user_directory as users', 'users.id', 'user_roles.user_id')
    .select([
      'user_roles.user_id',
      'users.email',
      'users.status',
      'user_roles.created_at as granted_at',
      'user_roles.expires_at',
      'user_roles.reason',
      sql<boolean>`NOT ${activeGrant}`.as('expired'),
    ])
    .where('user_roles.role_id', '=', roleId)
    .orderBy('user_roles.created_at')
    .orderBy('user_roles.user_id')
    .execute();
}

/** One user's grant of one role, expired or not. */
export function findGrant(db: Kysely<Tables>, userId: string, roleId: string) {
  return db
    .selectFrom('user_roles')
    .select(['expires_at'])
    .where('user_id', '=', userId)
    .where('role_id', '=', roleId)
    .executeTakeFirst();
}

export function findRoleByKey(db: Kysely<Tables>, key: string) {
  return db.selectFrom('roles').selectAll().where('key', '=', key).executeTakeFirst();
}

export async function rolePermissionKeys(db: Kysely<Tables>, roleId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('role_permissions')
    .select('permission_key')
    .where('role_id', '=', roleId)
    .orderBy('permission_key')
    .execute();
  return rows.map((row) => row.permission_key);
}

export async function replaceRolePermissions(trx: Kysely<Tables>, roleId: string, keys: string[]): Promise<void> {
  await trx.deleteFrom('role_permissions').where('role_id', '=', roleId).execute();
  if (keys.length > 0) {
    await trx
      .insertInto('role_permissions')
      .values(keys.map((key) => ({ role_id: roleId, permission_key: key })))
      .execute();
  }
}

export async function countActiveGrants(db: Kysely<Tables>, roleId: string): Promise<number> {
  const row = await db
    .selectFrom('user_roles')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('role_id', '=', roleId)
    .where(activeGrant)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function existingUserIds(db: Kysely<Tables>, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await db
    .selectFrom('user_directory')
    .select('id')
    .where('id', '=', sql<string>`ANY(${ids}::uuid[])`)
    .execute();
  return new Set(rows.map((row) => row.id));
}

export interface GrantValues {
  roleId: string;
  userIds: string[];
  grantedBy: string;
  reason: string | null;
  expiresAt: string | null;
}

/** One statement for the whole batch; a repeated grant refreshes its expiry, grantor and reason. */
export async function upsertGrants(trx: Kysely<Tables>, grant: GrantValues): Promise<void> {
  if (grant.userIds.length === 0) return;
  await sql`
    INSERT INTO user_roles (user_id, role_id, granted_by, reason, expires_at)
    SELECT u, ${grant.roleId}::uuid, ${grant.grantedBy}::uuid, ${grant.reason}, ${grant.expiresAt}::timestamptz
      FROM unnest(${grant.userIds}::uuid[]) AS u
    ON CONFLICT (user_id, role_id) DO UPDATE
       SET granted_by = EXCLUDED.granted_by, reason = EXCLUDED.reason,
           expires_at = EXCLUDED.expires_at, created_at = now()`.execute(trx);
}

/** Removes the grants that exist and returns whose they were. */
export async function deleteGrants(trx: Kysely<Tables>, roleId: string, userIds: string[]): Promise<string[]> {
  if (userIds.length === 0) return [];
  const rows = await trx
    .deleteFrom('user_roles')
    .where('role_id', '=', roleId)
    .where('user_id', '=', sql<string>`ANY(${userIds}::uuid[])`)
    .returning('user_id')
    .execute();
  return rows.map((row) => row.user_id);
}

/**
 * The active owners (migration 0044's view), read under the lock its commit guard takes, so no
 * other transaction taking owner rights away can commit between this read and this one's commit.
 */
export async function lockedActiveOwnerIds(trx: Kysely<Tables>): Promise<Set<string>> {
  await sql`SELECT pg_advisory_xact_lock(hashtextextended('last_active_owner', 0))`.execute(trx);
  const rows = await trx.selectFrom('active_owners').select('user_id').execute();
  return new Set(rows.map((row) => row.user_id));
}

/** The system area's expiry job: grants whose end has come are deleted; answers how many. */
export async function deleteGrantsExpiredBy(trx: Kysely<Tables>, now: Date): Promise<number> {
  const result = await trx
    .deleteFrom('user_roles')
    .where('expires_at', 'is not', null)
    .where('expires_at', '<=', now)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** The role row locked, so two replacements of one role's subscriptions run one after the other. */
export async function lockRoleKey(trx: Kysely<Tables>, roleId: string): Promise<string | undefined> {
  const row = await trx.selectFrom('roles').select('key').where('id', '=', roleId).forUpdate().executeTakeFirst();
  return row?.key;
}
