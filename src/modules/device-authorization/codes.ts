import { createHash, randomBytes, randomInt } from 'node:crypto';

/**
 * RFC 8628 section 6.1's suggestion: 20 consonants, no vowels (no words spelled by chance) and
 * none of the look-alikes 0/O, 1/I/L-ish digits. 20^8 ≈ 2.6·10^10 codes against 5 guesses a minute.
 */
export const USER_CODE_ALPHABET = 'BCDFGHJKLMNPQRSTVWXZ';
const USER_CODE_LENGTH = 8;

/** 8 letters, stored without the dash. */
export function newUserCode(): string {
  let code = '';
  for (let i = 0; i < USER_CODE_LENGTH; i++) code += USER_CODE_ALPHABET[randomInt(USER_CODE_ALPHABET.length)];
  return code;
}

/** How a person sees and types it: `WDJB-MJHT`. */
export function displayUserCode(code: string): string {
  return `${code.slice(0, 4)}-${code.slice(4)}`;
}

/** What a person typed (any case, with or without the dash or spaces) → the stored form, or undefined. */
export function normalizeUserCode(typed: string): string | undefined {
  const code = typed.toUpperCase().replace(/[\s-]/g, '');
  return code.length === USER_CODE_LENGTH && [...code].every((c) => USER_CODE_ALPHABET.includes(c)) ? code : undefined;
}

/** 32 random bytes: the launcher's secret while it waits, and the refresh token's shape too. */
export function newOpaqueSecret(): string {
  return randomBytes(32).toString('base64url');
}

/** Secrets are looked up by hash: a database read never yields a usable device code or refresh token. */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}
