import { type Expression, type Kysely, sql } from 'kysely';
import type { Tables } from '../../db/tables.js';
import './tables.js';

/**
 * The suppression list as other areas use it (a player's own marketing consent in me): the email
 * family owns email_suppressions, so its statements are here, run in the caller's transaction.
 */

type Db = Kysely<Tables>;

/** True when mail to the address (already lowercase) is suppressed: for a select list beside the caller's row. */
export function isSuppressed(address: Expression<string | null>) {
  return sql<boolean>`EXISTS (SELECT 1 FROM email_suppressions s WHERE s.email = ${address})`;
}

/** Suppresses marketing mail to the address as a profile unsubscribe; an existing suppression stays as it is. */
export async function suppressAsUnsubscribed(trx: Db, address: string): Promise<void> {
  await trx
    .insertInto('email_suppressions')
    .values({ email: address, reason: 'unsubscribed', source: 'profile', message_id: null })
    .onConflict((oc) => oc.column('email').doNothing())
    .execute();
}

/** Why mail to the address is suppressed; undefined: it is not. */
export async function suppressionReason(trx: Db, address: string) {
  return (await trx.selectFrom('email_suppressions').select('reason').where('email', '=', address).executeTakeFirst())
    ?.reason;
}

export async function liftSuppression(trx: Db, address: string): Promise<void> {
  await trx.deleteFrom('email_suppressions').where('email', '=', address).execute();
}
