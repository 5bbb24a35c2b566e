import type { Kysely } from 'kysely';
import type { RawData, WebSocket } from 'ws';
import type { Tables } from '../../db/tables.js';
import { admits, CLOSE_POLICY_VIOLATION, send, type Connection, type RealtimeHub } from './hub.js';
import { accountStandings } from './queries.js';
import { clientMessage } from './schemas.js';
import { TICKET_TTL_SECONDS, verifyTicket } from './tickets.js';

/**
 * Admits a socket on its ticket: a forged, expired or missing ticket, or an account no longer
 * active (banned, deleted, signed out since), is closed with 1008 before any frame is sent; so is
 * a socket past its user's cap (1013 past the instance's).
 * A ticket may open several sockets within its minute (a tab reconnecting, a second tab): it
 * stays bound to one user and their channels, and the account is re-checked on every connect.
 */
export async function acceptConnection(
  hub: RealtimeHub,
  db: Kysely<Tables>,
  key: Buffer,
  socket: WebSocket,
  ticket: string | undefined,
): Promise<void> {
  // Messages sent before we are ready wait here instead of being lost while the account is read.
  const early: RawData[] = [];
  const queue = (data: RawData) => early.push(data);
  socket.on('message', queue);

  const claims = ticket === undefined ? null : verifyTicket(key, ticket);
  if (claims === null) return socket.close(CLOSE_POLICY_VIOLATION, 'invalid ticket');
  const refusal = hub.takePlace(socket, claims.userId);
  if (refusal !== undefined) return socket.close(refusal.code, refusal.reason);
  const issuedAt = new Date((claims.expiresAt - TICKET_TTL_SECONDS) * 1000);
  const standings = await accountStandings(db, [claims.userId]);
  if (!admits(standings.get(claims.userId), issuedAt)) return socket.close(CLOSE_POLICY_VIOLATION, 'account refused');
  if (socket.readyState !== socket.OPEN) return; // the client left while we checked

  const connection: Connection = {
    socket,
    userId: claims.userId,
    allowed: new Set(claims.channels),
    joined: new Set(claims.channels),
    issuedAt,
    alive: true,
  };
  hub.add(connection);
  send(socket, { type: 'subscribed', channels: [...connection.joined] });
  socket.off('message', queue);
  socket.on('message', (data) => onMessage(connection, data));
  for (const data of early) onMessage(connection, data);
}

/**
 * `subscribe` sets the joined channels to those asked for that the ticket allows; the rest are refused, never joined.
 */
function onMessage(connection: Connection, data: RawData): void {
  const parsed = clientMessage.safeParse(parseJson(data));
  if (!parsed.success) {
    send(connection.socket, { type: 'error', error: 'invalid_message' });
    return;
  }
  const asked = [...new Set(parsed.data.channels)];
  const refused = asked.filter((channel) => !connection.allowed.has(channel));
  if (refused.length > 0) send(connection.socket, { type: 'error', error: 'channel_not_allowed', channels: refused });
  connection.joined = new Set(asked.filter((channel) => connection.allowed.has(channel)));
  send(connection.socket, { type: 'subscribed', channels: [...connection.joined] });
}

function parseJson(data: RawData): unknown {
  try {
    return JSON.parse(
      Buffer.isBuffer(data)
        ? data.toString('utf8')
        : Buffer.concat(data instanceof ArrayBuffer ? [Buffer.from(data)] : data).toString('utf8'),
    );
  } catch {
    return undefined;
  }
}
