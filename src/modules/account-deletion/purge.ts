import type { Kysely } from 'kysely';
import { IdentityServiceError, type IdentityProvider } from '../../adapters/identity/index.js';
import type { Tables, UserRow } from '../../db/tables.js';
import type { AuditActor } from '../../kernel/audit.js';
import type { EventPublisher } from '../../kernel/events.js';
import { requireServices, type JobContext, type JobSummary } from '../../kernel/areas/jobs.js';
import { lockUsersSkipLocked, removeUser } from '../users/index.js';
import { auditedTransaction } from '../../kernel/write.js';
import { PURGE_BATCH } from './policy.js';
import { dueDeletionCandidates, lockDueRequests } from './queries.js';

/** The service's own actor: nobody signed in asked for the purge. */
const SERVICE: AuditActor = { userId: null, requestId: null, ip: null, userAgent: null };
const PURGE_REASON = 'grace period of a self-deleted account ended';

export interface PurgeDependencies {
  identity: IdentityProvider;
  events: EventPublisher;
  log: { warn(object: object, message: string): void };
}

/**
 * Soft-deleted accounts whose grace period has ended, locked, soonest due first: candidates from
 * the requests, their user rows locked through users (still soft-deleted), then their requests
 * locked and checked again (still confirmed and due: a staff restore between the pick and the lock
 * deletes the request, and a staff soft delete after it makes the account `deleted` again with no
 * request). A row another transaction holds (a staff action) is skipped and left for the next run,
 * never waited on; users before requests, the order restore and confirmation lock them in.
 */
async function lockDueAccounts(trx: Kysely<Tables>, now: Date, limit: number): Promise<UserRow[]> {
  const candidates = await dueDeletionCandidates(trx, now, limit);
  if (candidates.length === 0) return [];
  const users = new Map((await lockUsersSkipLocked(trx, candidates, 'deleted')).map((user) => [user.id, user]));
  if (users.size === 0) return [];
  const due = await lockDueRequests(trx, [...users.keys()], now);
  return candidates.flatMap((id) => {
    const user = users.get(id);
    return user !== undefined && due.has(id) ? [user] : [];
  });
}

/**
 * Hard-deletes soft-deleted accounts whose grace period has ended, as operation 2's hard
 * delete does: the identity provider removes the account first, then the user row goes with
 * everything it owns (cascade), audited as `users.hard_delete` by the service, event
 * `users.hard_deleted`. A provider failure skips that account until the next run; the others
 * go on. Runs in the scheduler's transaction, so it calls the provider while holding it: the
 * batch is kept small for that reason.
 */
export async function purgeDeletedAccounts(
  trx: Kysely<Tables>,
  deps: PurgeDependencies,
  { now }: JobContext,
): Promise<JobSummary> {
  let purged = 0;
  let failed = 0;
  for (const user of await lockDueAccounts(trx, now, PURGE_BATCH)) {
    try {
      await deps.identity.deleteUser(user.id);
    } catch (error) {
      if (!(error instanceof IdentityServiceError)) throw error;
      deps.log.warn(
        { user_id: user.id, provider_status: error.status, err: { message: error.message } },
        'identity provider refused to remove a purged account; retried next run',
      );
      failed++;
      continue;
    }
    await removeUser(auditedTransaction(trx, SERVICE, deps.events), user, PURGE_REASON);
    purged++;
  }
  return { purged, failed };
}

export function purgeDeletedAccountsJob(trx: Kysely<Tables>, context: JobContext): Promise<JobSummary> {
  return purgeDeletedAccounts(trx, requireServices(context, 'purge-deleted-accounts'), context);
}
