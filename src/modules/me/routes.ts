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
    (request) => profiles.get(actorOf(request).userId),
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
          'Any of `display_name` (1-100 after trimming, null clears), `locale` (BCP 47), `timezone` (IANA), ' +
          '`marketing_opt_in`; at least one; other fields are refused (400), so the email, status, tier and roles ' +
          "cannot be set here. `marketing_opt_in: false` unsubscribes the address from marketing mail as a mail's " +
          'unsubscribe link does; `true` subscribes it again. Errors: 422 `invalid_state` (`marketing_opt_in` on ' +
          'an account without an address, or re-subscribing an address that bounced or complained). Answers the ' +
          'profile.',
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
