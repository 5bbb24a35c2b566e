import { actorOf } from '../../../kernel/auth.js';
import type { Deps } from '../../../composition/platform.js';
import type { ZodApp } from '../../../kernel/http/zod-app.js';
import { TERM_KIND_NAMES } from '../term-kinds.js';
import { termRoutes } from './route-options.js';
import { StoreTermsService } from './service.js';

/** Staff: GET|POST /v1/admin/store/{genres,developers,publishers}, PATCH|DELETE …/{id}. */
export function registerStoreTermsRoutes(app: ZodApp, deps: Deps<'db' | 'write'>): void {
  for (const kind of TERM_KIND_NAMES) {
    const terms = new StoreTermsService(deps.db, kind, deps.write);
    const route = termRoutes(kind);
    const path = `/v1/admin/store/${kind}`;

    app.get(path, route.list, (request) => terms.list(request.query));

    app.post(path, route.create, async (request, reply) =>
      reply.code(201).send(await terms.create(actorOf(request), request.body)),
    );

    app.patch(`${path}/:id`, route.rename, (request) =>
      terms.update(actorOf(request), request.params.id, request.body),
    );

    app.delete(`${path}/:id`, route.delete, async (request, reply) => {
      await terms.delete(actorOf(request), request.params.id);
      return reply.code(204).send(null);
    });
  }
}
