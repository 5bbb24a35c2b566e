import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyBaseLogger } from 'fastify';
import type { Registry } from 'prom-client';

/** A scrape is one small request: a client slower than this is not Prometheus. */
const SCRAPE_HEADERS_TIMEOUT_MS = 5_000;
const SCRAPE_REQUEST_TIMEOUT_MS = 10_000;

/** Binding errors, by the setting that is wrong (as main.ts names HOST and PORT's). */
const LISTEN_FAILURES: Record<string, (port: number, host: string) => string> = {
  ENOTFOUND: (_port, host) => `METRICS_HOST: "${host}" is not a known host name`,
  EAI_AGAIN: (_port, host) => `METRICS_HOST: "${host}" could not be resolved (the name service did not answer)`,
  EADDRNOTAVAIL: (_port, host) => `METRICS_HOST: ${host} is not an address of this machine`,
  EADDRINUSE: (port, host) => `METRICS_PORT: ${port} is already in use on ${host}`,
  EACCES: (port, host) => `METRICS_PORT: ${port} on ${host} needs privileges this process does not have`,
};

/**
 * The Prometheus listener: `GET /metrics` in the text format, 404 for anything else. A plain
 * node:http server apart from the API's listener, so the metrics are never reachable where the
 * API is (no route, no hook, no rate limit or maintenance gate of the API applies to it, and a
 * scrape is never counted among the API's requests).
 */
export class MetricsListener {
  #server: Server | undefined;

  constructor(
    private readonly registry: Registry,
    private readonly log: FastifyBaseLogger,
  ) {}

  /** Listens on `host:port`; the port it got (the same unless 0). A failure names the setting at fault. */
  async listen(port: number, host: string): Promise<number> {
    const server = createServer((request, response) => {
      const path = (request.url ?? '').split('?', 1)[0];
      if (path !== '/metrics' || (request.method !== 'GET' && request.method !== 'HEAD')) {
        response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
        response.end('not found: the metrics are at GET /metrics\n');
        return;
      }
      this.registry.metrics().then(
        (text) => {
          response.writeHead(200, { 'content-type': this.registry.contentType });
          response.end(request.method === 'HEAD' ? undefined : text);
        },
        (error: unknown) => {
          this.log.error({ err: error }, 'collecting the metrics failed');
          response.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
          response.end('collecting the metrics failed\n');
        },
      );
    });
    server.headersTimeout = SCRAPE_HEADERS_TIMEOUT_MS;
    server.requestTimeout = SCRAPE_REQUEST_TIMEOUT_MS;
    try {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => {
          server.off('error', reject);
          resolve();
        });
      });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? '';
      const named = LISTEN_FAILURES[code];
      // No `code` on the new error: main.ts would read EADDRINUSE as PORT's.
      throw named === undefined ? error : new Error(`${named(port, host)} (${(error as Error).message})`);
    }
    this.#server = server;
    return (server.address() as AddressInfo).port;
  }

  /** Stops listening and ends open scrape connections (Prometheus keeps them alive between scrapes). */
  async close(): Promise<void> {
    const server = this.#server;
    if (server === undefined) return;
    this.#server = undefined;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    await closed;
  }
}
