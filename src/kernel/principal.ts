import { createHash } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { Tables, UserStatus } from '../db/tables.js';
import { asRead } from '../lib/split-pool.js';
import type { RequestContext } from './actor.js';
import { PermissionSet } from './permissions.js';
import type { UserCache } from './user-cache.js';
import type { VerifiedToken } from './tokens.js';

/** Where a request comes from, as the login session records it. */
export type ClientContext = Pick<RequestContext, 'ip' | 'userAgent'>;

/** A role grant in force: unexpired. */
export interface RoleGrant {
  key: string;
  name: string;
  expires_at: Date | null;
}

/** Who is calling: the user row's state and the permissions of their unexpired role grants. */
export interface Principal {
  userId: string;
  email: string | null;
  status: UserStatus;
  permissions: PermissionSet;
  /** The grants the permissions come from, by role key. */
  roles: RoleGrant[];
  /** The login session of the token: its `session_id` claim, or its token family (`loginSessionIdOf`). */
  sessionId: string;
  /**
   * Signed out by staff or by the user: the token was issued before the user's "sign out
   * everywhere" instant, or its session has been ended. The guard answers 401 `invalid_token`.
   */
  signedOut: boolean;
}

/** The least age at which `last_seen_at` (of the user and of the session) moves, so a plain read rarely writes. */
const LAST_SEEN_RESOLUTION_MS = 60_000;
/**
 * How much later than the minute a user's sighting falls due: an offset of its own, from its id.
 * Players who signed in together (after a restart or an outage) would otherwise come due in the
 * same second every minute, for good: a write, a change notice and a cache reload each, all at
 * once (a stall of about a second every minute in the soak, docs/decisions/0013-sightings-spread-and-asynchronous.md).
 * With the offsets
 * they spread over half a minute at once and drift further apart with every sighting.
 */
const LAST_SEEN_SPREAD_MS = 30_000;

/** How old a user's sighting (and its sessions') may get before a request moves it: 60 to 90 s. */
export function sightingIntervalMs(userId: string): number {
  // FNV-1a over the id: cheap, and spreads ids that differ in one character.
  let hash = 0x811c9dc5;
  for (let i = 0; i < userId.length; i += 1) hash = Math.imul(hash ^ userId.charCodeAt(i), 0x01000193);
  return LAST_SEEN_RESOLUTION_MS + ((hash >>> 0) % LAST_SEEN_SPREAD_MS);
}
/** The longest session id kept as it is (login_sessions' check, the revocation route's bound). */
const MAX_SESSION_ID = 200;

const hashed = (text: string) => `token-${createHash('sha256').update(text).digest('hex').slice(0, 32)}`;

/**
 * The login session a token belongs to. The identity provider (GoTrue) puts a `session_id` in
 * every access token, the same across its refreshes. A token without one (minted by the `token`
 * command or another issuer) has no refresh, so each such token is a login of its own: its
 * family is `sub`, `iat` and `exp` hashed, which revoking refuses that token alone, never later
 * ones. (`sub` alone would make one session of every such token, and revoking it would refuse
 * the user's session-less tokens forever.) `token-…` is no UUID, so it never reaches GoTrue.
 */
