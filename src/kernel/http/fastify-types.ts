import type { PermissionKey } from '../permissions.js';
import type { Principal } from '../principal.js';
import type { RateLimitName } from '../rate-limits.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Permission keys of an admin route; holding any one admits the caller (OR). */
    perms?: readonly PermissionKey[];
    /**
     * A `/v1/me` route for staff only: the caller must hold some permission key, whichever
     * (403 `forbidden` with `details.reason` `staff_only` otherwise). What no one role should gate.
     */
    staff?: true;
    /** The spec limit this route counts against. */
    rateLimit?: RateLimitName;
    /**
     * The application errors the route's own code answers, by status: each becomes a declared
     * response of the OpenAPI document whose `error` is one of these codes (openapi.ts). What the
     * request path answers for every route (401, 403, 429, 503…) is declared there already.
     */
    errors?: Readonly<
      Partial<Record<400 | 401 | 402 | 404 | 409 | 410 | 413 | 415 | 422 | 502 | 503, readonly string[]>>
    >;
  }

  interface FastifyRequest {
    principal: Principal | null;
  }
}
