import { type GoTrueSettings, refreshTokens, signOutAt } from './gotrue';

/**
 * The signed-in staff member's session: the access token and when it stops working, kept in this
 * tab's sessionStorage (a reload keeps it; closing the tab ends it; other tabs sign in on their own).
 * A session from the identity provider also holds its refresh token and is renewed a minute before
 * its access token ends; any other ends with its token.
 */

export interface Session {
  accessToken: string;
  /** Epoch milliseconds, read from the token's `exp`. */
  expiresAt: number;
  /** Subject and email as the token names them, for the header. */
  subject: string;
  email: string | undefined;
  /** Where and with what the session is renewed (GoTrue sign-in only). */
  renewal?: GoTrueSettings & { refreshToken: string };
}

const STORAGE_KEY = 'platform-console.session';
/** A token this close to its end is treated as ended: the call it would sign may take that long. */
const EXPIRY_MARGIN_MS = 10_000;
/** A renewable session is renewed this long before its token ends. */
const RENEW_AHEAD_MS = 60_000;

type Listener = () => void;
const listeners = new Set<Listener>();
let current: Session | undefined = read();
let renewing: Promise<Session | undefined> | undefined;
let renewTimer: ReturnType<typeof setTimeout> | undefined;

function read(): Session | undefined {
  try {
    const raw = globalThis.sessionStorage?.getItem(STORAGE_KEY);
    if (raw === null || raw === undefined) return undefined;
    const session = JSON.parse(raw) as Session;
    return typeof session.accessToken === 'string' && typeof session.expiresAt === 'number' ? session : undefined;
  } catch {
    return undefined;
  }
}

function notify(): void {
  for (const listener of listeners) listener();
}

/** The token's claims, unverified: the service verifies; the console only reads when it ends. */
function claimsOf(token: string): { exp?: unknown; sub?: unknown; email?: unknown } | undefined {
  const payload = token.split('.')[1];
  if (payload === undefined) return undefined;
  try {
    const json = atob(payload.replace(/-/g, '+').replace(/_/g, '/'));
    const claims: unknown = JSON.parse(json);
    return typeof claims === 'object' && claims !== null ? claims : undefined;
  } catch {
    return undefined;
  }
}

/** A session for a token, or undefined when it is not a JWT with `sub` and a future `exp`. */
export function sessionFromToken(token: string, now = Date.now()): Session | undefined {
  const claims = claimsOf(token.trim());
  if (claims === undefined || typeof claims.exp !== 'number' || typeof claims.sub !== 'string') return undefined;
  const expiresAt = claims.exp * 1000;
  if (expiresAt - EXPIRY_MARGIN_MS <= now) return undefined;
  return {
    accessToken: token.trim(),
    expiresAt,
    subject: claims.sub,
    email: typeof claims.email === 'string' ? claims.email : undefined,
  };
}

/** Renews the session at the identity provider once, however many calls ask at the same time. */
function renew(session: Session & { renewal: NonNullable<Session['renewal']> }): Promise<Session | undefined> {
  renewing ??= refreshTokens(session.renewal, session.renewal.refreshToken)
    .then((tokens) => {
      const next = sessionFromToken(tokens.accessToken);
      if (next === undefined) throw new Error('the renewed token is not current');
      sessionStore.begin({ ...next, renewal: { ...session.renewal, refreshToken: tokens.refreshToken } });
      return current;
    })
    .catch(() => {
      sessionStore.end();
      return undefined;
    })
    .finally(() => {
      renewing = undefined;
    });
  return renewing;
}

/** A renewable session is renewed a minute before its end; any other ends with its token, and sign-in shows. */
function scheduleRenewal(): void {
  clearTimeout(renewTimer);
  const session = current;
  if (session === undefined) return;
  const renewal = session.renewal;
  if (renewal === undefined) {
    renewTimer = setTimeout(() => sessionStore.end(), Math.max(0, session.expiresAt - EXPIRY_MARGIN_MS - Date.now()));
    return;
  }
  renewTimer = setTimeout(
    () => void renew({ ...session, renewal }),
    Math.max(0, session.expiresAt - RENEW_AHEAD_MS - Date.now()),
  );
}

export const sessionStore = {
  /**
   * The session, or undefined once a session that cannot be renewed has reached its end. Pure (React
   * reads it while rendering): the timer of `scheduleRenewal` is what ends the session and tells.
   */
  get(): Session | undefined {
    if (current !== undefined && current.renewal === undefined && current.expiresAt - EXPIRY_MARGIN_MS <= Date.now())
      return undefined;
    return current;
  },
  /** The token to send now: renewed first when it is about to end. */
  async accessToken(): Promise<string | undefined> {
    const session = sessionStore.get();
    if (session?.renewal !== undefined && session.expiresAt - RENEW_AHEAD_MS <= Date.now())
      return (await renew({ ...session, renewal: session.renewal }))?.accessToken;
    return session?.accessToken;
  },
  begin(session: Session): void {
    current = session;
    globalThis.sessionStorage?.setItem(STORAGE_KEY, JSON.stringify(session));
    scheduleRenewal();
    notify();
  },
  end(): void {
    clearTimeout(renewTimer);
    if (current === undefined) return;
    current = undefined;
    globalThis.sessionStorage?.removeItem(STORAGE_KEY);
    notify();
  },
  /** The staff member signs out: at the identity provider too, when the session came from it. */
  async signOut(): Promise<void> {
    const session = current;
    sessionStore.end();
    if (session?.renewal !== undefined) await signOutAt(session.renewal, session.accessToken);
  },
  /** After a reload: renew on time again. */
  resume(): void {
    scheduleRenewal();
  },
  subscribe(listener: Listener): () => void {
    listeners.add(listener);
    return () => listeners.delete(listener);
  },
};
