import type { Deps } from '../../../composition/platform.js';
import type { ZodApp } from '../../../kernel/http/zod-app.js';
import { getPublicStoreGame, listPublicStoreGames } from './route-options.js';
import type { CachedPayload } from '../../site/public/index.js';
import { PublicStoreService } from './service.js';

/** Public: GET /v1/public/store/games, GET /v1/public/store/games/{slug}. No public writes. */
export function registerPublicStoreRoutes(app: ZodApp, deps: Deps<'bus' | 'db'>): void {
  const publicStore = new PublicStoreService(deps.db, deps.bus);

  app.get('/v1/public/store/games', listPublicStoreGames, (request, reply) => {
    // Serialized once per change (see PublicStoreService): its bytes are sent as they are, at
    // once when kept (no promise), else once built.
    const send = (page: CachedPayload) => void reply.type('application/json; charset=utf-8').send(page.body as never);
    const key = publicStore.keyOf(request.query);
    const cached = publicStore.cached(key);
    if (cached !== undefined) return send(cached);
    return publicStore.list(request.query, key).then(send);
  });

  app.get('/v1/public/store/games/:slug', getPublicStoreGame, (request) => publicStore.get(request.params.slug));
}
