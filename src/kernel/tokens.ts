import {
  createRemoteJWKSet,
  customFetch,
  decodeProtectedHeader,
  errors as joseErrors,
  jwtVerify,
  type JWTPayload,
  type JWTVerifyGetKey,
} from 'jose';
import { AppError, unauthorized } from './errors.js';
import { untextual } from './http/input-guard.js';
import { inHttpClientSpan, recordHttpStatus, traceHeaders, type PeerCallMeter } from '../lib/spans.js';

export const TOKEN_AUDIENCE = 'authenticated';
const ASYMMETRIC_ALGORITHMS = [
  'ES256',
  'ES384',
  'ES512',
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'EdDSA',
];
/** An unknown `kid` refetches the key set, but no more than once per this many milliseconds. */
export const JWKS_REFETCH_COOLDOWN_MS = 30_000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface VerifiedToken {
  subject: string;
  email: string | null;
  provider: string | null;
  sessionId: string | null;
  claims: JWTPayload;
}

export interface TokenVerifierOptions {
  jwtSecret: string | undefined;
  jwksUrl: string | undefined;
  clockSkewSeconds: number;
  /** Where each fetch of the key set is measured, as the identity provider's `fetchKeySet` (metrics on). */
  meter?: PeerCallMeter | undefined;
}

export interface TokenVerifier {
  verify(token: string): Promise<VerifiedToken>;
  /** The token's kept verification (HS256, checked recently, not expired), at once; else undefined: `verify`. */
  known?(token: string): VerifiedToken | undefined;
}

/** RFC 5321's longest address: an `email` claim past it is no address. */
const MAX_EMAIL_CLAIM_LENGTH = 320;
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

/**
 * A string claim this service keeps (email, provider, session id). A signed token may still carry
 * what no row can hold (U+0000, a lone surrogate), or no address at all: such a token is refused
 * as invalid rather than failing every route it reaches (a 500) or landing in a log.
 */
function stringClaim(value: unknown, maxLength = 1_000): string | null {
  if (typeof value !== 'string' || value.length === 0) return null;
  const unkeepable = value.length > maxLength || CONTROL_CHARACTER.test(value) || untextual(value) !== undefined;
  if (unkeepable) throw unauthorized('invalid_token');
  return value;
}

/**
 * `iat` later than now (past the tolerated skew) is a token from the future: refused, or it would
 * count as issued after every "sign out everywhere" until that instant came.
 */
function issuedInTheFuture(payload: JWTPayload, skewSeconds: number, nowMs = Date.now()): boolean {
  return typeof payload.iat === 'number' && payload.iat > nowMs / 1000 + skewSeconds;
}

/** Maps jose's refusals to the spec's 401 codes; a key-set outage is ours, not the caller's. */
function refusal(error: unknown): AppError {
  if (error instanceof AppError) return error;
  if (error instanceof joseErrors.JWTClaimValidationFailed && error.claim === 'aud')
    return unauthorized('invalid_audience');
  if (error instanceof joseErrors.JWKSTimeout || error instanceof joseErrors.JWKSInvalid || isFetchFailure(error)) {
    return new AppError(503, 'unavailable', { reason: 'identity keys unreachable' }, { 'retry-after': '5' });
  }
  return unauthorized('invalid_token');
}

function isFetchFailure(error: unknown): boolean {
  return error instanceof TypeError && /fetch/i.test(error.message);
}

/** Signatures checked recently (HS256 only), so a client's next request skips the HMAC. */
const VERIFIED_MAX_AGE_MS = 60_000;
const VERIFIED_MAX_ENTRIES = 10_000;

interface Verified {
  token: VerifiedToken;
  /** `exp` in ms, past which (plus the skew) the token is refused as jose would. */
  expiresAtMs: number;
  checkedAtMs: number;
}

/**
 * HS256 verifications by exact token text. WebCrypto's HMAC job is about 20 µs of a signed-in
 * request's 60 µs of busy CPU (`npm run bench -- --skip-build --cpu-prof --only /v1/me`; the
 * profile read with bench/tools/cpu-profile-summary.ts), for a check whose answer
 * cannot change while the secret stays (it is fixed for the process's life): only `exp` can, and
 * it is checked on every hit. Tokens verified against the JWKS are not kept: a key removed from
 * the set must stop verifying as soon as the set is fetched again.
 */
class VerifiedTokens {
  readonly #entries = new Map<string, Verified>();

