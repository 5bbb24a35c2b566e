import { createHash } from 'node:crypto';
import type { UserStatus } from '../db/tables.js';
import { PermissionSet } from './permissions.js';
import type { ClientContext, PrincipalRow, PrincipalStore, RoleGrant } from './auth/principal-store.js';
import type { UserCache } from './auth/user-cache.js';
import type { VerifiedToken } from './tokens.js';

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
/** Sightings older than this are due for every user; the guards in the sighting's UPDATEs. */
const staleBefore = (now: Date) => new Date(now.getTime() - LAST_SEEN_RESOLUTION_MS);

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

export type { ClientContext, PrincipalRow, PrincipalStore, RoleGrant };

/** Principals of recent requests, per login session. */
export type PrincipalRows = UserCache<PrincipalRow>;

/**
 * The row from the cache, else from the database (and then cached until a grant lapses).
 * Migration 0032's triggers keep the cache exact: every write to what the query reads drops the
 * user's entries, at COMMIT on this instance, a moment later on the others.
 */
function loadPrincipalRow(
  store: PrincipalStore,
  cache: PrincipalRows | undefined,
  userId: string,
  sessionId: string,
): Promise<PrincipalRow | undefined> {
  const read = () => store.principalRow(userId, sessionId);
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
  store: PrincipalStore,
  token: VerifiedToken,
  row: PrincipalRow,
  now: Date,
): Promise<string | null> {
  if (token.email === null || token.email === row.email) return row.email;
  await store.updateEmail(token.subject, token.email, now);
  return token.email;
}

/** A login session's last sighting is due, or lies before a "sign out everywhere" the session has outlived. */
function isSessionSightingDue(row: PrincipalRow, now: Date, interval: number): boolean {
  const seen = row.session_last_seen_at;
  if (seen === null || isSightingDue(seen, now, interval)) return true;
  return row.tokens_valid_after !== null && seen <= row.tokens_valid_after;
}

/**
 * Resolves a verified token to a principal, creating the user row on the subject's first
 * signed-in request from the token's claims, and recording the token's login session. No query
 * on the common path (`cache`; one without it). A refused account (banned, deleted) or a signed-out token is left
 * untouched: it is answered 403 or 401, not "seen".
 */
export async function resolvePrincipal(
  store: PrincipalStore,
  token: VerifiedToken,
  client: ClientContext,
  now = new Date(),
  cache?: PrincipalRows,
): Promise<Principal> {
  const sessionId = loginSessionIdOf(token);
  let row = await loadPrincipalRow(store, cache, token.subject, sessionId);
  let created = false;
  if (row === undefined) {
    if (await store.wasErased(token.subject)) return erasedPrincipal(token.subject, sessionId);
    await store.insertUserOnFirstSighting({ id: token.subject, email: token.email, provider: token.provider }, now);
    row = await loadPrincipalRow(store, cache, token.subject, sessionId);
    if (row === undefined) throw new Error('user row vanished right after insert');
    created = true;
  }
  if (row.status === 'active' && !isSignedOut(token, row)) {
    const email = created ? row.email : await followEmail(store, token, row, now);
    // A new user row, or an email just followed, carries this sighting already.
    const interval = sightingIntervalMs(token.subject);
    const user =
      !created && email === row.email && (row.last_seen_at === null || isSightingDue(row.last_seen_at, now, interval));
    const session = isSessionSightingDue(row, now, interval);
    if (user || session)
      await store.recordSighting(
        token.subject,
        sessionId,
        { user, session },
        row.tokens_valid_after,
        client,
        now,
        staleBefore(now),
      );
    if (email !== row.email) row = { ...row, email };
  }
  return principalOf(token, row, sessionId);
}

/** The principal a token's row makes, on either path. */
function principalOf(token: VerifiedToken, row: PrincipalRow, sessionId: string): Principal {
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

/**
 * The principal from the cache alone, at once, when nothing is to be read or written: the row is
 * cached, and for an active, signed-in account no email to follow and no sighting due. Undefined
 * otherwise: `resolvePrincipal` does the rest. The same answer `resolvePrincipal` gives then.
 */
export function cachedPrincipal(token: VerifiedToken, cache: PrincipalRows, now: Date): Principal | undefined {
  const sessionId = loginSessionIdOf(token);
  const row = cache.get(token.subject, sessionId);
  if (row === undefined) return undefined;
  if (row.status === 'active' && !isSignedOut(token, row)) {
    if (token.email !== null && token.email !== row.email) return undefined;
    const interval = sightingIntervalMs(token.subject);
    if (row.last_seen_at === null || isSightingDue(row.last_seen_at, now, interval)) return undefined;
    if (isSessionSightingDue(row, now, interval)) return undefined;
  }
  return principalOf(token, row, sessionId);
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
