import websocket from '@fastify/websocket';
import { actorOf } from '../../kernel/auth.js';
import type { ZodApp } from '../../kernel/http/zod-app.js';
import { getMyRealtimeCredentials, openRealtimeSocket } from './route-options.js';
import { type RealtimeDeps, RealtimeService } from './service.js';

/** Clients only ever send small `subscribe` frames. */
const MAX_CLIENT_FRAME_BYTES = 16 * 1024;

/** GET /v1/me/realtime (credentials) and GET /v1/realtime (the socket). */
export function registerRealtimeRoutes(app: ZodApp, deps: RealtimeDeps): void {
  const realtime = new RealtimeService(deps);

  app.get('/v1/me/realtime', getMyRealtimeCredentials, (request) => realtime.credentials(actorOf(request)));

  void app.register(async (scope) => {
    // Added before the plugin's own preClose (which closes without a code): clients hear 1001 "going away".
    scope.addHook('preClose', (done) => {
      realtime.hub.close();
      done();
    });
    await scope.register(websocket, { options: { maxPayload: MAX_CLIENT_FRAME_BYTES } });
    realtime.hub.start();

    scope.route({
      method: 'GET',
      url: '/v1/realtime',
      ...openRealtimeSocket,
      handler: (_request, reply) =>
        reply
          .code(426)
          .header('upgrade', 'websocket')
          .send({ error: 'upgrade_required' as const }),
      // The ws handler's request is not typed by the provider; the schema has already validated it.
      wsHandler: (socket, request) => {
        // An open socket is no request in flight: it has caps of its own (the hub's places).
        deps.load.upgraded(request.raw);
        return realtime.accept(socket, (request.query as { ticket?: string }).ticket);
      },
    });
  });
}
