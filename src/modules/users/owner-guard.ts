import { AppError } from '../../kernel/errors.js';
import { isCheckViolation } from '../../lib/sql-errors.js';

/**
 * The last-active-owner rule. The database keeps it (migration 0044: a commit that would leave no
 * active user holding the owner role without an expiry is refused, one such commit at a time);
 * this file gives every path the same answer for it.
 */

/** The name migration 0044's guard raises its check violation under. */
const LAST_ACTIVE_OWNER = 'last_active_owner';

/** The one answer to a change that would leave no active owner, wherever it comes from: 422 `invalid_request`. */
export class LastActiveOwnerRefusal extends AppError {
  constructor() {
    super(422, 'invalid_request', {
      reason: 'no active owner would remain: grant the owner role, without an expiry, to someone else first',
    });
  }
}

/** Runs `work` (a transaction) and answers the database's refusal of its commit as a `LastActiveOwnerRefusal`. */
export async function refusingLastOwnerLoss<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (isCheckViolation(error, LAST_ACTIVE_OWNER)) throw new LastActiveOwnerRefusal();
    throw error;
  }
}
