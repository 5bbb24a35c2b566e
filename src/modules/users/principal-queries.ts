import { sql, type Kysely } from 'kysely';
import type { Tables, UserStatus } from '../../db/tables.js';
import type { ClientContext, PrincipalRow, PrincipalStore } from '../../kernel/principal.js';
import { PermissionSet } from '../../kernel/permissions.js';
import { ASYNCHRONOUS_COMMIT } from '../../lib/asynchronous-commit.js';
import { asRead } from '../../lib/split-pool.js';
import { isSessionRevoked, recordSessionSighting, sessionLastSeenAt } from '../login-sessions/index.js';
import { grantedPermissionKeysOf, grantsChangeAtOf, grantsInForceOf } from '../roles/index.js';

/**
 * The statements of the request path's principal (src/kernel/principal.ts holds the rules deciding
 * when each runs), handed to the kernel as its `PrincipalStore` by the composition root. The user
 * row is this area's; the session's revocation and last sighting and the grants in force are parts
 * login-sessions and roles export over their own tables, so the lookup stays one statement with
 * the text and plan it had, and the session's sighting is written by login-sessions.
 */

type Db = Kysely<Tables>;

interface PrincipalQueryRow extends Omit<PrincipalRow, 'permissions' | 'roles'> {
  permissions: string[];
  roles: Array<{ key: string; name: string; expires_at: string | null }>;
}

/** The user row's id in the statements below. */
const U_ID = sql<string>`u.id`;
/** Built once: they hold no value of a request. */
const PERMISSIONS_OF_U = grantedPermissionKeysOf(U_ID);
const GRANTS_OF_U = grantsInForceOf(U_ID);
const GRANTS_CHANGE_AT_OF_U = grantsChangeAtOf(U_ID);

async function queryPrincipalRow(db: Db, userId: string, sessionId: string): Promise<PrincipalRow | undefined> {
  // Prepared (src/lib/pg-client.ts): every signed-in request that misses the cache runs it, and
  // planning it cost more than running it. It must read none of the profile's own columns that
  // migration 0043 names: a change to those alone does not drop cached principals.
  const { rows } = await asRead(sql<PrincipalQueryRow>`/* prepared: principal_v2 */
    SELECT u.status, u.email, u.last_seen_at, u.tokens_valid_after,
           ${isSessionRevoked(U_ID, sessionId)} AS session_revoked,
           ${sessionLastSeenAt(U_ID, sessionId)} AS session_last_seen_at,
           ${PERMISSIONS_OF_U} AS permissions,
           ${GRANTS_OF_U} AS roles,
           ${GRANTS_CHANGE_AT_OF_U} AS grants_change_at
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

async function insertUserOnFirstSighting(
  db: Db,
  user: { id: string; email: string | null; provider: string | null },
  now: Date,
): Promise<void> {
  await db
    .insertInto('users')
    .values({ ...user, last_seen_at: now })
    .onConflict((oc) => oc.column('id').doNothing())
    .execute();
}

async function updateEmail(db: Db, userId: string, email: string, now: Date): Promise<void> {
  await db.updateTable('users').set({ email, last_seen_at: now, updated_at: now }).where('id', '=', userId).execute();
}

/**
 * The user's sighting, and the session's through login-sessions with this write alongside in its
 * statement. Committed without waiting for the WAL flush (`ASYNCHRONOUS_COMMIT`): a crash may
 * forget the last minute's sightings, which the next request records again, while every commit
 * that notifies holds PostgreSQL's database-wide notify lock for as long as its flush takes (the
 * soak, docs/decisions/0013-sightings-spread-and-asynchronous.md).
 */
async function recordSighting(
  db: Db,
  userId: string,
  sessionId: string,
  what: { user: boolean; session: boolean },
  tokensValidAfter: Date | null,
  client: ClientContext,
  now: Date,
  staleBefore: Date,
): Promise<void> {
  const userSighting = sql`
    UPDATE users SET last_seen_at = ${now}
     WHERE id = ${userId} AND (last_seen_at IS NULL OR last_seen_at < ${staleBefore})`;
  if (!what.session) {
    await sql`WITH ${ASYNCHRONOUS_COMMIT} ${userSighting} AND EXISTS (SELECT 1 FROM async)`.execute(db);
    return;
  }
  const sighting = { userId, sessionId, tokensValidAfter, client, now, staleBefore };
  await recordSessionSighting(db, sighting, what.user ? userSighting : undefined);
}

async function wasErased(db: Db, userId: string): Promise<boolean> {
  return (await db.selectFrom('erased_users').select('id').where('id', '=', userId).executeTakeFirst()) !== undefined;
}

/** The kernel's `PrincipalStore` over `db`: the composition root hands it to `createKernel`. */
export function principalStoreOn(db: Db): PrincipalStore {
  return {
    principalRow: (userId, sessionId) => queryPrincipalRow(db, userId, sessionId),
    insertUserOnFirstSighting: (user, now) => insertUserOnFirstSighting(db, user, now),
    updateEmail: (userId, email, now) => updateEmail(db, userId, email, now),
    recordSighting: (userId, sessionId, what, tokensValidAfter, client, now, staleBefore) =>
      recordSighting(db, userId, sessionId, what, tokensValidAfter, client, now, staleBefore),
    wasErased: (userId) => wasErased(db, userId),
  };
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
 * The access of each of these users (a missing user is absent from the map), as the principal's
 * lookup reads it. One statement: callers keep `userIds` to a few thousand.
 */
export async function queryUserAccess(db: Db, userIds: readonly string[]): Promise<Map<string, UserAccess>> {
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
           ${PERMISSIONS_OF_U} AS permissions, ${GRANTS_CHANGE_AT_OF_U} AS grants_change_at
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
