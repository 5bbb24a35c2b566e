import { z } from 'zod';
import { actorOf } from '../../kernel/auth.js';
import type { Deps } from '../../composition/platform.js';
import type { ZodApp } from '../../kernel/http/zod-app.js';
import { UserLifecycleService } from './lifecycle.js';
import { ACTING_ABOVE_REFUSAL } from './policy.js';
import {
  banUserBody,
  deleteUserBody,
  identityAccountBody,
  listUsersQuery,
  signOutUserBody,
  unbanUserBody,
  updateUserBody,
  userDetail,
  userIdParams,
  usersPage,
} from './schemas.js';
import { UsersService } from './service.js';

const noContent = { 204: z.null().describe('Done') };
const tags = ['users'];
const guarded = `Refused with 404 \`not_found\` (no such user), 422 \`invalid_request\` for your own account, \
${ACTING_ABOVE_REFUSAL}, 502 \`auth_service_error\` when the identity provider refuses or fails (then nothing \
changes).`;

export function registerUserRoutes(app: ZodApp, deps: Deps<'db' | 'identity' | 'log' | 'write'>): void {
  const users = new UsersService(deps.db, deps.write, deps.identity, deps.log);
  const lifecycle = new UserLifecycleService(deps.db, deps.identity, deps.write, deps.log);

  app.get(
    '/v1/admin/users',
    {
      config: { perms: ['users.read'] },
      schema: {
        operationId: 'listAdminUsers',
        tags,
        summary: 'List users',
        description:
          "Paged with total. Filters are the broadcast segment's (each narrows; all combine); without `status` " +
          'every status is listed. Sort by `created_at` (default, newest first), `last_seen_at` (never-seen last) ' +
          'or `email`.',
        querystring: listUsersQuery,
        response: { 200: usersPage },
      },
    },
    (request) => users.list(request.query),
  );

  app.get(
    '/v1/admin/users/:id',
    {
      config: { perms: ['users.read'], errors: { 404: ['not_found'] } },
      schema: {
        operationId: 'getAdminUser',
        tags,
        summary: 'Get a user',
        description:
          'Profile, status history, tier, unexpired role grants, subscription summary and recent audit entries. ' +
          '404 `not_found`.',
        params: userIdParams,
        response: { 200: userDetail },
      },
    },
    (request) => users.get(request.params.id),
  );

  app.get(
    '/v1/admin/users/:id/identity',
    {
      config: { perms: ['users.read'], errors: { 404: ['not_found'], 502: ['auth_service_error'] } },
      schema: {
        operationId: 'getAdminUserIdentity',
        tags,
        summary: "The identity provider's record of a user",
        description:
          'Sign-in methods, ban and last sign-in as the identity provider holds them. 404 `not_found` when the ' +
          "user or the provider's record is missing (the embedded `local` provider keeps none); 502 " +
          '`auth_service_error` when the provider fails.',
        params: userIdParams,
        response: { 200: identityAccountBody },
      },
    },
    (request) => users.identityAccount(request.params.id, request.id),
  );

  app.patch(
    '/v1/admin/users/:id',
    {
      config: { perms: ['users.write'], errors: { 404: ['not_found'], 422: ['invalid_request', 'invalid_state'] } },
      schema: {
        operationId: 'updateAdminUser',
        tags,
        summary: "Edit a user's display name, tier or metadata",
        description:
          `Returns the user. 404 \`not_found\`; ${ACTING_ABOVE_REFUSAL}; 422 \`invalid_request\` for an unknown ` +
          `tier; 422 \`invalid_state\` for a deleted user. An edit that changes nothing is not audited.`,
        params: userIdParams,
        body: updateUserBody,
        response: { 200: userDetail },
      },
    },
    (request) => users.update(actorOf(request), request.params.id, request.body),
  );

  app.post(
    '/v1/admin/users/:id/ban',
    {
      config: {
        errors: { 404: ['not_found'], 422: ['invalid_request', 'invalid_state'], 502: ['auth_service_error'] },
        perms: ['users.write'],
      },
      schema: {
        operationId: 'banAdminUser',
        tags,
        summary: 'Ban a user',
        description:
          "Disables sign-in at the identity provider; the user's tokens are refused from their next request. Only " +
          'an active user, not yourself, and not the last active owner. In depth: ' +
          '[docs/api/users.md](docs/api/users.md#ban-a-user).',
        params: userIdParams,
        body: banUserBody,
        response: noContent,
      },
    },
    async (request, reply) => {
      await lifecycle.ban(actorOf(request), request.params.id, request.body.reason);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/v1/admin/users/:id/unban',
    {
      config: {
        errors: { 404: ['not_found'], 422: ['invalid_state'], 502: ['auth_service_error'] },
        perms: ['users.write'],
      },
      schema: {
        operationId: 'unbanAdminUser',
        tags,
        summary: 'Lift a ban',
        description: `422 \`invalid_state\` unless banned. ${guarded}`,
        params: userIdParams,
        body: unbanUserBody,
        response: noContent,
      },
    },
    async (request, reply) => {
      await lifecycle.unban(actorOf(request), request.params.id, request.body.reason);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/v1/admin/users/:id/sign-out',
    {
      config: {
        perms: ['users.write'],
        errors: { 404: ['not_found'], 422: ['invalid_request'], 502: ['auth_service_error'] },
      },
      schema: {
        operationId: 'signOutAdminUser',
        tags,
        summary: 'Sign a user out',
        description:
          `Ends every sign-in session (tokens issued until now answer 401 \`invalid_token\`), or with \`session_id\` ` +
          `only that one (tokens carrying that \`session_id\` claim). ${guarded}`,
        params: userIdParams,
        body: signOutUserBody,
        response: noContent,
      },
    },
    async (request, reply) => {
      await lifecycle.signOut(actorOf(request), request.params.id, request.body);
      return reply.code(204).send(null);
    },
  );

  app.delete(
    '/v1/admin/users/:id',
    {
      config: {
        errors: { 404: ['not_found'], 422: ['invalid_request'], 502: ['auth_service_error'] },
        perms: ['users.delete'],
      },
      schema: {
        operationId: 'deleteAdminUser',
        tags,
        summary: 'Delete a user',
        description:
          'Soft-deletes the user (refused from then on), or with `hard: true` removes the account at the identity ' +
          'provider and every row the user owns. JSON body despite DELETE; the last active owner cannot be ' +
          'deleted. In depth: [docs/api/users.md](docs/api/users.md#delete-a-user).',
        params: userIdParams,
        body: deleteUserBody,
        response: noContent,
      },
    },
    async (request, reply) => {
      await lifecycle.delete(actorOf(request), request.params.id, request.body);
      return reply.code(204).send(null);
    },
  );
}
