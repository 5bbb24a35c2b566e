/** The numbers of account deletion, in one place (route descriptions quote them). */

/** How long a mailed confirmation code works. */
export const CODE_TTL_MINUTES = 30;
/** Wrong codes a request survives: the fifth voids it, and a new request must be started. */
export const MAX_WRONG_CODES = 5;
// Between confirmation (soft delete) and the purge (hard delete): the time support has to undo
// it; the users area keeps it, as staff soft deletes share it.
export { daysAfter, GRACE_PERIOD_DAYS } from '../users/index.js';
/** Accounts one purge run removes: each costs an identity-provider call inside the run's transaction. */
export const PURGE_BATCH = 25;

export const minutesAfter = (date: Date, minutes: number) => new Date(date.getTime() + minutes * 60_000);
