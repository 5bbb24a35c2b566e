/**
 * What the service asks of the identity provider (the service that issues access tokens and
 * owns sign-in). The provider's own state is its business; the service keeps its users table
 * in step itself, in the same transaction as the audit row, after a call here succeeds.
 */

/** The provider's view of one account: what a staff user looking at a profile wants to see. */
export interface IdentityAccount {
  id: string;
  email: string | null;
  /** Sign-in methods the provider knows for the account (`email`, `google`, ...). */
  providers: string[];
  /** Until when sign-in is disabled; null when it is not. */
  banned_until: string | null;
  email_confirmed_at: string | null;
  last_sign_in_at: string | null;
  created_at: string | null;
}

export interface IdentityProvider {
  /** `local` (embedded: no outside identity store) or `gotrue` (the admin HTTP API). */
  readonly kind: 'local' | 'gotrue';
  /** The provider's record; null when it has none (always, for `local`). */
  fetchUser(userId: string): Promise<IdentityAccount | null>;
  /** Disables sign-in until `unbanUser`. */
  banUser(userId: string): Promise<void>;
  unbanUser(userId: string): Promise<void>;
  /** Ends the user's sign-in sessions: all of them, or the one with this session id. */
  signOut(userId: string, sessionId?: string): Promise<void>;
  /** Removes the account. An account the provider no longer has counts as removed. */
  deleteUser(userId: string): Promise<void>;
}

/**
 * The provider refused the call, failed (5xx), timed out or could not be reached. `status` is
 * the provider's HTTP status (null for a network failure or timeout): for the log, never for a
 * response body. Routes turn it into 502 `auth_service_error`.
 */
export class IdentityServiceError extends Error {
  constructor(
    readonly operation: string,
    readonly status: number | null,
    message: string,
  ) {
    super(message);
    this.name = 'IdentityServiceError';
  }
}

export interface IdentityConfig {
  /** GoTrue-compatible admin API base (e.g. https://auth.example.com); absent: `local`. */
  identityAdminUrl: string | undefined;
  /** The service-role key sent as bearer and `apikey` to the admin API. */
  identityServiceKey: string | undefined;
  identityTimeoutMs: number;
}
