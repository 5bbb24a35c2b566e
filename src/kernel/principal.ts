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
}

/** `last_seen_at` moves at most once a minute per user, so a plain read rarely writes. */
const LAST_SEEN_RESOLUTION_MS = 60_000;

interface PrincipalRow {
  status: UserStatus;
  email: string | null;
  last_seen_at: Date | null;
  permissions: string[];
}

async function loadPrincipalRow(db: Kysely<Tables>, userId: string): Promise<PrincipalRow | undefined> {
  const { rows } = await sql<PrincipalRow>`
    SELECT u.status, u.email, u.last_seen_at,
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
  let row = await loadPrincipalRow(db, token.subject);
  if (row === undefined) {
    await db
      .insertInto('users')
      .values({ id: token.subject, email: token.email, provider: token.provider, last_seen_at: now })
      .onConflict((oc) => oc.column('id').doNothing())
      .execute();
    row = await loadPrincipalRow(db, token.subject);
    if (row === undefined) throw new Error('user row vanished right after insert');
  } else if (row.status === 'active') {
    row = { ...row, email: await touchActiveUser(db, token, row, now) };
  }
  return {
    userId: token.subject,
    email: row.email,
    status: row.status,
    permissions: new PermissionSet(row.permissions),
    sessionId: token.sessionId,
  };
}
