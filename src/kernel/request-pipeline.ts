import type { FastifyInstance, FastifyRequest } from 'fastify';
import { authenticate, routeArea, type RouteArea } from './auth.js';
import type { Kernel } from './kernel.js';
import { overloaded } from './errors.js';
import { isHealthRoute } from './http/health-routes.js';
import { admitRequest } from './http/overload.js';
import { stampAnswer } from './http/request-id.js';
import { RATE_LIMITS, type RateLimitName } from './rate-limits.js';

/**
 * The order every request takes (DESIGN "The request path"): request id → load shedding (past
 * `MAX_REQUESTS_IN_FLIGHT`, 503 before any work: overload.ts) → maintenance gate
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
  // ratio, and requests that ended on a failing database. Health probes would dilute the ratio
  // (and a readiness 503 is already a report of a failure counted elsewhere).
  // Callback hooks, not async ones: every answer runs them, and a promise each is measurable (bench/).
  app.addHook('onError', (_request, _reply, error, done) => {
    kernel.signals.recordRequestError(error);
    done();
  });
  app.addHook('onResponse', (request, reply, done) => {
    if (!isHealthRoute(request.routeOptions.url)) kernel.signals.recordResponse(reply.statusCode);
    done();
  });

  const guard = async (
    request: FastifyRequest,
    area: RouteArea,
    limitName: RateLimitName | undefined,
  ): Promise<void> => {
    if (area !== 'open') request.principal = await authenticate(kernel, request, area);
    if (limitName !== undefined) {
      const rule = RATE_LIMITS[limitName];
      const subject =
        rule.keyedBy === 'user' && request.principal ? `user:${request.principal.userId}` : `ip:${request.ip}`;
      await kernel.limiter.consume(limitName, subject);
    }
  };

  // A callback hook whose open, unlimited routes (health, public reads) finish synchronously:
  // no promise on the path every cheap answer takes.
  app.addHook('onRequest', (request, reply, done) => {
    stampAnswer(request, reply);
    if (!admitRequest(kernel.load, request, reply)) return done(overloaded());
    // Every rule below decides on the route the router matched, never on the raw URL.
    const path = request.routeOptions.url;
    if (path === undefined) return done(); // unknown route: the not-found handler answers 404
    const panicRefusal = kernel.panic.refusal(request.method, path);
    if (panicRefusal !== undefined) return done(panicRefusal);
    const area = routeArea(path);
    const limitName = request.routeOptions.config.rateLimit;
    if (area === 'open') {
      if (limitName === undefined) return done();
      // A flood past an open route's limit is refused here, before any promise (rate-limits.ts).
      const refusal = kernel.limiter.knownRefusal(limitName, `ip:${request.ip}`);
      if (refusal !== undefined) return done(refusal);
    }
    guard(request, area, limitName).then(() => done(), done);
  });
}
