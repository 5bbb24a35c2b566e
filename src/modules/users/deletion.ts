import type { UserRow } from '../../db/tables.js';

/**
 * How long a soft-deleted account can be restored: a deletion its owner confirmed is purged at
 * its end; a staff soft delete is kept, but restorable no longer.
 */
export const GRACE_PERIOD_DAYS = 30;

export const daysAfter = (date: Date, days: number) => new Date(date.getTime() + days * 86_400_000);

/** Which deletion holds an account, and until when it can be restored (null: no deletion time recorded). */
export interface Deletion {
  by: 'self' | 'staff';
  restorable_until: Date | null;
}

/**
 * What the stored rows say of a user's deletion: one its owner confirmed leaves a confirmed
 * deletion request (restorable until its purge); any other is staff's soft delete (restorable for
 * the grace period from `deleted_at`). Null for an account that is not deleted.
 */
export function deletionOf(
  user: Pick<UserRow, 'status' | 'deleted_at'>,
  selfDeletion: { status: string; hard_delete_at: Date | null } | undefined,
): Deletion | null {
  if (user.status !== 'deleted') return null;
  if (selfDeletion?.status === 'confirmed') return { by: 'self', restorable_until: selfDeletion.hard_delete_at };
  return {
    by: 'staff',
    restorable_until: user.deleted_at === null ? null : daysAfter(user.deleted_at, GRACE_PERIOD_DAYS),
  };
}