export function loginSessionIdOf(token: VerifiedToken): string {
  if (token.sessionId === null)
    return hashed(`${token.subject}:${String(token.claims.iat ?? '')}:${String(token.claims.exp ?? '')}`);
  return token.sessionId.length <= MAX_SESSION_ID ? token.sessionId : hashed(token.sessionId);
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

/** Principals of recent requests, per login session. */
export type PrincipalRows = UserCache<PrincipalRow>;

async function queryPrincipalRow(
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
           COALESCE((
             SELECT array_agg(DISTINCT rp.permission_key)
               FROM user_roles ur
               JOIN role_permissions rp ON rp.role_id = ur.role_id
              WHERE ur.user_id = u.id
                AND (ur.expires_at IS NULL OR ur.expires_at > now())
           ), '{}') AS permissions,
           COALESCE((
             SELECT json_agg(json_build_object('key', r.key, 'name', r.name, 'expires_at', ur.expires_at) ORDER BY
               r.key)
               FROM user_roles ur
               JOIN roles r ON r.id = ur.role_id
              WHERE ur.user_id = u.id
                AND (ur.expires_at IS NULL OR ur.expires_at > now())
           ), '[]') AS roles,
           (SELECT min(ur.expires_at) FROM user_roles ur WHERE ur.user_id = u.id AND ur.expires_at > now()) AS
             grants_change_at
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

/**
 * The row from the cache, else from the database (and then cached until a grant lapses).
 * Migration 0032's triggers keep the cache exact: every write to what the query reads drops the
 * user's entries, at COMMIT on this instance, a moment later on the others.
 */
function loadPrincipalRow(
  db: Kysely<Tables>,
  cache: PrincipalRows | undefined,
  userId: string,
  sessionId: string,
): Promise<PrincipalRow | undefined> {
  const read = () => queryPrincipalRow(db, userId, sessionId);
  return cache === undefined ? read() : cache.through(userId, sessionId, read, (row) => row.grants_change_at);
}

/**
 * `interval` is the user's sightingIntervalMs, worked out once per request. The guards in the
 * UPDATEs below stay at the plain minute: they only keep concurrent requests from writing twice.
 */
function isSightingDue(seen: Date, now: Date, interval: number): boolean {
  return now.getTime() - seen.getTime() >= interval;
}

/** The email follows the identity provider's (with a sighting); returns the email now stored. */
async function followEmail(
  db: Kysely<Tables>,
  token: VerifiedToken,
  row: PrincipalRow,
  now: Date,
): Promise<string | null> {
  if (token.email === null || token.email === row.email) return row.email;
  await db
    .updateTable('users')
    .set({ email: token.email, last_seen_at: now, updated_at: now })
    .where('id', '=', token.subject)
    .execute();
  return token.email;
}

/** A login session's last sighting is due, or lies before a "sign out everywhere" the session has outlived. */
function isSessionSightingDue(row: PrincipalRow, now: Date, interval: number): boolean {
  const seen = row.session_last_seen_at;
  if (seen === null || isSightingDue(seen, now, interval)) return true;
  return row.tokens_valid_after !== null && seen <= row.tokens_valid_after;
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
async function recordSighting(
  db: Kysely<Tables>,
  userId: string,
  sessionId: string,
  what: { user: boolean; session: boolean },
  tokensValidAfter: Date | null,
  client: ClientContext,
  now: Date,
): Promise<void> {
  const staleBefore = new Date(now.getTime() - LAST_SEEN_RESOLUTION_MS);
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

/**
 * Resolves a verified token to a principal, creating the user row on the subject's first
 * signed-in request from the token's claims, and recording the token's login session. No query
 * on the common path (`cache`; one without it). A refused account (banned, deleted) or a signed-out token is left
 * untouched: it is answered 403 or 401, not "seen".
 */
export async function resolvePrincipal(
  db: Kysely<Tables>,
  token: VerifiedToken,
  client: ClientContext,
  now = new Date(),
  cache?: PrincipalRows,
): Promise<Principal> {
  const sessionId = loginSessionIdOf(token);
  let row = await loadPrincipalRow(db, cache, token.subject, sessionId);
  let created = false;
  if (row === undefined) {
    if (await wasErased(db, token.subject)) return erasedPrincipal(token.subject, sessionId);
    await db
      .insertInto('users')
      .values({ id: token.subject, email: token.email, provider: token.provider, last_seen_at: now })
      .onConflict((oc) => oc.column('id').doNothing())
      .execute();
    row = await loadPrincipalRow(db, cache, token.subject, sessionId);
    if (row === undefined) throw new Error('user row vanished right after insert');
    created = true;
  }
  if (row.status === 'active' && !isSignedOut(token, row)) {
    const email = created ? row.email : await followEmail(db, token, row, now);
    // A new user row, or an email just followed, carries this sighting already.
    const interval = sightingIntervalMs(token.subject);
    const user =
      !created && email === row.email && (row.last_seen_at === null || isSightingDue(row.last_seen_at, now, interval));
    const session = isSessionSightingDue(row, now, interval);
    if (user || session)
      await recordSighting(db, token.subject, sessionId, { user, session }, row.tokens_valid_after, client, now);
    row = { ...row, email };
  }
  return {
    userId: token.subject,
    email: row.email,
    status: row.status,
    permissions: row.permissions,
    roles: row.roles,
    sessionId,
    signedOut: isSignedOut(token, row),
  };
}

/** Only asked on a subject's first sighting (no user row), so it costs nothing on the common path. */
async function wasErased(db: Kysely<Tables>, userId: string): Promise<boolean> {
  return (await db.selectFrom('erased_users').select('id').where('id', '=', userId).executeTakeFirst()) !== undefined;
}

/** A token of an erased account: refused like a deleted one (403 `account_deleted`), and nothing is written. */
function erasedPrincipal(userId: string, sessionId: string): Principal {
  return {
    userId,
    email: null,
    status: 'deleted',
    permissions: new PermissionSet([]),
    roles: [],
    sessionId,
    signedOut: false,
  };
}

/** `iat` is whole seconds, so the cut-off is too: a token from the second of the sign-out is refused. */
function isSignedOut(token: VerifiedToken, row: PrincipalRow): boolean {
  if (row.session_revoked) return true;
  if (row.tokens_valid_after === null) return false;
  const issuedAt = typeof token.claims.iat === 'number' ? token.claims.iat : null;
  return issuedAt === null || issuedAt * 1000 <= row.tokens_valid_after.getTime();
}