  constructor(
    private readonly skewMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  get(token: string): VerifiedToken | undefined {
    const entry = this.#entries.get(token);
    if (entry === undefined) return undefined;
    const now = this.now();
    if (now - entry.checkedAtMs < VERIFIED_MAX_AGE_MS && now <= entry.expiresAtMs + this.skewMs) return entry.token;
    this.#entries.delete(token);
    return undefined;
  }

  set(token: string, verified: VerifiedToken): void {
    if (typeof verified.claims.exp !== 'number') return;
    if (this.#entries.size >= VERIFIED_MAX_ENTRIES) this.#entries.delete(this.#entries.keys().next().value!);
    this.#entries.set(token, { token: verified, expiresAtMs: verified.claims.exp * 1000, checkedAtMs: this.now() });
  }
}

/**
 * HS256 tokens verify against the shared secret only; every other algorithm verifies against
 * the JWKS only. So an HS256 token is refused when only a JWKS is configured, and an
 * "asymmetric" header never gets checked with the HMAC secret (no algorithm confusion).
 */
type KeySetFetch = (
  url: string,
  init: { headers: Headers; method: 'GET'; redirect: 'manual'; signal: AbortSignal },
) => Promise<Response>;

/** The key set's fetch, in a client span of the identity provider when traced, measured on `meter`. */
function keySetFetch(meter: PeerCallMeter | undefined): KeySetFetch {
  return (url, init) => {
    const { pathname } = new URL(url);
    return inHttpClientSpan(
      `GET ${pathname}`,
      'identity',
      'GET',
      url,
      async (exchange) => {
        // A copy: jose hands every fetch of the key set the same Headers, and a trace's must not stay in it.
        const response = await fetch(url, { ...init, headers: traceHeaders(new Headers(init.headers)) });
        recordHttpStatus(exchange, response.status);
        return response;
      },
      meter,
      'fetchKeySet',
    );
  };
}

export function createTokenVerifier(options: TokenVerifierOptions): TokenVerifier {
  // Imported once: handed raw bytes, jose imports the key again on every verification (about a
  // fifth of a signed-in request's CPU, in the same `/v1/me` profile as above).
  const secret =
    options.jwtSecret === undefined
      ? undefined
      : crypto.subtle.importKey(
          'raw',
          new TextEncoder().encode(options.jwtSecret),
          { name: 'HMAC', hash: 'SHA-256' },
          false,
          ['verify'],
        );
  // A key that cannot be imported fails each verification that awaits it, not the process.
  secret?.catch(() => {});
  const jwks: JWTVerifyGetKey | undefined =
    options.jwksUrl === undefined
      ? undefined
      : createRemoteJWKSet(new URL(options.jwksUrl), {
          cooldownDuration: JWKS_REFETCH_COOLDOWN_MS,
          timeoutDuration: 5_000,
          [customFetch]: keySetFetch(options.meter),
        });
  const common = {
    audience: TOKEN_AUDIENCE,
    requiredClaims: ['sub', 'exp'],
    clockTolerance: options.clockSkewSeconds,
  };

  const verified = new VerifiedTokens(options.clockSkewSeconds * 1000);

  return {
    known: (token) => verified.get(token),
    async verify(token) {
      const known = verified.get(token);
      if (known !== undefined) return known;
      let payload: JWTPayload;
      let symmetric = false;
      try {
        const { alg } = decodeProtectedHeader(token);
        if (alg === 'HS256' && secret !== undefined) {
          ({ payload } = await jwtVerify(token, await secret, { ...common, algorithms: ['HS256'] }));
          symmetric = true;
        } else if (alg !== undefined && ASYMMETRIC_ALGORITHMS.includes(alg) && jwks !== undefined) {
          ({ payload } = await jwtVerify(token, jwks, { ...common, algorithms: ASYMMETRIC_ALGORITHMS }));
        } else {
          throw unauthorized('invalid_token');
        }
      } catch (error) {
        throw refusal(error);
      }
      if (typeof payload.sub !== 'string' || !UUID.test(payload.sub)) throw unauthorized('invalid_token');
      if (issuedInTheFuture(payload, options.clockSkewSeconds)) throw unauthorized('invalid_token');
      const appMetadata = payload.app_metadata as Record<string, unknown> | undefined;
      const result: VerifiedToken = {
        subject: payload.sub.toLowerCase(),
        email: stringClaim(payload.email, MAX_EMAIL_CLAIM_LENGTH),
        provider: stringClaim(appMetadata?.provider),
        sessionId: stringClaim(payload.session_id),
        claims: payload,
      };
      if (symmetric) verified.set(token, result);
      return result;
    },
  };
}
