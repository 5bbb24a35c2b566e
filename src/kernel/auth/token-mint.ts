import { randomUUID } from 'node:crypto';
import { SignJWT, type JWTPayload } from 'jose';
import { TOKEN_AUDIENCE } from '../tokens.js';

export interface MintOptions {
  subject: string;
  email?: string;
  ttlSeconds: number;
  claims?: JWTPayload;
}

/** A token option that cannot be honoured; the message names the option and what it accepts. */
export class TokenOptionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TokenOptionError';
  }
}

/** Claims the minter sets itself, and where each comes from: given as claims they would be overwritten. */
const RESERVED_CLAIMS: Record<string, string> = {
  sub: 'from --sub',
  aud: `always "${TOKEN_AUDIENCE}", the audience the service accepts`,
  iat: 'the moment of minting',
  exp: 'from --ttl',
};

/** Refuses claims the token would not carry as given (never dropped silently). */
export function checkMintOptions(options: MintOptions): void {
  for (const claim of Object.keys(options.claims ?? {})) {
    const source = RESERVED_CLAIMS[claim];
    if (source === undefined) continue;
    throw new TokenOptionError(`--claim ${claim}: set by the token command itself (${source})`);
  }
  if (options.email !== undefined && options.claims?.email !== undefined) {
    throw new TokenOptionError('--claim email and --email both set the email: give it once');
  }
}

/** An HS256 access token shaped like the identity provider's (`aud: authenticated`). For dev and the CLI. */
export function mintToken(secret: string, options: MintOptions): Promise<string> {
  checkMintOptions(options);
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

const TTL = /^(\d{1,9})([smhd])$/;
const UNIT_SECONDS = { s: 1, m: 60, h: 3_600, d: 86_400 } as const;
/** A year: a longer-lived token is a credential nobody remembers handing out. */
const MAX_TTL_SECONDS = 365 * 86_400;
const TTL_FORMS = 'a whole number of seconds, minutes, hours or days from 1s to 365d, like 90s, 15m, 1h or 7d';

/** `90s`, `15m`, `1h`, `7d` → seconds. */
export function parseTtl(text: string): number {
  const match = TTL.exec(text);
  const seconds = match === null ? 0 : Number(match[1]) * UNIT_SECONDS[match[2] as keyof typeof UNIT_SECONDS];
  if (seconds < 1 || seconds > MAX_TTL_SECONDS) throw new TokenOptionError(`--ttl must be ${TTL_FORMS}; got "${text}"`);
  return seconds;
}

const CLAIM_KEY = /^[A-Za-z_][A-Za-z0-9_-]*(\.[A-Za-z_][A-Za-z0-9_-]*)*$/;

/** `k=v` pairs into claims: dotted keys nest (`app_metadata.provider=github`), JSON values parse. */
export function parseClaims(pairs: string[]): JWTPayload {
  const claims: Record<string, unknown> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    const key = eq <= 0 ? '' : pair.slice(0, eq);
    // Plain names only: an empty segment, or `__proto__`, would not land where it says.
    if (!CLAIM_KEY.test(key) || key.split('.').includes('__proto__')) {
      throw new TokenOptionError(`--claim must be key=value with a name or dotted names as the key, got "${pair}"`);
    }
    const path = key.split('.');
    const raw = pair.slice(eq + 1);
    let value: unknown = raw;
    try {
      value = JSON.parse(raw);
    } catch {
      // not JSON: keep the text
    }
    let target = claims;
    for (const segment of path.slice(0, -1)) {
      const next = target[segment];
      if (typeof next !== 'object' || next === null) target[segment] = {};
      target = target[segment] as Record<string, unknown>;
    }
    target[path.at(-1) as string] = value;
  }
  return claims;
}
