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
 * The purge's candidates: users whose confirmed request's grace period has ended and whose account
 * is still soft-deleted, soonest due first. Nothing is locked: `lockDueAccounts` (purge.ts) locks
 * them and checks again.
 */
export async function dueDeletionCandidates(db: Db, now: Date, limit: number): Promise<string[]> {
  const rows = await db
    .selectFrom('account_deletion_requests as r')
    .innerJoin('user_directory as u', 'u.id', 'r.user_id')
    .select('r.user_id')
    .where('r.status', '=', 'confirmed')
    .where('r.hard_delete_at', '<=', now)
    .where('u.status', '=', 'deleted')
    .orderBy('r.hard_delete_at')
    .limit(limit)
    .execute();
  return rows.map((row) => row.user_id);
}

/**
 * Of these users, those whose request is still confirmed and due, the requests locked; one another
 * transaction holds is skipped, never waited on.
 */
export async function lockDueRequests(trx: Db, userIds: readonly string[], now: Date): Promise<Set<string>> {
  const rows = await trx
    .selectFrom('account_deletion_requests')
    .select('user_id')
    .where('user_id', 'in', userIds)
    .where('status', '=', 'confirmed')
    .where('hard_delete_at', '<=', now)
    .forUpdate()
    .skipLocked()
    .execute();
  return new Set(rows.map((row) => row.user_id));
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
