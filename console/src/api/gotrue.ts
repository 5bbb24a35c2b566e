/**
 * Signing staff in at a GoTrue-compatible identity provider (Supabase Auth), with the public anon
 * key the service names in `GET /v1/console/config`: password sign-in, a magic link (GoTrue's PKCE
 * flow), and the refresh-token grant. GoTrue answers the browser itself (it sends CORS headers).
 */

export interface GoTrueSettings {
  url: string;
  anonKey: string;
}

export interface GoTrueTokens {
  accessToken: string;
  refreshToken: string;
}

export class GoTrueRefusal extends Error {
  override readonly name = 'GoTrueRefusal';
  /** GoTrue's `error_code` (`bad_code_verifier`, `flow_state_not_found`, …), when it named one. */
  readonly code: string | undefined;
  constructor(message: string, code?: string) {
    super(message);
    this.code = code;
  }
}

const endpoint = (settings: GoTrueSettings, path: string) => `${settings.url.replace(/\/+$/, '')}${path}`;

async function call(settings: GoTrueSettings, path: string, body: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(endpoint(settings, path), {
    method: 'POST',
    headers: { apikey: settings.anonKey, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const answer = (await response.json().catch(() => ({}))) as Record<string, unknown>;
  if (!response.ok) {
    // GoTrue's bodies: `{ code, error_code, msg }`, or the OAuth shape `{ error, error_description }`.
    const text = answer.msg ?? answer.error_description ?? answer.message ?? `status ${response.status}`;
    const code = answer.error_code ?? (typeof answer.code === 'string' ? answer.code : undefined);
    throw new GoTrueRefusal(String(text), typeof code === 'string' ? code : undefined);
  }
  return answer;
}

function tokensOf(answer: Record<string, unknown>): GoTrueTokens {
  if (typeof answer.access_token !== 'string' || typeof answer.refresh_token !== 'string')
    throw new GoTrueRefusal('the identity provider answered without tokens');
  return { accessToken: answer.access_token, refreshToken: answer.refresh_token };
}

export async function signInWithPassword(
  settings: GoTrueSettings,
  email: string,
  password: string,
): Promise<GoTrueTokens> {
  return tokensOf(await call(settings, '/token?grant_type=password', { email, password }));
}

export async function refreshTokens(settings: GoTrueSettings, refreshToken: string): Promise<GoTrueTokens> {
  return tokensOf(await call(settings, '/token?grant_type=refresh_token', { refresh_token: refreshToken }));
}

/** The PKCE verifier of the link this tab asked for last: only this tab can use that link. */
const VERIFIER_KEY = 'platform-console.link-verifier';

const base64url = (bytes: Uint8Array) =>
  btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');

/**
 * Mails a sign-in link for an existing account, in GoTrue's PKCE flow: the S256 challenge goes with
 * the request and its verifier stays in this tab's sessionStorage. The link returns to `redirectTo`
 * with `?code=`, which only this tab can exchange (`exchangeLinkCode`). A newer link replaces the verifier.
 */
export async function sendMagicLink(settings: GoTrueSettings, email: string, redirectTo: string): Promise<void> {
  // crypto.subtle exists only in a secure context (https, or the loopback in development).
  if (globalThis.crypto?.subtle === undefined)
    throw new GoTrueRefusal('sign-in links need the console served over https');
  const verifier = base64url(crypto.getRandomValues(new Uint8Array(48)));
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier));
  sessionStorage.setItem(VERIFIER_KEY, verifier);
  await call(settings, `/otp?redirect_to=${encodeURIComponent(redirectTo)}`, {
    email,
    create_user: false,
    code_challenge: base64url(new Uint8Array(digest)),
    code_challenge_method: 's256',
  });
}

/**
 * Exchanges a returning link's code for the session (`POST /token?grant_type=pkce`) with this tab's
 * verifier, which is then spent. Without one (another tab or browser asked for the link), nothing is sent.
 */
export async function exchangeLinkCode(settings: GoTrueSettings, code: string): Promise<GoTrueTokens> {
  const verifier = sessionStorage.getItem(VERIFIER_KEY);
  if (verifier === null) throw new GoTrueRefusal('this tab asked for no sign-in link', 'no_code_verifier');
  const tokens = tokensOf(await call(settings, '/token?grant_type=pkce', { auth_code: code, code_verifier: verifier }));
  sessionStorage.removeItem(VERIFIER_KEY);
  return tokens;
}

/**
 * Ends the session at the identity provider (`POST /logout`, this session only), so its refresh
 * token renews nothing more. Best effort: a provider that cannot be reached leaves the local sign-out standing.
 */
export async function signOutAt(settings: GoTrueSettings, accessToken: string): Promise<void> {
  await fetch(endpoint(settings, '/logout?scope=local'), {
    method: 'POST',
    headers: { apikey: settings.anonKey, authorization: `Bearer ${accessToken}` },
  }).catch(() => undefined);
}
