import websocket from '@fastify/websocket';
import { z } from 'zod';
import { actorOf } from '../../kernel/auth.js';
import type { Deps } from '../../composition/platform.js';
import type { ZodApp } from '../../kernel/http/zod-app.js';
import { AlertSubscriptionService } from '../alert-subscriptions/index.js';
import { acceptConnection } from './connection.js';
import { issueCredentials } from './credentials.js';
import { RealtimeHub } from './hub.js';
import { realtimeCredentials, realtimeQuery, upgradeRequired } from './schemas.js';
import { ticketKey } from './tickets.js';

const tags = ['realtime'];
/** Clients only ever send small `subscribe` frames. */
const MAX_CLIENT_FRAME_BYTES = 16 * 1024;

const SOCKET_DESCRIPTION = [
  'A WebSocket (answers 101 Switching Protocols; a plain HTTP request answers 426). No bearer token: pass the ' +
    'ticket of `GET /v1/me/realtime` as `?ticket=`. A forged, expired or missing ticket, or an account that is ' +
    'banned, deleted or signed out since the ticket was issued, is closed with code 1008 before any frame. A ticket ' +
    'may open several sockets during its 60 s life; an open socket outlives its ticket.',
  'The socket joins every channel of its ticket and says so: `{ "type": "subscribed", "channels": [...] }`. The ' +
    'client may send `{ "type": "subscribe", "channels": [...] }` to join exactly those of them (again answered ' +
    '`subscribed`); a channel the socket may not join is refused with `{ "type": "error", "error": ' +
    '"channel_not_allowed", "channels": [...] }` and never joined; an unreadable frame gets `{ "type": "error", ' +
    '"error": "invalid_message" }`.',
  'Frames: `{ "type": "event", "channel": "dashboard" | "area:<area>" | "alerts:<role key>", "id", "name", ' +
    '"payload", "actor_id", "at" }` (`actor_id`: the staff member whose write published it, null for the ' +
    "service's own) for kernel dashboard events (on `dashboard`, and those of the support and email areas on " +
    '`area:support` and `area:email` as well), and for alerts (e.g. `panic_mode_changed`) once per socket on one of its joined ' +
    'channels of a role subscribed to the alert; `{ "type": "notification", "channel": "user:<id>", "notification": ' +
    '{ id, kind, title, body, action_url, starts_at, ends_at, created_at, read, read_at }, "at" }` when a broadcast ' +
    'reaches the user; and `{ "type": "event", "channel": "user:<id>", "name": "ops.panic_changed", "payload": { ' +
    '"level" } }` to every socket when the maintenance level changes (who and why: `GET /v1/me/maintenance`). ' +
    'Events published on any instance reach sockets on every instance.',
  'The server pings every 25 s and drops a socket that missed the previous ping; it closes a socket with 1008 ' +
    '`account refused` once its user is banned, deleted or signed out everywhere, and with 1001 when the service ' +
    'shuts down.',
  'A socket stays only in the channels its user may join now: when a role is revoked, a grant expires, or a ' +
    "role's permissions or alert subscriptions change, the socket leaves the channels no longer allowed and is told " +
    'with `channel_not_allowed` naming them, then `subscribed` with what it still has; a ticket issued before such ' +
    'a change joins only what is allowed when it connects.',
  [
    'What a socket may send: a burst of 20 frames (pings and pongs count), then 10 a second, else it is closed',
    'with 1008 `too many frames`; 5 unreadable frames in its life, the sixth closes it with 1008 `too many invalid',
    'messages`; frames of at most 16 KiB (1009 past it). A client that leaves more than 256 KiB of frames unread is',
    'closed with 1008 `too much unread output`.',
  ].join(' '),
  [
    'Caps: one instance holds at most `REALTIME_MAX_SOCKETS` sockets (default 10,000), and at most',
    "`REALTIME_MAX_SOCKETS_PER_USER` (default 8) of one user. A socket past the user's cap is closed with 1008",
    "`too many sockets for this user`; past the instance's, with 1013 (try again later) `too many sockets on this",
    'instance`, before any frame. Open sockets do not count as requests in flight (`MAX_REQUESTS_IN_FLIGHT`).',
  ].join(' '),
].join('\n\n');

/** GET /v1/me/realtime (credentials) and GET /v1/realtime (the socket). */
export function registerRealtimeRoutes(
  app: ZodApp,
  deps: Deps<'config' | 'db' | 'events' | 'load' | 'log' | 'metrics' | 'signingKey' | 'userChanges' | 'write'>,
): void {
  // Read lazily: the email token key may come from the database once the kernel has started.
  let key: Buffer | undefined;
  const ticketKeyNow = () => {
    key ??= ticketKey(deps.signingKey);
    return key;
  };
  const alerts = new AlertSubscriptionService(deps.db, deps.write);

  app.get(
    '/v1/me/realtime',
    {
      schema: {
        operationId: 'getMyRealtimeCredentials',
        tags,
        summary: 'Realtime credentials',
        description:
          'A ticket for the realtime socket, good for 60 s, naming the caller and the channels they may join: ' +
          '`user:<id>` (their notifications) always; `dashboard` (every dashboard event: live staff activity, as ' +
          'the audit log shows it) with `audit.read`; `area:support` with `support.read` and `area:email` with ' +
          "`email.read` (that area's dashboard events: tickets opened and answered, campaigns launched, paused, " +
          'sent); `alerts:<role key>` for each role of the caller subscribed ' +
          'to alerts (`PUT /v1/admin/roles/{id}/alerts`; e.g. `panic_mode_changed`, maintenance changes). ' +
          'Permissions and roles are read when the ticket is issued.',
        response: { 200: realtimeCredentials },
      },
    },
    async (request) => {
      const actor = actorOf(request);
      const now = new Date();
      return issueCredentials(
        ticketKeyNow(),
        deps.config,
        actor.userId,
        actor.permissions,
        await alerts.roleKeysHeardBy(actor.userId, now),
        now,
      );
    },
  );

  void app.register(async (scope) => {
    const hub = new RealtimeHub(deps.db, deps.events, deps.userChanges, deps.log, {
      perInstance: deps.config.realtimeMaxSockets,
      perUser: deps.config.realtimeMaxSocketsPerUser,
    });
    deps.metrics?.readAtScrape(
      'realtime_connections',
      'Realtime WebSockets open on this instance now.',
      () => hub.connections,
    );
    // Added before the plugin's own preClose (which closes without a code): clients hear 1001 "going away".
    scope.addHook('preClose', (done) => {
      hub.close();
      done();
    });
    await scope.register(websocket, { options: { maxPayload: MAX_CLIENT_FRAME_BYTES } });
    hub.start();

    scope.route({
      method: 'GET',
      url: '/v1/realtime',
      schema: {
        operationId: 'openRealtimeSocket',
        tags,
        summary: 'Realtime socket',
        description: SOCKET_DESCRIPTION,
        querystring: realtimeQuery,
        response: {
          101: z.null().describe('Switching Protocols: the connection becomes the WebSocket described above.'),
          426: upgradeRequired.describe('A plain HTTP request: connect with a WebSocket client.'),
        },
      },
      handler: (_request, reply) =>
        reply
          .code(426)
          .header('upgrade', 'websocket')
          .send({ error: 'upgrade_required' as const }),
      // The ws handler's request is not typed by the provider; the schema has already validated it.
      wsHandler: (socket, request) => {
        // An open socket is no request in flight: it has caps of its own (the hub's places).
        deps.load.upgraded(request.raw);
        return acceptConnection(hub, ticketKeyNow(), socket, (request.query as { ticket?: string }).ticket);
      },
    });
  });
}
