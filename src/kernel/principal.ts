import { sql, type Kysely } from 'kysely';
import type { Tables, UserStatus } from '../db/tables.js';
import { PermissionSet } from './permissions.js';
import type { VerifiedToken } from './tokens.js';

/** Who is calling: the user row's state and the permissions of their unexpired role grants. */
export interface Principal {
  userId: string;
  email: string | null;
  status: UserStatus;
  permissions: PermissionSet;
  sessionId: string | null;
  /**
   * Signed out by staff or by the user: the token was issued before the user's "sign out
   * everywhere" instant, or its session has been ended. The guard answers 401 `invalid_token`.
   */
  signedOut: boolean;
}

/** `last_seen_at` moves at most once a minute per user, so a plain read rarely writes. */
const LAST_SEEN_RESOLUTION_MS = 60_000;

interface PrincipalRow {
  status: UserStatus;
  email: string | null;
  last_seen_at: Date | null;
  tokens_valid_after: Date | null;
  session_revoked: boolean;
  permissions: string[];
}

async function loadPrincipalRow(db: Kysely<Tables>, userId: string, sessionId: string | null): Promise<PrincipalRow | undefined> {
  const { rows } = await sql<PrincipalRow>`
    SELECT u.status, u.email, u.last_seen_at, u.tokens_valid_after,
           (${sessionId}::text IS NOT NULL AND EXISTS (
             SELECT 1 FROM revoked_sessions rs WHERE rs.user_id = u.id AND rs.session_id = ${sessionId}::text
           )) AS session_revoked,
           COALESCE((
             SELECT array_agg(DISTINCT rp.permission_key)
               FROM user_roles ur
               JOIN role_permissions rp ON rp.role_id = ur.role_id
              WHERE ur.user_id = u.id
                AND (ur.expires_at IS NULL OR ur.expires_at > now())
           ), '{}') AS permissions
      FROM users u
     WHERE u.id = ${userId}`.execute(db);
  return rows[0];
}

/**
 * Keeps an active user's row current: the email follows the identity provider, and
 * `last_seen_at` moves at most once a minute. Returns the email now stored.
 */
async function touchActiveUser(db: Kysely<Tables>, token: VerifiedToken, row: PrincipalRow, now: Date): Promise<string | null> {
  if (token.email !== null && token.email !== row.email) {
    await db.updateTable('users').set({ email: token.email, last_seen_at: now, updated_at: now }).where('id', '=', token.subject).execute();
    return token.email;
  }
  if (row.last_seen_at === null || now.getTime() - row.last_seen_at.getTime() >= LAST_SEEN_RESOLUTION_MS) {
    await db
      .updateTable('users')
      .set({ last_seen_at: now })
      .where('id', '=', token.subject)
      .where((eb) => eb.or([eb('last_seen_at', 'is', null), eb('last_seen_at', '<', new Date(now.getTime() - LAST_SEEN_RESOLUTION_MS))]))
      .execute();
  }
  return row.email;
}

/**
 * Resolves a verified token to a principal, creating the user row on the subject's first
 * signed-in request from the token's claims. One query on the common path. A refused account
 * (banned, deleted) is left untouched: it is answered 403, not "seen".
 */
export async function resolvePrincipal(db: Kysely<Tables>, token: VerifiedToken, now = new Date()): Promise<Principal> {
  let row = await loadPrincipalRow(db, token.subject, token.sessionId);
  if (row === undefined) {
    await db
      .insertInto('users')
      .values({ id: token.subject, email: token.email, provider: token.provider, last_seen_at: now })
      .onConflict((oc) => oc.column('id').doNothing())
      .execute();
    row = await loadPrincipalRow(db, token.subject, token.sessionId);
    if (row === undefined) throw new Error('user row vanished right after insert');
  } else if (row.status === 'active' && !isSignedOut(token, row)) {
    row = { ...row, email: await touchActiveUser(db, token, row, now) };
  }
  return {
    userId: token.subject,
    email: row.email,
    status: row.status,
    permissions: new PermissionSet(row.permissions),
    sessionId: token.sessionId,
    signedOut: isSignedOut(token, row),
  };
}

/** `iat` is whole seconds, so the cut-off is too: a token from the second of the sign-out is refused. */
function isSignedOut(token: VerifiedToken, row: PrincipalRow): boolean {
  if (row.session_revoked) return true;
  if (row.tokens_valid_after === null) return false;
  const issuedAt = typeof token.claims.iat === 'number' ? token.claims.iat : null;
  return issuedAt === null || issuedAt * 1000 <= row.tokens_valid_after.getTime();
}
