import { actorOf } from '../../kernel/auth.js';
import type { Deps } from '../../composition/platform.js';
import type { ZodApp } from '../../kernel/http/zod-app.js';
import { GameSessionsService } from './service.js';
import {
  getRuntimeSession,
  listMyGameSessions,
  listRuntimeSessions,
  startMyGameSession,
  stopMyGameSession,
  stopRuntimeSession,
} from './route-options.js';

/** A start waits at most this long beyond the runtime client's own timeouts before a new start may question it. */
const START_DEADLINE_MARGIN_MS = 5_000;

type SessionDeps = Deps<'config' | 'db' | 'log' | 'runtime' | 'write'>;

/** The player's sessions: start one, stop it, list past ones. */
export function registerMyGameSessionRoutes(app: ZodApp, deps: SessionDeps): void {
  const sessions = gameSessions(deps);

  app.post('/v1/me/sessions', startMyGameSession, async (request, reply) =>
    reply.code(201).send(await sessions.start(actorOf(request).userId, request.body.game_id)),
  );

  app.post('/v1/me/sessions/stop', stopMyGameSession, async (request, reply) => {
    await sessions.stopMine(actorOf(request).userId);
    return reply.code(204).send(null);
  });

  app.get('/v1/me/game-sessions', listMyGameSessions, (request) =>
    sessions.listMine(actorOf(request).userId, request.query),
  );
}

/** Staff's view of the sessions under way: list, read, stop. */
export function registerRuntimeSessionRoutes(app: ZodApp, deps: SessionDeps): void {
  const sessions = gameSessions(deps);

  app.get('/v1/admin/runtime/sessions', listRuntimeSessions, (request) => sessions.list(request.query));

  app.get('/v1/admin/runtime/sessions/:id', getRuntimeSession, (request) => sessions.get(request.params.id));

  app.post('/v1/admin/runtime/sessions/:id/stop', stopRuntimeSession, (request) =>
    sessions.stopByStaff(actorOf(request), request.params.id, request.body?.reason),
  );
}

function gameSessions(deps: SessionDeps): GameSessionsService {
  return new GameSessionsService({
    db: deps.db,
    write: deps.write,
    runtime: () => deps.runtime,
    startDeadlineMs: deps.config.runtimeConnectTimeoutMs + deps.config.runtimeTimeoutMs + START_DEADLINE_MARGIN_MS,
    warn: (details, message) => deps.log.warn(details, message),
  });
}
