import { sql, type Kysely } from 'kysely';
import type { Tables } from '../../db/tables.js';
import '../email/tables.js';

type Db = Kysely<Tables>;

export function findProfile(db: Db, userId: string) {
  return db
    .selectFrom('users')
    .select([
      'id', 'email', 'display_name', 'provider', 'status', 'tier', 'locale', 'timezone', 'avatar_key', 'created_at', 'last_seen_at', 'profile_updated_at',
      // Marketing mail reaches an address that exists and is not suppressed.
      sql<boolean>`(users.email IS NOT NULL AND NOT EXISTS (SELECT 1 FROM email_suppressions s WHERE s.email = lower(users.email)))`.as('marketing_opt_in'),
    ])
    .where('id', '=', userId)
    .executeTakeFirst();
}
