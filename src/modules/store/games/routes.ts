import { actorOf } from '../../../kernel/auth.js';
import type { Deps } from '../../../composition/platform.js';
import type { ZodApp } from '../../../kernel/http/zod-app.js';
import { createStoreGame, deleteStoreGame, getStoreGame, listStoreGames, updateStoreGame } from './route-options.js';
import { StoreGamesService } from './service.js';

/** Staff: GET|POST /v1/admin/store/games, GET|PATCH|DELETE /v1/admin/store/games/{id}. */
export function registerStoreGamesRoutes(app: ZodApp, deps: Deps<'db' | 'write'>): void {
  const games = new StoreGamesService(deps.db, deps.write);

  app.get('/v1/admin/store/games', listStoreGames, (request) => games.list(request.query));

  app.post('/v1/admin/store/games', createStoreGame, async (request, reply) =>
    reply.code(201).send(await games.create(actorOf(request), request.body)),
  );

  app.get('/v1/admin/store/games/:id', getStoreGame, (request) => games.get(request.params.id));

  app.patch('/v1/admin/store/games/:id', updateStoreGame, (request) =>
    games.update(actorOf(request), request.params.id, request.body),
  );

  app.delete('/v1/admin/store/games/:id', deleteStoreGame, async (request, reply) => {
    await games.delete(actorOf(request), request.params.id);
    return reply.code(204).send(null);
  });
}
