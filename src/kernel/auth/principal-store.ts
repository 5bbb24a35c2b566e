import type { UserStatus } from '../../db/tables.js';
import type { RequestContext } from '../actor.js';
import type { PermissionSet } from '../permissions.js';

/**
 * What the principal reads and writes of an account (principal.ts holds the rules deciding when
 * each runs). The kernel imports no area: the areas that own these rows implement it (the users
 * area's `principalStoreOn`, with the parts login-sessions and roles export over their tables), and
 * the composition root hands it to `createKernel`.
 */
export interface PrincipalStore {
  /**
   * The request path's one read of a user, one statement; undefined: no user row. Every write to
   * what it reads notifies the user's change (migration 0032), so a cached row stays exact.
   */
  principalRow(userId: string, sessionId: string): Promise<PrincipalRow | undefined>;
  /** The user row of a subject's first signed-in request, from the token's claims (a racing request may have made it). */
  insertUserOnFirstSighting(
    user: { id: string; email: string | null; provider: string | null },
    now: Date,
  ): Promise<void>;
  /** The email follows the identity provider's, with a sighting. */
  updateEmail(userId: string, email: string, now: Date): Promise<void>;
  /**
   * Records a sighting in one statement (one commit, one change notice, one cache reload): the
   * user's `last_seen_at`, the login session's, or both. Guarded by `staleBefore`, so concurrent
   * requests do not write twice.
   */
  recordSighting(
    userId: string,
    sessionId: string,
    what: { user: boolean; session: boolean },
    tokensValidAfter: Date | null,
    client: ClientContext,
    now: Date,
    staleBefore: Date,
  ): Promise<void>;
  /** Whether the subject's account was erased; only asked on a first sighting (no user row). */
  wasErased(userId: string): Promise<boolean>;
}

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
