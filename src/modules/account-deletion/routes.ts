import { z } from 'zod';
import { actorOf } from '../../kernel/auth.js';
import type { Deps } from '../../composition/platform.js';
import type { ZodApp } from '../../kernel/http/zod-app.js';
import { CODE_DIGITS } from './code.js';
import { CODE_TTL_MINUTES, GRACE_PERIOD_DAYS, MAX_WRONG_CODES } from './policy.js';
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
import { LAST_OWNER_REFUSAL, ACTING_ABOVE_REFUSAL } from '../users/index.js';

const meTags = ['me: account'];
const staffTags = ['users'];

const gracePeriod =
  `For ${GRACE_PERIOD_DAYS} days after confirmation the account is only soft-deleted: every token is refused (403, ` +
  `\`details.reason\` \`account_deleted\`) and the identity provider has sign-in disabled, so the player cancels by ` +
  `writing to support, and staff restore it with \`POST /v1/admin/users/{id}/restore\`. Then the hourly job ` +
  `\`purge-deleted-accounts\` erases the account and everything it owns, as operation 2's hard delete (audit ` +
  `\`users.hard_delete\` by the service, event \`users.hard_deleted\`).`;

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
          `The body is optional. Mails a ${CODE_DIGITS}-digit confirmation code to the account's email address ` +
          `(only its hash is kept) and answers when it expires (${CODE_TTL_MINUTES} minutes). A new request ` +
          `replaces the previous one, code and wrong-code count included. Nothing about the account changes until ` +
          `\`POST /v1/me/delete/confirm\`. Errors: 422 \`invalid_state\` when the account has no email address (add ` +
          `one at the identity provider, or ask support, who delete with operation 2); ${LAST_OWNER_REFUSAL}.`,
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
          `With the mailed code: the identity provider disables sign-in, renewing subscriptions are set to cancel ` +
          `at the end of their period (at the payment provider), and the account is deleted as staff soft delete ` +
          `does (status \`deleted\`, refused from the next request; audit \`users.self_delete\`, event ` +
          `\`users.soft_deleted\`). Answers when it was deleted and when it will be erased. ${gracePeriod} Errors: ` +
          `422 \`invalid_request\` for a wrong code (\`details.attempts_left\`); 422 \`invalid_state\` when no ` +
          `request is pending, the code has expired, or the request was voided (the ${MAX_WRONG_CODES}th wrong code ` +
          `voids it: start again); ${LAST_OWNER_REFUSAL} (checked again at commit: two owners leaving at once ` +
          `cannot both go); 502 \`auth_service_error\` when the identity provider fails (nothing changes; the code ` +
          `still works); a payment-provider failure is 503 \`unavailable\` or 422 \`invalid_request\` ` +
          `(\`details.provider_code\`), and sign-in is enabled again.`,
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
          `Undoes a soft delete while the user's \`deletion.restorable_until\` (\`GET /v1/admin/users/{id}\`) is ` +
          `ahead. A self-deletion (until its purge): the identity provider enables sign-in again, the account is ` +
          `active, the purge is called off; subscriptions stay set to end with their period; audit ` +
          `\`users.self_delete_cancel\`. A staff soft delete (operation 2; for ${GRACE_PERIOD_DAYS} days): the ` +
          `account is back to the status it had (active, or banned), the identity provider not asked; audit ` +
          `\`users.restore\`. Either way tokens issued before now stay refused (the player signs in anew), and the ` +
          `event is \`users.restored\`. Errors: 404 \`not_found\`; ${ACTING_ABOVE_REFUSAL}; 422 \`invalid_state\` ` +
          `when the account is not deleted, or its grace period has ended (\`details.deleted_by\`, ` +
          `\`details.restorable_until\`); 502 \`auth_service_error\` (a self-deletion; nothing changes).`,
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
