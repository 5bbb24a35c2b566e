/** The numbers of account deletion, in one place (route descriptions quote them). */

/** How long a mailed confirmation code works. */
export const CODE_TTL_MINUTES = 30;
/** Wrong codes a request survives: the fifth voids it, and a new request must be started. */
export const MAX_WRONG_CODES = 5;
/** Between confirmation (soft delete) and the purge (hard delete): the time support has to undo it. */
export const GRACE_PERIOD_DAYS = 30;
/** Accounts one purge run removes: each costs an identity-provider call inside the run's transaction. */
export const PURGE_BATCH = 25;

export const minutesAfter = (date: Date, minutes: number) => new Date(date.getTime() + minutes * 60_000);
export const daysAfter = (date: Date, days: number) => new Date(date.getTime() + days * 86_400_000);
