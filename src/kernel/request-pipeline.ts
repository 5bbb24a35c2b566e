import type { FastifyInstance } from 'fastify';
import { authenticate, routeArea } from './auth.js';
import type { Kernel } from './kernel.js';
import { RATE_LIMITS } from './rate-limits.js';

/**
 * The order every request takes (DESIGN "The request path"): request id → maintenance gate
 * (before auth) → bearer/JWT, account status, route permission → rate limit → then Fastify
 * parses and validates the body (400 SchemaError) and the handler runs.
 */
export function installRequestPipeline(app: FastifyInstance, kernel: Kernel): void {
  app.decorateRequest('principal', null);

  // An admin route without permission keys would be open to every signed-in user: refuse to boot.
  app.addHook('onRoute', (route) => {
    const paths = [route.url, route.path].filter((p): p is string => typeof p === 'string');
    if (paths.some((p) => routeArea(p) === 'admin') && !(route.config?.perms && route.config.perms.length > 0)) {
      throw new Error(`admin route ${route.method} ${route.url} declares no permission keys`);
    }
  });

  // Incident signals, counted in memory (the monitor flushes them): this service's own 5xx
  // ratio, and requests that ended on a failing database. `/health` polling would dilute the ratio.
  app.addHook('onError', async (_request, _reply, error) => kernel.signals.recordRequestError(error));
  app.addHook('onResponse', async (request, reply) => {
    if (request.routeOptions.url !== '/health') kernel.signals.recordResponse(reply.statusCode);
  });

  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
    kernel.panic.check(request.method, request.url);
    const path = request.routeOptions.url;
    if (path === undefined) return; // unknown route: the not-found handler answers 404
    const area = routeArea(path);
    if (area !== 'open') request.principal = await authenticate(kernel, request, area);
    const limitName = request.routeOptions.config.rateLimit;
    if (limitName !== undefined) {
      const rule = RATE_LIMITS[limitName];
      const subject = rule.keyedBy === 'user' && request.principal ? `user:${request.principal.userId}` : `ip:${request.ip}`;
      await kernel.limiter.consume(limitName, subject);
    }
  });
}
