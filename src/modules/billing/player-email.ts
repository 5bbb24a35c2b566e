import { sql } from 'kysely';

/** The staff lists that name each row's player. */
type PlayerRows = 'billing_payments' | 'billing_invoices' | 'credit_ledger' | 'credit_lots';

/**
 * The player's email beside each row of a staff list, as `user_email`: a correlated lookup, so the
 * list's filters stay unqualified and a player without an email reads null.
 */
export const playerEmailOf = (table: PlayerRows) =>
  sql<string | null>`(SELECT u.email FROM user_directory AS u WHERE u.id = ${sql.ref(`${table}.user_id`)})`.as(
    'user_email',
  );
