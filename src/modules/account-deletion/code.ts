import { createHmac, randomInt, timingSafeEqual } from 'node:crypto';

/** Eight digits: typed from a phone easily; five guesses per request make guessing hopeless. */
export const CODE_DIGITS = 8;

export function newConfirmationCode(): string {
  return String(randomInt(0, 10 ** CODE_DIGITS)).padStart(CODE_DIGITS, '0');
}

/**
 * Only this hash is stored. Keyed with a server secret (a bare hash of eight digits is reversed
 * in a second by trying them all) and bound to the user, so a leaked table gives no code away.
 */
export function hashConfirmationCode(key: string, userId: string, code: string): string {
  return createHmac('sha256', key).update(`account-deletion:${userId}:${code}`).digest('base64url');
}

export function sameHash(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
