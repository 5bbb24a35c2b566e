import type { Kysely } from 'kysely';
import type { Tables } from '../../db/tables.js';
import './tables.js';

type Db = Kysely<Tables>;

/** The caller's request, locked: wrong guesses sent at once are counted one after another. */
export function lockDeletionRequest(trx: Db, userId: string) {
  return trx
    .selectFrom('account_deletion_requests')
    .selectAll()
    .where('user_id', '=', userId)
    .forUpdate()
    .executeTakeFirst();
}

/** A new request replaces whatever the user had before (a pending or voided one), counter included. */
export async function replaceDeletionRequest(
  trx: Db,
  row: { user_id: string; code_hash: string; code_expires_at: Date; reason: string | null },
): Promise<void> {
  const fresh = {
    status: 'pending' as const,
    code_hash: row.code_hash,
    code_expires_at: row.code_expires_at,
    failed_attempts: 0,
    reason: row.reason,
    requested_at: new Date(),
    confirmed_at: null,
    hard_delete_at: null,
  };
  await trx
    .insertInto('account_deletion_requests')
    .values({ user_id: row.user_id, ...fresh })
    .onConflict((oc) => oc.column('user_id').doUpdateSet(fresh))
    .execute();
}

/** One more wrong code; at the limit the request is voided and its hash forgotten. */
export async function countWrongCode(trx: Db, userId: string, attempts: number, voided: boolean): Promise<void> {
  await trx
    .updateTable('account_deletion_requests')
    .set(voided ? { failed_attempts: attempts, status: 'voided', code_hash: null } : { failed_attempts: attempts })
    .where('user_id', '=', userId)
    .execute();
}

export async function markConfirmed(trx: Db, userId: string, confirmedAt: Date, hardDeleteAt: Date): Promise<void> {
  await trx
    .updateTable('account_deletion_requests')
    .set({ status: 'confirmed', code_hash: null, confirmed_at: confirmedAt, hard_delete_at: hardDeleteAt })
    .where('user_id', '=', userId)
    .execute();
}

/**
 * Soft-deleted accounts whose grace period has ended, locked; one another run (or a staff
 * action) holds is skipped and left for the next run. An account staff restored meanwhile
 * is no longer `deleted` and never matches.
 */
export function lockDueAccounts(trx: Db, now: Date, limit: number) {
  return trx
    .selectFrom('users')
    .innerJoin('account_deletion_requests as r', 'r.user_id', 'users.id')
    .selectAll('users')
    .where('r.status', '=', 'confirmed')
    .where('r.hard_delete_at', '<=', now)
    .where('users.status', '=', 'deleted')
    .orderBy('r.hard_delete_at')
    .limit(limit)
    .forUpdate('users')
    .skipLocked()
    .execute();
}

/** The status of the user's deletion request; undefined: none. */
export async function deletionRequestStatus(db: Db, userId: string) {
  return (
    await db.selectFrom('account_deletion_requests').select('status').where('user_id', '=', userId).executeTakeFirst()
  )?.status;
}

export async function deleteDeletionRequest(trx: Db, userId: string): Promise<void> {
  await trx.deleteFrom('account_deletion_requests').where('user_id', '=', userId).execute();
}
