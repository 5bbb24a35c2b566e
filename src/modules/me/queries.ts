import { sql, type Kysely } from 'kysely';
import type { Tables } from '../../db/tables.js';
import type { UpdateProfileInput } from './schemas.js';

type Db = Kysely<Tables>;
type ProfileColumns = Pick<UpdateProfileInput, 'display_name' | 'locale' | 'timezone'>;

const PROFILE_COLUMNS = [
  'id',
  'email',
  'display_name',
  'provider',
  'status',
  'tier',
  'locale',
  'timezone',
  'avatar_key',
  'created_at',
  'last_seen_at',
  'profile_updated_at',
] as const;
// Marketing mail reaches an address that exists and is not suppressed.
const MARKETING_OPT_IN =
  sql<boolean>`(users.email IS NOT NULL AND NOT EXISTS (SELECT 1 FROM email_suppressions s WHERE s.email =
    lower(users.email)))`.as('marketing_opt_in');

export function findProfile(db: Db, userId: string) {
  return db
    .selectFrom('users')
    .select([...PROFILE_COLUMNS, MARKETING_OPT_IN])
    .where('id', '=', userId)
    .executeTakeFirst();
}

/** Sets the player's own columns and answers the profile as it now is (undefined: no such user). */
export function updateProfileColumns(db: Db, userId: string, columns: ProfileColumns, at: Date) {
  return db
    .updateTable('users')
    .set({ ...columns, profile_updated_at: at, updated_at: at })
    .where('id', '=', userId)
    .returning([...PROFILE_COLUMNS, MARKETING_OPT_IN])
    .executeTakeFirst();
}

/** The address a marketing change applies to, with the user row locked until the transaction ends. */
export function lockUserEmail(trx: Db, userId: string) {
  return trx.selectFrom('users').select(['email']).where('id', '=', userId).forUpdate().executeTakeFirst();
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
