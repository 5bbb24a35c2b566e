import { actorOf, principalOf } from '../../kernel/auth.js';
import type { Deps } from '../../composition/platform.js';
import type { ZodApp } from '../../kernel/http/zod-app.js';
import { permissionsBody, profileBody, updateProfileBody } from './schemas.js';
import { ProfileService } from './service.js';

export function registerMeRoutes(
  app: ZodApp,
  deps: Deps<'db' | 'permissions' | 'storage' | 'userChanges' | 'write'>,
): void {
  const profiles = new ProfileService(deps.db, deps.write, deps.storage, deps.userChanges.cache('profile'));

  app.get(
    '/v1/me',
    {
      schema: { operationId: 'getMe', tags: ['me'], summary: "The caller's profile", response: { 200: profileBody } },
    },
    (request) => {
      const { userId } = principalOf(request);
      return profiles.cached(userId) ?? profiles.get(userId);
    },
  );

  app.patch(
    '/v1/me',
    {
      config: { errors: { 422: ['invalid_state'] } },
      schema: {
        operationId: 'updateMe',
        tags: ['me'],
        summary: "Change the caller's profile",
        description:
          'Changes any of `display_name`, `locale`, `timezone`, `marketing_opt_in` (at least one; other fields are ' +
          'a 400) and answers the profile. `marketing_opt_in` unsubscribes or re-subscribes the address to ' +
          'marketing mail. In depth: [docs/api/account.md](docs/api/account.md#change-the-callers-profile).',
        body: updateProfileBody,
        response: { 200: profileBody },
      },
    },
    (request) => profiles.update(actorOf(request).userId, request.body),
  );

  app.get(
    '/v1/me/permissions',
    {
      schema: {
        operationId: 'getMyPermissions',
        tags: ['me'],
        summary: "The caller's effective permissions",
        response: { 200: permissionsBody },
      },
    },
    (request) => {
      // The guard's principal already holds both (from its cache, usually): no query.
      const principal = principalOf(request);
      return { permissions: principal.permissions.effectiveKeys(deps.permissions), roles: principal.roles };
    },
  );
}
