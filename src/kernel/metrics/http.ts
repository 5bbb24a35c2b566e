import type { FastifyInstance } from 'fastify';
import type { IncomingMessage } from 'node:http';
import type { Metrics } from './metrics.js';
import { refusalOf } from './refusals.js';

/** Node marks a request asking to switch protocols; its typings do not say so. */
const isUpgrade = (request: IncomingMessage) => (request as IncomingMessage & { upgrade?: boolean }).upgrade === true;

/**
 * Request duration, requests in flight and refusals, measured by hooks installed before every
 * other (so a request shed or refused by the pipeline is timed and counted too). Callback hooks,
 * not async ones: every answer runs them, and a promise each is measurable (bench/). Installed
 * only with METRICS_PORT set: without it, no hook at all.
 */
export function installHttpMetrics(app: FastifyInstance, metrics: Metrics): void {
  const ended = () => metrics.requestEnded();

  // Named, so `printRoutes({ includeHooks: true })` shows them (the tests check they are absent when off).
  app.addHook('onRequest', function metricsRequestStarted(request, reply, done) {
    // A WebSocket handshake becomes a connection, not an answer: its response may never close.
    if (!isUpgrade(request.raw)) {
      metrics.requestStarted();
      // 'close' comes once per response, sent or abandoned by the client (onResponse misses the latter).
      reply.raw.on('close', ended);
    }
    done();
  });

  app.addHook('onResponse', function metricsRequestAnswered(request, reply, done) {
    // The route as declared (`/v1/admin/users/:id`), never the path asked for.
    metrics.requestAnswered(request.method, request.routeOptions.url, reply.statusCode, reply.elapsedTime / 1_000);
    done();
  });

  app.addHook('onError', function metricsRequestRefused(_request, _reply, error, done) {
    const refusal = refusalOf(error);
    if (refusal !== undefined) metrics.refused(refusal);
    done();
  });
}
