import { sql, type Kysely } from 'kysely';
import type { Tables, UserStatus } from '../../db/tables.js';
import { asRead } from '../../lib/split-pool.js';
import type { RequestContext } from '../actor.js';
import { PermissionSet } from '../permissions.js';

// Every statement the principal sends: the request path's one read of a user, and the writes of a
// sighting (principal.ts holds the rules deciding when each runs).

/** Where a request comes from, as the login session records it. */
export type ClientContext = Pick<RequestContext, 'ip' | 'userAgent'>;

/** A role grant in force: unexpired. */
export interface RoleGrant {
  key: string;
  name: string;
  expires_at: Date | null;
}

export interface PrincipalRow {
  status: UserStatus;
  email: string | null;
  last_seen_at: Date | null;
  tokens_valid_after: Date | null;
  session_revoked: boolean;
  /** The login session's last sighting; null when the session is new. */
  session_last_seen_at: Date | null;
  permissions: PermissionSet;
  roles: RoleGrant[];
  /** The soonest unexpired grant's expiry: the permissions change then. */
  grants_change_at: Date | null;
}

interface PrincipalQueryRow extends Omit<PrincipalRow, 'permissions' | 'roles'> {
  permissions: string[];
  roles: Array<{ key: string; name: string; expires_at: string | null }>;
}

/** The permission keys of user `u`'s unexpired grants (wildcards as granted). */
const permissionsOfU = sql`COALESCE((
             SELECT array_agg(DISTINCT rp.permission_key)
               FROM user_roles ur
               JOIN role_permissions rp ON rp.role_id = ur.role_id
              WHERE ur.user_id = u.id
                AND (ur.expires_at IS NULL OR ur.expires_at > now())
           ), '{}')`;
/** When user `u`'s permissions next change by themselves: the soonest unexpired grant's expiry. */
const grantsChangeAtOfU = sql`(SELECT min(ur.expires_at) FROM user_roles ur WHERE ur.user_id = u.id AND ur.expires_at > now())`;

export async function queryPrincipalRow(
  db: Kysely<Tables>,
  userId: string,
  sessionId: string,
): Promise<PrincipalRow | undefined> {
  // Prepared (see src/db/database.ts): every signed-in request that misses the cache runs it, and
  // planning it cost more than running it. It must read none of the profile's own columns that
  // migration 0043 names: a change to those alone does not drop cached principals.
  const { rows } = await asRead(sql<PrincipalQueryRow>`/* prepared: principal_v2 */
    SELECT u.status, u.email, u.last_seen_at, u.tokens_valid_after,
           EXISTS (
             SELECT 1 FROM revoked_sessions rs WHERE rs.user_id = u.id AND rs.session_id = ${sessionId}::text
           ) AS session_revoked,
           (SELECT ls.last_seen_at FROM login_sessions ls WHERE ls.user_id = u.id AND ls.session_id =
             ${sessionId}::text) AS session_last_seen_at,
           ${permissionsOfU} AS permissions,
           COALESCE((
             SELECT json_agg(json_build_object('key', r.key, 'name', r.name, 'expires_at', ur.expires_at) ORDER BY
               r.key)
               FROM user_roles ur
               JOIN roles r ON r.id = ur.role_id
              WHERE ur.user_id = u.id
                AND (ur.expires_at IS NULL OR ur.expires_at > now())
           ), '[]') AS roles,
           ${grantsChangeAtOfU} AS grants_change_at
      FROM users u
     WHERE u.id = ${userId}`).execute(db);
  const row = rows[0];
  if (row === undefined) return undefined;
  return {
    ...row,
    permissions: new PermissionSet(row.permissions),
    roles: row.roles.map((grant) => ({
      ...grant,
      expires_at: grant.expires_at === null ? null : new Date(grant.expires_at),
    })),
  };
}

/** The user row of a subject's first signed-in request, from the token's claims (a racing request may have made it). */
export async function insertUserOnFirstSighting(
  db: Kysely<Tables>,
  user: { id: string; email: string | null; provider: string | null },
  now: Date,
): Promise<void> {
  await db
    .insertInto('users')
    .values({ ...user, last_seen_at: now })
    .onConflict((oc) => oc.column('id').doNothing())
    .execute();
}

