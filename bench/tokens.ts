import { randomBytes, randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';

/** Long enough for the service's 32-character minimum; made fresh for every run. */
export function newJwtSecret(): string {
  return randomBytes(32).toString('hex');
}

/** Longer than any run, so no token expires mid-scenario. */
const TOKEN_TTL_SECONDS = 4 * 3_600;

/**
 * An access token shaped like the identity provider's (src/kernel/tokens.ts: HS256, `sub` a
 * uuid, `aud: authenticated`, `exp`; `email` and `session_id` as GoTrue sends them), so every
 * bench request takes the production verification path.
 */
export function mintToken(secret: string, user: { id: string; email: string }): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ email: user.email, role: 'authenticated', session_id: randomUUID() })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(user.id)
    .setAudience('authenticated')
    .setIssuedAt(now)
    .setExpirationTime(now + TOKEN_TTL_SECONDS)
    .sign(new TextEncoder().encode(secret));
}
