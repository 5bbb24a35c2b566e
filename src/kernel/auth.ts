import type { FastifyRequest } from 'fastify';
import type { Actor } from './actor.js';
import { AppError, forbidden, unauthorized } from './errors.js';
import { permText } from './permissions.js';
import { cachedPrincipal, resolvePrincipal, type ClientContext, type Principal } from './principal.js';
import type { Kernel } from './kernel.js';

export type RouteArea = 'admin' | 'me' | 'open';

/** Which guard a route path gets: staff routes, the caller's own routes, or none. */
export function routeArea(path: string): RouteArea {
  if (path === '/v1/admin' || path.startsWith('/v1/admin/')) return 'admin';
  if (path === '/v1/me' || path.startsWith('/v1/me/')) return 'me';
  return 'open';
}

function bearerToken(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const match = /^Bearer[ ]+([^ ]+)[ ]*$/i.exec(header);
  return match?.[1];
}

const ACCOUNT_REFUSALS = { banned: 'account_banned', deleted: 'account_deleted' } as const;

/**
 * The guard of `/v1/me` and `/v1/admin`: bearer → verified token → principal (user row and
 * permissions) → account status → the route's permission keys (admin; any one suffices), or for a
 * staff-only `/v1/me` route, any key at all. `route`: its keys and staff mark, worked out at start
 * (request-pipeline.ts).
 */
export async function authenticate(
  kernel: Kernel,
  request: FastifyRequest,
  area: Exclude<RouteArea, 'open'>,
  route: { perms: readonly string[]; staff: boolean },
): Promise<Principal> {
  const token = bearerToken(request.headers.authorization);
  if (token === undefined) throw unauthorized('missing_token');
  const verified = await kernel.tokens.verify(token);
  const principal = await resolvePrincipal(
    kernel.principalStore,
    verified,
    clientOf(request),
    new Date(),
    kernel.principals,
  );
  return admitted(principal, area, route);
}

/**
 * `authenticate` at once, when the token's verification and the principal are both kept and
 * nothing is to be written (the common signed-in request): no promise. Undefined: nothing kept,
 * `authenticate` decides. Throws the same refusals.
 */
export function authenticateKnown(
  kernel: Kernel,
  request: FastifyRequest,
  area: Exclude<RouteArea, 'open'>,
  route: { perms: readonly string[]; staff: boolean },
): Principal | undefined {
  const token = bearerToken(request.headers.authorization);
  if (token === undefined) throw unauthorized('missing_token');
  const verified = kernel.tokens.known?.(token);
  if (verified === undefined) return undefined;
  const principal = cachedPrincipal(verified, kernel.principals, new Date());
  return principal === undefined ? undefined : admitted(principal, area, route);
}

/** Account status, sign-out and the route's permission keys: the guard's verdict on a principal. */
function admitted(
  principal: Principal,
  area: Exclude<RouteArea, 'open'>,
  route: { perms: readonly string[]; staff: boolean },
): Principal {
  if (principal.signedOut) throw unauthorized('invalid_token');
  if (principal.status !== 'active') throw forbidden({ reason: ACCOUNT_REFUSALS[principal.status] });
  if (area === 'admin') {
    if (!principal.permissions.hasAny(route.perms)) throw forbidden({ perm: permText(route.perms) });
  } else if (route.staff && !principal.permissions.isStaff()) {
    throw forbidden({ reason: 'staff_only' });
  }
  return principal;
}

const MAX_USER_AGENT = 512;

/** The client's address and user agent as audit rows and login sessions keep them. */
export function clientOf(request: FastifyRequest): ClientContext {
  const userAgent = request.headers['user-agent'];
  return {
    ip: request.ip ?? null,
    userAgent: typeof userAgent === 'string' ? userAgent.slice(0, MAX_USER_AGENT) : null,
  };
}

/** The signed-in caller as the guard resolved it; only valid on guarded routes. */
export function principalOf(request: FastifyRequest): Principal {
  const principal = request.principal;
  if (principal === null) throw new AppError(500, 'internal');
  return principal;
}

/** The signed-in caller as a plain value for services; only valid on guarded routes. */
export function actorOf(request: FastifyRequest): Actor {
  const principal = principalOf(request);
  return {
    userId: principal.userId,
    permissions: principal.permissions,
    requestId: request.id,
    ...clientOf(request),
  };
}
