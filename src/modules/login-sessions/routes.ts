import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { actorOf } from '../../kernel/auth.js';
import { AppError } from '../../kernel/errors.js';
import type { Deps } from '../../composition/platform.js';
import type { ZodApp } from '../../kernel/http/zod-app.js';
import { myLoginSessionsBody, sessionIdParams, staffLoginSessionsBody, userIdParams } from './schemas.js';
import { LoginSessionsService } from './service.js';

const tags = ['login sessions'];
const noContent = { 204: z.null().describe('Done') };

/** The login session of the request's token; the guard has resolved it on every /v1/me route. */
function currentSessionOf(request: FastifyRequest): string {
  if (request.principal === null) throw new AppError(500, 'internal');
  return request.principal.sessionId;
}

/**
 * Player: GET /v1/me/sessions, DELETE /v1/me/sessions/{sessionId}
 *   (POST /v1/me/sessions on the same path starts a game session: game-sessions/routes.ts).
 * Staff:  GET /v1/admin/users/{id}/sessions.
 */
export function registerLoginSessionRoutes(app: ZodApp, deps: Deps<'db' | 'identity' | 'log' | 'write'>): void {
  const sessions = new LoginSessionsService(deps.db, deps.write, deps.identity, deps.log);

  app.get(
    '/v1/me/sessions',
    {
      schema: {
        operationId: 'listMyLoginSessions',
        tags,
        summary: "The caller's login sessions",
        description:
          'Each sign-in session the service has seen a token of and that has not been ended (revoked, or by a ' +
          'sign-out of every session), newest activity first, at most 100; `current` marks the session of the ' +
          'token making this request. (`POST` on this path starts a game session.)',
        response: { 200: myLoginSessionsBody },
      },
    },
    (request) => sessions.listMine(actorOf(request).userId, currentSessionOf(request)),
  );

  app.delete(
    '/v1/me/sessions/:sessionId',
    {
      config: { errors: { 404: ['not_found'], 502: ['auth_service_error'] } },
      schema: {
        operationId: 'revokeMyLoginSession',
        tags,
        summary: "Revoke one of the caller's login sessions",
        description:
          'Tokens of the session are refused (401 `invalid_token`) from the next request on, on every instance; ' +
          'the current session may be revoked too. The identity provider is asked to end the session first (its ' +
          "refresh tokens stop working). 404 `not_found` for a session id that is not one of the caller's live " +
          "sessions (unknown, another user's, or already ended); 502 `auth_service_error` when the identity " +
          'provider refuses or fails (then nothing changes: retry).',
        params: sessionIdParams,
        response: noContent,
      },
    },
    async (request, reply) => {
      await sessions.revokeMine(actorOf(request), request.params.sessionId);
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/v1/admin/users/:id/sessions',
    {
      config: { perms: ['users.read'], errors: { 404: ['not_found'] } },
      schema: {
        operationId: 'listAdminUserLoginSessions',
        tags,
        summary: "A user's login sessions",
        description:
          'Every session recorded for the user, ended ones included (`revoked_at`), newest activity first, at ' +
          'most 100. End one with `POST /v1/admin/users/{id}/sign-out` and its `session_id`. 404 `not_found`: no ' +
          'such user.',
        params: userIdParams,
        response: { 200: staffLoginSessionsBody },
      },
    },
    (request) => sessions.listForStaff(request.params.id),
  );
}
