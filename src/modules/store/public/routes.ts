import type { Deps } from '../../../composition/platform.js';
import type { ZodApp } from '../../../kernel/http/zod-app.js';
import { getPublicStoreGame, listPublicStoreGames } from './route-options.js';
import { PublicStoreService } from './service.js';

/** Public: GET /v1/public/store/games, GET /v1/public/store/games/{slug}. No public writes. */
export function registerPublicStoreRoutes(app: ZodApp, deps: Deps<'bus' | 'db'>): void {
  const publicStore = new PublicStoreService(deps.db, deps.bus);

  app.get('/v1/public/store/games', listPublicStoreGames, async (request, reply) => {
    // Serialized once per change (see PublicStoreService): a JSON string is sent as it is.
    const page = await publicStore.list(request.query);
    return reply.type('application/json; charset=utf-8').send(page.body as never);
  });

  app.get('/v1/public/store/games/:slug', getPublicStoreGame, (request) => publicStore.get(request.params.slug));
}
