import type { PermissionKey } from '../permissions.js';
import type { Principal } from '../principal.js';
import type { RateLimitName } from '../rate-limits.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Permission keys of an admin route; holding any one admits the caller (OR). */
    perms?: readonly PermissionKey[];
    /** The spec limit this route counts against. */
    rateLimit?: RateLimitName;
  }

  interface FastifyRequest {
    principal: Principal | null;
  }
}