/** The email follows the identity provider's, with a sighting. */
export async function updateEmail(db: Kysely<Tables>, userId: string, email: string, now: Date): Promise<void> {
  await db.updateTable('users').set({ email, last_seen_at: now, updated_at: now }).where('id', '=', userId).execute();
}

/**
 * Records a sighting in one statement (one commit, one change notice, one cache reload): the
 * user's `last_seen_at`, and the login session, inserted when new (first IP and user agent) or
 * its last sighting moved (also when it lies before a "sign out everywhere" the session has
 * outlived, so lists can tell ended sessions by their last sighting). The guards keep concurrent
 * requests from writing twice. Committed without waiting for the WAL flush (`synchronous_commit`
 * off for this transaction alone): a crash may forget the last minute's sightings, which the next
 * request records again, while every commit that notifies holds PostgreSQL's database-wide notify
 * lock for as long as its flush takes (the soak, docs/decisions/0013-sightings-spread-and-asynchronous.md).
 */
export async function recordSighting(
  db: Kysely<Tables>,
  userId: string,
  sessionId: string,
  what: { user: boolean; session: boolean },
  tokensValidAfter: Date | null,
  client: ClientContext,
  now: Date,
  staleBefore: Date,
): Promise<void> {
  const asynchronous = sql`async AS (SELECT set_config('synchronous_commit', 'off', true))`;
  const userSighting = sql`
    UPDATE users SET last_seen_at = ${now}
     WHERE id = ${userId} AND (last_seen_at IS NULL OR last_seen_at < ${staleBefore})`;
  if (!what.session) {
    await sql`WITH ${asynchronous} ${userSighting} AND EXISTS (SELECT 1 FROM async)`.execute(db);
    return;
  }
  const seenUser = what.user ? sql`, seen_user AS (${userSighting} RETURNING 1)` : sql``;
  await sql`
    WITH ${asynchronous}${seenUser}
    INSERT INTO login_sessions AS ls (user_id, session_id, first_seen_at, last_seen_at, first_ip, last_ip, user_agent)
    SELECT ${userId}::uuid, ${sessionId}::text, ${now}::timestamptz, ${now}::timestamptz, ${client.ip}::text,
      ${client.ip}::text, ${client.userAgent}::text FROM async
    ON CONFLICT (user_id, session_id) DO UPDATE
       SET last_seen_at = excluded.last_seen_at, last_ip = excluded.last_ip, user_agent =
         COALESCE(excluded.user_agent, ls.user_agent)
     WHERE ls.last_seen_at < ${staleBefore} OR ls.last_seen_at <= ${tokensValidAfter}::timestamptz`.execute(db);
}

/** Only asked on a subject's first sighting (no user row), so it costs nothing on the common path. */
export async function wasErased(db: Kysely<Tables>, userId: string): Promise<boolean> {
  return (await db.selectFrom('erased_users').select('id').where('id', '=', userId).executeTakeFirst()) !== undefined;
}

/** What a user may do now, read for many users at once (what a long-lived connection re-checks). */
export interface UserAccess {
  status: UserStatus;
  /** "Sign out everywhere" instant: credentials issued before it no longer admit. */
  tokensValidAfter: Date | null;
  permissions: PermissionSet;
  /** The soonest unexpired grant's expiry: the permissions change then. */
  grantsChangeAt: Date | null;
}

/**
 * The access of each of these users (a missing user is absent from the map), as `queryPrincipalRow`
 * reads it. One statement: callers keep `userIds` to a few thousand.
 */
export async function queryUserAccess(
  db: Kysely<Tables>,
  userIds: readonly string[],
): Promise<Map<string, UserAccess>> {
  const access = new Map<string, UserAccess>();
  if (userIds.length === 0) return access;
  const { rows } = await asRead(sql<{
    id: string;
    status: UserStatus;
    tokens_valid_after: Date | null;
    permissions: string[];
    grants_change_at: Date | null;
  }>`
    SELECT u.id, u.status, u.tokens_valid_after,
           ${permissionsOfU} AS permissions, ${grantsChangeAtOfU} AS grants_change_at
      FROM users u
     WHERE u.id IN (${sql.join(userIds)})`).execute(db);
  for (const row of rows)
    access.set(row.id, {
      status: row.status,
      tokensValidAfter: row.tokens_valid_after,
      permissions: new PermissionSet(row.permissions),
      grantsChangeAt: row.grants_change_at,
    });
  return access;
}
