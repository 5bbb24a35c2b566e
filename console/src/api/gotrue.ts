/**
 * Signing staff in at a GoTrue-compatible identity provider (Supabase Auth), with the public anon
 * key the service names in `GET /v1/console/config`: password sign-in, a magic link, and the
 * refresh-token grant. GoTrue answers the browser itself (it sends CORS headers).
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
    throw new GoTrueRefusal(String(text));
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

/** Mails a sign-in link for an existing account; the link returns to `redirectTo` with the tokens in its fragment. */
export async function sendMagicLink(settings: GoTrueSettings, email: string, redirectTo: string): Promise<void> {
  await call(settings, `/otp?redirect_to=${encodeURIComponent(redirectTo)}`, { email, create_user: false });
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

/** The tokens a magic link's redirect carries in the fragment (`#access_token=…&refresh_token=…`). */
export function tokensFromFragment(fragment: string): GoTrueTokens | undefined {
  const values = new URLSearchParams(fragment.replace(/^#/, ''));
  const accessToken = values.get('access_token');
  const refreshToken = values.get('refresh_token');
  return accessToken === null || refreshToken === null ? undefined : { accessToken, refreshToken };
}
