import { createHash, randomBytes } from 'node:crypto';

/** The embedded development mode's owner, as its tokens name it. */
export const DEV_OWNER_EMAIL = 'owner@localhost';
/** The life of the development owner's tokens: the one `serve` prints, and each a sign-in code buys. */
export const DEV_OWNER_TOKEN_TTL_SECONDS = 12 * 3_600;
/** How long a printed sign-in code may be exchanged. */
export const DEV_SIGN_IN_CODE_TTL_MS = 10 * 60_000;
/** 256 random bits: past guessing at any rate, and the rate is limited besides. */
const CODE_BYTES = 32;

const hashOf = (code: string) => createHash('sha256').update(code).digest('base64url');

/**
 * The development owner's one-time sign-in codes: `serve` prints a link holding one, the console
 * exchanges it once for a token (POST /v1/console/sign-in). Kept in this process's memory as a
 * SHA-256 with an expiry, never the code itself: the embedded development mode is one process
 * (its database lock refuses a second), and a restart prints a new link
 * (docs/decisions/0083-dev-sign-in-codes-in-memory.md).
 */
export class DevSignInCodes {
  /** Code hash → when it expires (epoch ms). */
  readonly #codes = new Map<string, number>();

  constructor(
    /** The development owner: whom a redeemed code signs in. */
    readonly ownerSubject: string,
    // Read at each call, not captured: a test that fakes Date moves this clock too.
    private readonly now: () => number = () => Date.now(),
  ) {}

  /** A new code, valid DEV_SIGN_IN_CODE_TTL_MS; only its hash is kept. */
  issue(): string {
    const now = this.now();
    for (const [hash, expiresAt] of this.#codes) if (expiresAt <= now) this.#codes.delete(hash);
    const code = randomBytes(CODE_BYTES).toString('base64url');
    this.#codes.set(hashOf(code), now + DEV_SIGN_IN_CODE_TTL_MS);
    return code;
  }

  /** True once for a code issued here that has not expired; a code presented is forgotten either way. */
  redeem(code: string): boolean {
    const hash = hashOf(code);
    const expiresAt = this.#codes.get(hash);
    this.#codes.delete(hash);
    return expiresAt !== undefined && expiresAt > this.now();
  }
}
