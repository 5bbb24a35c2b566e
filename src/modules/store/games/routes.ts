import { actorOf } from '../../../kernel/auth.js';
import type { Deps } from '../../../composition/platform.js';
import type { ZodApp } from '../../../kernel/http/zod-app.js';
import { createGameRoute, deleteGameRoute, getGameRoute, listGamesRoute, updateGameRoute } from './schemas.js';
import { StoreGamesService } from './service.js';

/** Staff: GET|POST /v1/admin/store/games, GET|PATCH|DELETE /v1/admin/store/games/{id}. */
export function registerStoreGamesRoutes(app: ZodApp, deps: Deps<'db' | 'write'>): void {
  const games = new StoreGamesService(deps.db, deps.write);

  app.get('/v1/admin/store/games', listGamesRoute, (request) => games.list(request.query));

  app.post('/v1/admin/store/games', createGameRoute, async (request, reply) =>
    reply.code(201).send(await games.create(actorOf(request), request.body)),
  );

  app.get('/v1/admin/store/games/:id', getGameRoute, (request) => games.get(request.params.id));

  app.patch('/v1/admin/store/games/:id', updateGameRoute, (request) =>
    games.update(actorOf(request), request.params.id, request.body),
  );

  app.delete('/v1/admin/store/games/:id', deleteGameRoute, async (request, reply) => {
    await games.delete(actorOf(request), request.params.id);
    return reply.code(204).send(null);
  });
}
