import type {
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  HookHandlerDoneFunction,
  onRequestHookHandler,
  onResponseHookHandler,
  RouteOptions,
} from 'fastify';
import { authenticate, authenticateKnown, routeArea, type RouteArea } from './auth.js';
import type { Principal } from './principal.js';
import type { Kernel } from './kernel.js';
import { type AppError, overloaded, sendAppError } from './errors.js';
import { refusalOf } from './metrics/refusals.js';
import { isHealthRoute } from './http/health-routes.js';
import { admitRequest } from './http/overload.js';
import { stampAnswer } from './http/request-id.js';
import { hooksOf } from './http/route-hooks.js';
import { RATE_LIMITS, type RateLimitName } from './rate-limits.js';

/**
 * What the request path needs to know of a route, worked out once when the route is declared
 * (onRoute), not on every request: Fastify's `request.routeOptions` builds a new object on each
 * read, and the path read it four times per answer.
 */
export interface RouteFacts {
  /** The route as declared (`/v1/admin/users/:id`); undefined: no route matched (the 404 handler). */
  path: string | undefined;
  area: RouteArea;
  /** A health probe: always admitted, never counted (health-routes.ts). */
  health: boolean;
  rateLimit: RateLimitName | undefined;
  perms: readonly string[];
  staff: boolean;
}

export function routeFacts(path: string | undefined, config: RouteOptions['config']): RouteFacts {
  return {
    path,
    area: path === undefined ? 'open' : routeArea(path),
    health: isHealthRoute(path),
    rateLimit: config?.rateLimit,
    perms: config?.perms ?? [],
    staff: config?.staff === true,
  };
}

/** The facts of the answers no route gave (404): open, unlimited, counted. */
const NO_ROUTE = routeFacts(undefined, undefined);

export interface RequestPipeline {
  /** The 404 handler's hooks (it is no route, so onRoute never sees it): errors.ts installs them. */
  notFoundHooks: { onRequest: onRequestHookHandler; onResponse: onResponseHookHandler };
}

/**
 * The order every request takes (DESIGN "The request path"): request id → load shedding (past
 * `MAX_REQUESTS_IN_FLIGHT`, 503 before any work: overload.ts) → maintenance gate
 * (before auth) → bearer/JWT, account status, route permission → rate limit → then Fastify
 * parses and validates the body (400 SchemaError) and the handler runs.
 *
 * One pass: each route gets one onRequest and one onResponse hook of the kernel's, closed over
 * its facts (decision 0105), instead of global hooks that looked the route up again on every
 * request. Route hooks run after the global ones (metrics, CORS), as these did.
 */
export function installRequestPipeline(app: FastifyInstance, kernel: Kernel): RequestPipeline {
  app.decorateRequest('principal', null);

  // Incident signals, counted in memory (the monitor flushes them): requests that ended on a
  // failing database. Errors are rare: a global hook, off the path of every answer.
  app.addHook('onError', (_request, _reply, error, done) => {
    kernel.signals.recordRequestError(error);
    done();
  });

  const guard = async (request: FastifyRequest, facts: RouteFacts): Promise<void> => {
    if (facts.area !== 'open') request.principal = await authenticate(kernel, request, facts.area, facts);
    const limitName = facts.rateLimit;
    if (limitName !== undefined) {
      const rule = RATE_LIMITS[limitName];
      const subject =
        rule.keyedBy === 'user' && request.principal ? `user:${request.principal.userId}` : `ip:${request.ip}`;
      await kernel.limiter.consume(limitName, subject);
    }
  };

  // The refusals this hook knows at once (load shedding, the maintenance gate, a used-up rate
  // limit) are answered here rather than passed to Fastify's error path. They would reach the
  // error handler unchanged; only its onError hooks would run in between. Of those, the metrics
  // hook is counted here. The incident signals count database failures, and none of these is one.
  // Measured: a 429 past the waitlist limit, 27.9 -> 25.2 µs of CPU (bench/README.md).
  const metrics = kernel.metrics;
  const refuse = (reply: FastifyReply, refusal: AppError): void => {
    if (metrics !== undefined) {
      const counted = refusalOf(refusal);
      if (counted !== undefined) metrics.refused(counted);
    }
    sendAppError(reply, refusal);
  };

  // A callback hook whose open, unlimited routes (health, public reads) finish synchronously:
  // no promise on the path every cheap answer takes.
  const onRequestOf = (facts: RouteFacts) =>
    function kernelRequest(request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) {
      stampAnswer(request, reply);
      if (!admitRequest(kernel.load, request, reply, facts.health)) return refuse(reply, overloaded());
      // Every rule below decides on the route the router matched, never on the raw URL.
      const path = facts.path;
      if (path === undefined) return done(); // unknown route: the not-found handler answers 404
      const panicRefusal = kernel.panic.refusal(request.method, path);
      if (panicRefusal !== undefined) return refuse(reply, panicRefusal);
      if (facts.area === 'open') {
        if (facts.rateLimit === undefined) return done();
        // A flood past an open route's limit is refused here, before any promise (rate-limits.ts).
        const refusal = kernel.limiter.knownRefusal(facts.rateLimit, `ip:${request.ip}`);
        if (refusal !== undefined) return refuse(reply, refusal);
      } else if (facts.rateLimit === undefined) {
        // A signed-in caller whose token and principal are kept, and who is not due a sighting:
        // decided at once, with the same checks and refusals (auth.ts), no promise.
        let principal: Principal | undefined;
        try {
          principal = authenticateKnown(kernel, request, facts.area, facts);
        } catch (refusal) {
          return done(refusal as Error);
        }
        if (principal !== undefined) {
          request.principal = principal;
          return done();
        }
      }
      guard(request, facts).then(() => done(), done);
    };

  // Incident signals: this service's own 5xx ratio. Health probes would dilute it (and a
  // readiness 503 is already a report of a failure counted elsewhere).
  const onResponseOf = (facts: RouteFacts) =>
    function kernelResponse(_request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) {
      if (!facts.health) kernel.signals.recordResponse(reply.statusCode);
      done();
    };

  app.addHook('onRoute', (route) => {
    // An admin route without permission keys would be open to every signed-in user: refuse to boot.
    const paths = [route.url, route.path].filter((p): p is string => typeof p === 'string');
    if (paths.some((p) => routeArea(p) === 'admin') && !(route.config?.perms && route.config.perms.length > 0)) {
      throw new Error(`admin route ${route.method} ${route.url} declares no permission keys`);
    }
    // `url` is the path as declared with its prefix, what `request.routeOptions.url` answered.
    const facts = routeFacts(route.url, route.config);
    route.onRequest = [onRequestOf(facts), ...hooksOf(route.onRequest)];
    route.onResponse = [onResponseOf(facts), ...hooksOf(route.onResponse)];
  });

  return { notFoundHooks: { onRequest: onRequestOf(NO_ROUTE), onResponse: onResponseOf(NO_ROUTE) } };
}
