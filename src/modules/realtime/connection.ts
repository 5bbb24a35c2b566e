import type { RawData, WebSocket } from 'ws';
import { admits, channelsAllowedNow, send, type Connection, type RealtimeHub } from './hub.js';
import { clientMessage } from './schemas.js';
import { CLOSE_POLICY_VIOLATION, InboundBudget, refuseSocket, stopReading } from './socket-limits.js';
import { TICKET_TTL_SECONDS, verifyTicket } from './tickets.js';

/**
 * Admits a socket on its ticket: a forged, expired or missing ticket, or an account no longer
 * active (banned, deleted, signed out since), is closed with 1008 before any frame is sent; so is
 * a socket past its user's cap (1013 past the instance's).
 * A ticket may open several sockets within its minute (a tab reconnecting, a second tab): it
 * stays bound to one user, and the socket joins only those of its channels that the user's
 * permissions and roles allow when it connects (a role revoked since the ticket was issued is
 * not given back by it).
 * From its first frame, the socket spends its inbound budget (socket-limits.ts): past it the
 * socket is closed with 1008, and frames that arrive while the account is read wait within it.
 */
export async function acceptConnection(
  hub: RealtimeHub,
  key: Buffer,
  socket: WebSocket,
  ticket: string | undefined,
): Promise<void> {
  const budget = new InboundBudget();
  const early: RawData[] = [];
  let connection: Connection | undefined;
  const spend = (): boolean => {
    if (socket.readyState !== socket.OPEN) {
      if (socket.readyState === socket.CLOSING) stopReading(socket);
      return false;
    }
    if (budget.takeFrame()) return true;
    refuseSocket(socket, 'too many frames');
    return false;
  };
  socket.on('message', (data) => {
    if (!spend()) return;
    if (connection === undefined) early.push(data);
    else onMessage(connection, data);
  });
  // A ping is answered by the library and a pong read: both cost like a message.
  socket.on('ping', spend);
  socket.on('pong', spend);

  const claims = ticket === undefined ? null : verifyTicket(key, ticket);
  if (claims === null) return socket.close(CLOSE_POLICY_VIOLATION, 'invalid ticket');
  const refusal = hub.takePlace(socket, claims.userId);
  if (refusal !== undefined) return socket.close(refusal.code, refusal.reason);
  const issuedAt = new Date((claims.expiresAt - TICKET_TTL_SECONDS) * 1000);
  const access = await hub.readAccess(claims.userId);
  if (!admits(access, issuedAt)) return socket.close(CLOSE_POLICY_VIOLATION, 'account refused');
  if (socket.readyState !== socket.OPEN) return; // the client left while we checked, or broke a limit

  const ticketChannels = new Set(claims.channels);
  const allowed = channelsAllowedNow(claims.userId, ticketChannels, access);
  connection = {
    socket,
    userId: claims.userId,
    ticketChannels,
    allowed,
    joined: new Set(allowed),
    budget,
    issuedAt,
    alive: true,
  };
  hub.add(connection, access);
  send(socket, { type: 'subscribed', channels: [...connection.joined] });
  for (const data of early.splice(0)) onMessage(connection, data);
}

/**
 * `subscribe` sets the joined channels to those asked for that the socket may join; the rest are
 * refused, never joined. An unreadable frame is answered `invalid_message`, a few times: past the
 * allowance the socket is closed.
 */
function onMessage(connection: Connection, data: RawData): void {
  if (connection.socket.readyState !== connection.socket.OPEN) return;
  const parsed = clientMessage.safeParse(parseJson(data));
  if (!parsed.success) {
    if (connection.budget.countInvalid()) send(connection.socket, { type: 'error', error: 'invalid_message' });
    else refuseSocket(connection.socket, 'too many invalid messages');
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
