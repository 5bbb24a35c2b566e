import { type Expression, type Kysely, type SelectExpression, sql } from 'kysely';
import type { Tables, UserStatus } from '../../db/tables.js';

/**
 * The statements other areas run on a user row, in their own transaction (`w.trx`): users owns
 * the table, so the tier, the avatar, the profile columns and the row locks of other areas'
 * writes are written here (docs/architecture.md, "Areas own their tables").
 */

type Db = Kysely<Tables>;

/** Locks the user's row (NO KEY UPDATE) for the rest of the transaction. */
export async function lockUserRow(trx: Db, userId: string): Promise<void> {
  await trx.selectFrom('users').select('id').where('id', '=', userId).forNoKeyUpdate().execute();
}

/**
 * The user's id and status, the row locked NO KEY UPDATE: writes that queue on the user queue here,
 * while inserts elsewhere that merely reference the user (their FOR KEY SHARE check) are not held up.
 */
export function lockUserStatus(trx: Db, userId: string) {
  return trx.selectFrom('users').select(['id', 'status']).where('id', '=', userId).forNoKeyUpdate().executeTakeFirst();
}

/** Locks these users' rows (NO KEY UPDATE) in id order; answers the users that exist. */
export function lockUsersInIdOrder(trx: Db, userIds: string[]) {
  return trx.selectFrom('users').select('id').where('id', 'in', userIds).orderBy('id').forNoKeyUpdate().execute();
}

/**
 * These users' rows, those with `status`, locked FOR UPDATE (they are deleted next); a row another
 * transaction holds (a staff action on the account) is skipped, never waited on: a job's batch
 * leaves it to its next run.
 */
export function lockUsersSkipLocked(trx: Db, userIds: readonly string[], status: UserStatus) {
  return trx
    .selectFrom('users')
    .selectAll()
    .where('id', 'in', userIds)
    .where('status', '=', status)
    .forUpdate()
    .skipLocked()
    .execute();
}

/** The user's email address, with the row locked until the transaction ends. */
export function lockUserEmail(trx: Db, userId: string) {
  return trx.selectFrom('users').select(['email']).where('id', '=', userId).forUpdate().executeTakeFirst();
}

/** Sets the user's tier; `tier` may be a subquery, evaluated in the same statement. */
export async function setUserTier(trx: Db, userId: string, tier: Expression<string | null>): Promise<void> {
  await trx.updateTable('users').set({ tier, updated_at: sql`now()` }).where('id', '=', userId).execute();
}

/** Sets the player's own columns; answers `answer` of the row as it now is (undefined: no such user). */
export function updateProfileColumns<Answer extends SelectExpression<Tables, 'users'>>(
  db: Db,
  userId: string,
  columns: { display_name?: string | null; locale?: string | null; timezone?: string | null },
  at: Date,
  answer: readonly Answer[],
) {
  return db
    .updateTable('users')
    .set({ ...columns, profile_updated_at: at, updated_at: at })
    .where('id', '=', userId)
    .returning(answer)
    .executeTakeFirst();
}

/** The user's avatar key, with the row locked until the transaction ends. */
export async function lockAvatarKey(trx: Db, userId: string): Promise<string | null> {
  const row = await trx
    .selectFrom('users')
    .select('avatar_key')
    .where('id', '=', userId)
    .forUpdate()
    .executeTakeFirstOrThrow();
  return row.avatar_key;
}

export async function currentAvatarKey(db: Db, userId: string): Promise<string | null> {
  const row = await db.selectFrom('users').select('avatar_key').where('id', '=', userId).executeTakeFirst();
  return row?.avatar_key ?? null;
}

export async function setAvatarKey(trx: Db, userId: string, key: string): Promise<void> {
  await trx.updateTable('users').set({ avatar_key: key }).where('id', '=', userId).execute();
}

/** Users whose avatar is this object lose it (the object is going away); their ids. */
export async function clearAvatarsUsing(trx: Db, key: string): Promise<string[]> {
  const rows = await trx
    .updateTable('users')
    .set({ avatar_key: null })
    .where('avatar_key', '=', key)
    .returning('id')
    .execute();
  return rows.map((row) => row.id);
}

/** Makes a user row for each subject that has none (a subject that never signed in). */
export async function ensureUsers(trx: Db, subjects: string[]): Promise<void> {
  await sql`INSERT INTO users (id) SELECT unnest(${subjects}::uuid[]) ON CONFLICT (id) DO NOTHING`.execute(trx);
}

/** Tokens issued before `at` are refused from the next request. */
export async function refuseTokensIssuedBefore(trx: Db, userId: string, at: Date): Promise<void> {
  await trx.updateTable('users').set({ tokens_valid_after: at }).where('id', '=', userId).execute();
}
