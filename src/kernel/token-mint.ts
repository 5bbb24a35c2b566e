import { randomUUID } from 'node:crypto';
import { SignJWT, type JWTPayload } from 'jose';
import { TOKEN_AUDIENCE } from './tokens.js';

export interface MintOptions {
  subject: string;
  email?: string;
  ttlSeconds: number;
  claims?: JWTPayload;
}

/** An HS256 access token shaped like the identity provider's (`aud: authenticated`). For dev and the CLI. */
export function mintToken(secret: string, options: MintOptions): Promise<string> {
  const claims: JWTPayload = { role: 'authenticated', session_id: randomUUID(), ...options.claims };
  if (options.email !== undefined) claims.email = options.email;
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(options.subject)
    .setAudience(TOKEN_AUDIENCE)
    .setIssuedAt()
    .setExpirationTime(Math.floor(Date.now() / 1000) + options.ttlSeconds)
    .sign(new TextEncoder().encode(secret));
}

const TTL = /^(\d+)([smhd])$/;
const UNIT_SECONDS = { s: 1, m: 60, h: 3_600, d: 86_400 } as const;

/** `90s`, `15m`, `1h`, `7d` → seconds. */
export function parseTtl(text: string): number {
  const match = TTL.exec(text);
  if (!match) throw new Error(`--ttl must look like 90s, 15m, 1h or 7d, got "${text}"`);
  const seconds = Number(match[1]) * UNIT_SECONDS[match[2] as keyof typeof UNIT_SECONDS];
  if (seconds <= 0) throw new Error('--ttl must be positive');
  return seconds;
}

/** `k=v` pairs into claims: dotted keys nest (`app_metadata.provider=github`), JSON values parse. */
export function parseClaims(pairs: string[]): JWTPayload {
  const claims: Record<string, unknown> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new Error(`--claim must be key=value, got "${pair}"`);
    const path = pair.slice(0, eq).split('.');
    const raw = pair.slice(eq + 1);
    let value: unknown = raw;
    try {
      value = JSON.parse(raw);
    } catch {
      // not JSON: keep the text
    }
    let target = claims;
    for (const key of path.slice(0, -1)) {
      const next = target[key];
      target = (typeof next === 'object' && next !== null ? next : (target[key] = {})) as Record<string, unknown>;
    }
    target[path.at(-1) as string] = value;
  }
  return claims;
}
