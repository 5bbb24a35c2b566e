import type { Kysely, SelectExpression } from 'kysely';
import type { Tables } from '../../db/tables.js';
import { matchesSegment, type SegmentOptions, type UserSegment } from './segment.js';

/**
 * Reads of the users table other areas build on where user_directory (the view users publishes)
 * is not enough: a segment matches columns the view leaves out (tier, provider, last seen), and
 * the player's profile is their whole row. The caller picks the columns, as with
 * updateProfileColumns (account-row.ts); the statement stays one.
 */

type Db = Kysely<Tables>;

/** The users a segment matches, to select from (a broadcast's recipients and their addresses). */
export function usersInSegment(db: Db, segment: UserSegment, options: SegmentOptions) {
  return db.selectFrom('users').where(matchesSegment(segment, options));
}

/** `answer` of one user's row; undefined: no such user. */
export function findUserRow<Answer extends SelectExpression<Tables, 'users'>>(
  db: Db,
  userId: string,
  answer: readonly Answer[],
) {
  return db.selectFrom('users').select(answer).where('id', '=', userId).executeTakeFirst();
}
