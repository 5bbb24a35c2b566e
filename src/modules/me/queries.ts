import { sql, type Kysely } from 'kysely';
import type { Tables } from '../../db/tables.js';
import { isSuppressed } from '../email/index.js';
import { findUserRow } from '../users/index.js';

type Db = Kysely<Tables>;

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
  sql<boolean>`(users.email IS NOT NULL AND NOT ${isSuppressed(sql<string>`lower(users.email)`)})`.as(
    'marketing_opt_in',
  );

/** What the profile answers: the player's columns and the marketing consent. */
export const PROFILE_ANSWER = [...PROFILE_COLUMNS, MARKETING_OPT_IN];

export function findProfile(db: Db, userId: string) {
  return findUserRow(db, userId, PROFILE_ANSWER);
}
