import type { Socket } from 'node:net';
import { createPlatformClient, type PlatformClient, type PlatformClientOptions } from '../../sdk/src/index.js';
import { startTestApp, type TestApp, type TestAppOptions } from '../helpers/app.js';
import { closedPort } from '../helpers/ports.js';

/** The real service listening on a loopback port, as the SDK reaches it: over HTTP. */
export interface ListeningApp extends TestApp {
  baseUrl: string;
  /** The TCP connections of the WebSockets open on the server, so a test can cut them as a network would. */
  webSockets: Set<Socket>;
}

/**
 * Listens on a port chosen first, so the service's public base URL (the realtime ticket's `url`)
 * is the address it really answers on.
 */
export async function startListeningApp(options: TestAppOptions = {}): Promise<ListeningApp> {
  const port = await closedPort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const t = await startTestApp({ ...options, config: { publicBaseUrl: baseUrl, ...options.config } });
  const webSockets = new Set<Socket>();
  // Beside @fastify/websocket's own listener, which answers the upgrade.
  t.app.server.on('upgrade', (_request, socket: Socket) => {
    webSockets.add(socket);
    socket.on('close', () => webSockets.delete(socket));
  });
  await t.app.listen({ port, host: '127.0.0.1' });
  return Object.assign(t, { baseUrl, webSockets });
}

/** A request the client sent: method, path with query, and the headers the tests look at. */
export interface SentRequest {
  method: string;
  url: URL;
  authorization: string | null;
  idempotencyKey: string | null;
}

/** A client of the app whose transport records each request it sends. */
export function recordingClient(
  app: ListeningApp,
  options: Omit<PlatformClientOptions, 'baseUrl' | 'fetch'> = {},
): { client: PlatformClient; sent: SentRequest[] } {
  const sent: SentRequest[] = [];
  const client = createPlatformClient({
    ...options,
    baseUrl: app.baseUrl,
    fetch: (request) => {
      sent.push({
        method: request.method,
        url: new URL(request.url),
        authorization: request.headers.get('authorization'),
        idempotencyKey: request.headers.get('idempotency-key'),
      });
      return fetch(request);
    },
  });
  return { client, sent };
}
