import { z } from 'zod';
import { actorOf } from '../../kernel/auth.js';
import type { Deps } from '../../composition/platform.js';
import type { ZodApp } from '../../kernel/http/zod-app.js';
import { AccountRestoreService } from './restore.js';
import {
  confirmDeletionBody,
  deletionConfirmed,
  deletionStarted,
  restoreAccountBody,
  startDeletionBody,
  userIdParams,
} from './schemas.js';
import { AccountDeletionService } from './service.js';

const meTags = ['me: account'];
const staffTags = ['users'];

/**
 * The player's own account deletion (a mailed code, then its confirmation), and staff's way to
 * undo it during the grace period. Every /v1/me route acts on the caller only: no id is taken.
 */
export function registerAccountDeletionRoutes(
  app: ZodApp,
  deps: Deps<'db' | 'identity' | 'log' | 'payments' | 'signingKey' | 'write'>,
): void {
  const deletion = new AccountDeletionService(
    deps.db,
    deps.identity,
    deps.payments,
    deps.write,
    deps.log,
    () => deps.signingKey,
  );
  const restore = new AccountRestoreService(deps.db, deps.identity, deps.write, deps.log);

  app.post(
    '/v1/me/delete',
    {
      config: { errors: { 422: ['invalid_request', 'invalid_state'] } },
      schema: {
        operationId: 'startMyAccountDeletion',
        tags: meTags,
        summary: 'Start deleting your account',
        description:
          'Mails an 8-digit code to confirm deleting the account with `POST /v1/me/delete/confirm`, valid 30 ' +
          'minutes. Nothing about the account changes yet. In depth: ' +
          '[docs/api/account.md](docs/api/account.md#start-deleting-your-account).',
        body: startDeletionBody.nullish(),
        response: { 202: deletionStarted },
      },
    },
    async (request, reply) => reply.code(202).send(await deletion.start(actorOf(request), request.body ?? {})),
  );

  app.post(
    '/v1/me/delete/confirm',
    {
      config: { errors: { 422: ['invalid_request', 'invalid_state'], 502: ['auth_service_error'] } },
      schema: {
        operationId: 'confirmMyAccountDeletion',
        tags: meTags,
        summary: 'Confirm deleting your account',
        description:
          'With the mailed code, deletes the account: sign-in disabled, renewals cancelled, erased after 30 days ' +
          'unless staff restore it. 422 `invalid_state` when no request is pending, or the code expired or was ' +
          'voided. In depth: [docs/api/account.md](docs/api/account.md#confirm-deleting-your-account).',
        body: confirmDeletionBody,
        response: { 200: deletionConfirmed },
      },
    },
    (request) => deletion.confirm(actorOf(request), request.body),
  );

  app.post(
    '/v1/admin/users/:id/restore',
    {
      config: {
        perms: ['users.delete'],
        errors: { 404: ['not_found'], 422: ['invalid_state'], 502: ['auth_service_error'] },
      },
      schema: {
        operationId: 'restoreAdminUser',
        tags: staffTags,
        summary: 'Restore a deleted account within its grace period',
        description:
          'Undoes a soft delete or a self-deletion while `deletion.restorable_until` is ahead; tokens issued ' +
          'before stay refused. Audited as `users.restore` or `users.self_delete_cancel`. In depth: ' +
          '[docs/api/users.md](docs/api/users.md#restore-a-deleted-account-within-its-grace-period).',
        params: userIdParams,
        body: restoreAccountBody,
        response: { 204: z.null().describe('Restored') },
      },
    },
    async (request, reply) => {
      await restore.restore(actorOf(request), request.params.id, request.body.reason);
      return reply.code(204).send(null);
    },
  );
}
