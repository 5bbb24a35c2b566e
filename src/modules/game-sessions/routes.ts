import { z } from 'zod';
import { actorOf } from '../../kernel/auth.js';
import type { Deps } from '../../composition/platform.js';
import type { ZodApp } from '../../kernel/http/zod-app.js';
import {
  gameSessionBody,
  listSessionsQuery,
  mySessionsPage,
  mySessionsQuery,
  sessionIdParams,
  sessionsPage,
  staffStopBody,
  startSessionBody,
  startedSessionBody,
} from './schemas.js';
import { GameSessionsService } from './service.js';

const READ = { perms: ['runtime.read'] } as const;
const WRITE = { perms: ['runtime.write'] } as const;
const noContent = { 204: z.null().describe('Done') };
const tags = ['game sessions'];
const cursorRule =
  "`limit` 1..100 (default 25) and `cursor` (the previous page's `meta.next_cursor`); newest first. A cursor this " +
  'list did not return is a 400 SchemaError on `cursor`.';
/** A start waits at most this long beyond the runtime client's own timeouts before a new start may question it. */
const START_DEADLINE_MARGIN_MS = 5_000;

/**
 * Player: POST /v1/me/sessions, POST /v1/me/sessions/stop, GET /v1/me/game-sessions.
 * Staff:  GET /v1/admin/runtime/sessions, GET …/{id}, POST …/{id}/stop.
 */
export function registerGameSessionRoutes(
  app: ZodApp,
  deps: Deps<'config' | 'db' | 'log' | 'runtime' | 'write'>,
): void {
  const sessions = new GameSessionsService({
    db: deps.db,
    write: deps.write,
    runtime: () => deps.runtime,
    startDeadlineMs: deps.config.runtimeConnectTimeoutMs + deps.config.runtimeTimeoutMs + START_DEADLINE_MARGIN_MS,
    warn: (details, message) => deps.log.warn(details, message),
  });

  app.post(
    '/v1/me/sessions',
    {
      config: { errors: { 404: ['game_not_found'], 409: ['conflict'] } },
      schema: {
        operationId: 'startMyGameSession',
        tags,
        summary: 'Start a game session',
        description:
          "Starts the game on the runtime in the pool of the caller's plan and answers the session id, play URL " +
          'and member token (not kept). One live session per player (409 `conflict` with `details.session_id`). In ' +
          'depth: [docs/api/game-sessions.md](docs/api/game-sessions.md#start-a-game-session).',
        body: startSessionBody,
        response: { 201: startedSessionBody },
      },
    },
    async (request, reply) => reply.code(201).send(await sessions.start(actorOf(request).userId, request.body.game_id)),
  );

  app.post(
    '/v1/me/sessions/stop',
    {
      config: { errors: { 404: ['not_found'] } },
      schema: {
        operationId: 'stopMyGameSession',
        tags,
        summary: "Stop the caller's game session",
        description:
          'No body. Allowed at every maintenance level. 404 `not_found` when the caller has no live session; 503 ' +
          '`unavailable` with `Retry-After` when the runtime cannot be reached (the session stays live).',
        response: noContent,
      },
    },
    async (request, reply) => {
      await sessions.stopMine(actorOf(request).userId);
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/v1/me/game-sessions',
    {
      schema: {
        operationId: 'listMyGameSessions',
        tags,
        summary: "The caller's game session history",
        description: cursorRule,
        querystring: mySessionsQuery,
        response: { 200: mySessionsPage },
      },
    },
    (request) => sessions.listMine(actorOf(request).userId, request.query),
  );

  app.get(
    '/v1/admin/runtime/sessions',
    {
      config: READ,
      schema: {
        operationId: 'listRuntimeSessions',
        tags,
        summary: 'List game sessions',
        description: `Filters \`user_id\`, \`pool_id\`, \`node_id\`, \`status\`, \`game_id\`, combined with AND. ${cursorRule}`,
        querystring: listSessionsQuery,
        response: { 200: sessionsPage },
      },
    },
    (request) => sessions.list(request.query),
  );

  app.get(
    '/v1/admin/runtime/sessions/:id',
    {
      config: { ...READ, errors: { 404: ['not_found'] } },
      schema: {
        operationId: 'getRuntimeSession',
        tags,
        summary: 'Get a game session',
        description: '404 `not_found`.',
        params: sessionIdParams,
        response: { 200: gameSessionBody },
      },
    },
    (request) => sessions.get(request.params.id),
  );

  app.post(
    '/v1/admin/runtime/sessions/:id/stop',
    {
      config: { ...WRITE, errors: { 404: ['not_found'], 422: ['invalid_state'] } },
      schema: {
        operationId: 'stopRuntimeSession',
        tags,
        summary: 'Stop a game session',
        description:
          'Stops it on the runtime, then records it `ended` (`staff_stopped`) and audits `runtime.session_stop` ' +
          'with the optional `reason`. Returns the updated session. 404 `not_found`; 422 `invalid_state` when it ' +
          'has already ended; 503 `unavailable` with `Retry-After` when the runtime cannot be reached (nothing ' +
          'changes).',
        params: sessionIdParams,
        body: staffStopBody,
        response: { 200: gameSessionBody },
      },
    },
    (request) => sessions.stopByStaff(actorOf(request), request.params.id, request.body?.reason),
  );
}
