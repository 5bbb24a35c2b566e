import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Unsubscribe tokens: who (the address, lowercased) and which message the link came in, signed
 * with HMAC-SHA256 under the kernel's email token key, so nobody can make a working link for
 * someone else's address. They do not expire: a link in a years-old mail must still work
 * (RFC 8058 asks that one-click keep working), and using one twice changes nothing.
 */

export interface UnsubscribeClaims {
  email: string;
  /** The email_messages row the link was sent in; null for a link made otherwise (a preview). */
  messageId: string | null;
}

const VERSION = 'u1';

function signature(key: string, payload: string): Buffer {
  return createHmac('sha256', key).update(`${VERSION}.${payload}`).digest();
}

export function signUnsubscribeToken(key: string, claims: UnsubscribeClaims): string {
  const payload = Buffer.from(JSON.stringify({ e: claims.email.toLowerCase(), m: claims.messageId })).toString(
    'base64url',
  );
  return `${VERSION}.${payload}.${signature(key, payload).toString('base64url')}`;
}

/** The claims of a token this service signed; undefined for anything else (malformed, altered, another key). */
export function verifyUnsubscribeToken(key: string, token: string): UnsubscribeClaims | undefined {
  const parts = token.split('.');
  if (parts.length !== 3 || parts[0] !== VERSION) return undefined;
  const [, payload, given] = parts as [string, string, string];
  const expected = signature(key, payload);
  const actual = Buffer.from(given, 'base64url');
  if (actual.length !== expected.length || !timingSafeEqual(actual, expected)) return undefined;
  try {
    const decoded = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { e?: unknown; m?: unknown };
    if (typeof decoded.e !== 'string' || !(typeof decoded.m === 'string' || decoded.m === null)) return undefined;
    return { email: decoded.e, messageId: decoded.m };
  } catch {
    return undefined;
  }
}

/** The one-click URL of a message: GET shows a confirmation page, POST (RFC 8058) unsubscribes. */
export function unsubscribeUrl(publicBaseUrl: string, token: string): string {
  const url = new URL('/v1/public/email/unsubscribe', publicBaseUrl);
  url.searchParams.set('token', token);
  return url.toString();
}

/**
 * What staff see where a message's unsubscribe link goes: the same URL with its token withheld.
 * A token unsubscribes its holder's address; staff reads (the outbox, a template preview) are
 * responses, and signed links never leave the service in one. `withheld` never verifies.
 */
export const WITHHELD_TOKEN = 'withheld';
