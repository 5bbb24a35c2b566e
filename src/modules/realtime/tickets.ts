import { createHmac, timingSafeEqual } from 'node:crypto';

/** How long a ticket admits a connection: long enough to open a socket, short enough to be useless when leaked. */
export const TICKET_TTL_SECONDS = 60;
/** Longer than any real ticket: refused before any decoding work. */
const MAX_TICKET_LENGTH = 4_096;
const TICKET_KEY_LABEL = 'platform-api realtime tickets v1';

/** What a ticket says, and all it says: who, which channels, until when. */
export interface TicketClaims {
  userId: string;
  channels: string[];
  /** Unix seconds. */
  expiresAt: number;
}

/**
 * A ticket key of its own, derived from the service's email token key with a distinct label,
 * so a ticket can never pass as an unsubscribe token or a JWT (and the reverse).
 */
export function ticketKey(serviceKey: string): Buffer {
  return createHmac('sha256', serviceKey).update(TICKET_KEY_LABEL).digest();
}

/** `<base64url JSON>.<base64url HMAC-SHA256>`: opaque to the client, checkable by every instance. */
export function signTicket(key: Buffer, claims: TicketClaims): string {
  const body = Buffer.from(JSON.stringify({ sub: claims.userId, ch: claims.channels, exp: claims.expiresAt })).toString(
    'base64url',
  );
  return `${body}.${createHmac('sha256', key).update(body).digest('base64url')}`;
}

/** The claims of a well-signed, unexpired ticket; null for anything else (no reason told: the socket closes alike). */
export function verifyTicket(
  key: Buffer,
  ticket: string,
  nowSeconds = Math.floor(Date.now() / 1000),
): TicketClaims | null {
  if (ticket.length === 0 || ticket.length > MAX_TICKET_LENGTH) return null;
  const [body, signature, ...rest] = ticket.split('.');
  if (body === undefined || signature === undefined || rest.length > 0) return null;
  const expected = createHmac('sha256', key).update(body).digest();
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  if (!isClaims(parsed) || parsed.exp <= nowSeconds) return null;
  return { userId: parsed.sub, channels: parsed.ch, expiresAt: parsed.exp };
}

function isClaims(value: unknown): value is { sub: string; ch: string[]; exp: number } {
  if (typeof value !== 'object' || value === null) return false;
  const { sub, ch, exp } = value as Record<string, unknown>;
  return (
    typeof sub === 'string' && Array.isArray(ch) && ch.every((c) => typeof c === 'string') && typeof exp === 'number'
  );
}
