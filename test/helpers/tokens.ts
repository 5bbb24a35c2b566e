import { randomUUID } from 'node:crypto';
import { SignJWT, type JWTPayload } from 'jose';

export const TEST_JWT_SECRET = 'test-secret-that-is-long-enough-for-hs256-0123456789';

export interface TokenOptions {
  sub?: string | null;
  email?: string;
  aud?: string | string[] | null;
  /** Seconds from now; negative for an expired token; null for no exp claim. */
  expiresIn?: number | null;
  notBefore?: number;
  claims?: JWTPayload;
  secret?: string;
}

/** An HS256 token like the identity provider's; every claim can be bent to provoke a refusal. */
export function signToken(options: TokenOptions = {}): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const payload: JWTPayload = { role: 'authenticated', session_id: randomUUID(), ...options.claims };
  if (options.email) payload.email = options.email;
  if (options.sub !== null) payload.sub = options.sub ?? randomUUID();
  if (options.aud !== null) payload.aud = options.aud ?? 'authenticated';
  if (options.expiresIn !== null) payload.exp = now + (options.expiresIn ?? 3600);
  if (options.notBefore !== undefined) payload.nbf = now + options.notBefore;
  return new SignJWT(payload)
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuedAt(typeof options.claims?.iat === 'number' ? options.claims.iat : now)
    .sign(new TextEncoder().encode(options.secret ?? TEST_JWT_SECRET));
}
