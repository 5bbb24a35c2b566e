import websocket from '@fastify/websocket';
import { z } from 'zod';
import { actorOf } from '../../kernel/auth.js';
import type { Deps } from '../../composition/platform.js';
import type { ZodApp } from '../../kernel/http/zod-app.js';
import { AlertSubscriptionService } from '../operations/alert-subscriptions/index.js';
import { acceptConnection } from './connection.js';
import { issueCredentials } from './credentials.js';
import { RealtimeHub } from './hub.js';
import { realtimeCredentials, realtimeQuery, upgradeRequired } from './schemas.js';
import { ticketKey } from './tickets.js';

const tags = ['realtime'];
/** Clients only ever send small `subscribe` frames. */
const MAX_CLIENT_FRAME_BYTES = 16 * 1024;

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
          'A ticket for the realtime socket (`GET /v1/realtime`), good for 60 s, naming the caller and the ' +
          'channels their permissions and roles let them join. In depth: ' +
          '[docs/api/realtime.md](docs/api/realtime.md#realtime-credentials).',
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
        description:
          "The realtime WebSocket: pass the ticket of `GET /v1/me/realtime` as `?ticket=`. It joins the ticket's " +
          'channels and sends dashboard events, alerts, notifications and maintenance changes. In depth: ' +
          '[docs/api/realtime.md](docs/api/realtime.md#realtime-socket).',
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
