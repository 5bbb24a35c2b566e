import { sql, type Insertable, type Kysely } from 'kysely';
import type { Tables, UserStatus } from '../../../db/tables.js';
import { lockUsersInIdOrder, lockUserStatus } from '../../users/index.js';
import type { CreditLedgerTable, CreditLotDrawsTable, CreditLotsTable, LedgerRow } from './tables.js';

/** The statements of the credit ledger (ledger.ts): entries, lots and the draws between them. */

type Db = Kysely<Tables>;

export interface CreditAccount {
  userId: string;
  status: UserStatus;
}

/**
 * Locks the user's credits for the rest of the transaction; undefined when there is no such user.
 * A credit account's lock is its user row, taken by users (NO KEY UPDATE: concurrent credit writes
 * queue on it, while inserts elsewhere that merely reference the user are not held up).
 */
export async function lockCreditAccount(trx: Db, userId: string): Promise<CreditAccount | undefined> {
  const row = await lockUserStatus(trx, userId);
  return row === undefined ? undefined : { userId: row.id, status: row.status };
}

export async function balanceOf(db: Db, userId: string): Promise<number> {
  const row = await db
    .selectFrom('credit_ledger')
    .select(sql<number>`coalesce(sum(amount), 0)::bigint`.as('balance'))
    .where('user_id', '=', userId)
    .executeTakeFirstOrThrow();
  return Number(row.balance);
}

export function entryByIdempotencyKey(trx: Db, key: string): Promise<LedgerRow | undefined> {
  return trx.selectFrom('credit_ledger').selectAll().where('idempotency_key', '=', key).executeTakeFirst();
}

/**
 * Inserts the entry; undefined when its idempotency key is taken. A concurrent write under the
 * same key for another user holds no lock we wait on: the unique key makes this insert wait for
 * it and then do nothing.
 */
export function insertEntryUnlessKeyTaken(
  trx: Db,
  entry: Insertable<CreditLedgerTable>,
): Promise<{ id: number } | undefined> {
  return trx
    .insertInto('credit_ledger')
    .values(entry)
    .onConflict((oc) => oc.column('idempotency_key').doNothing())
    .returning('id')
    .executeTakeFirst();
}

export function insertLot(trx: Db, lot: Insertable<CreditLotsTable>): Promise<{ id: number }> {
  return trx.insertInto('credit_lots').values(lot).returning('id').executeTakeFirstOrThrow();
}

export async function lotIdOfEntry(trx: Db, entryId: number): Promise<number> {
  const lot = await trx
    .selectFrom('credit_lots')
    .select('id')
    .where('entry_id', '=', entryId)
    .executeTakeFirstOrThrow();
  return lot.id;
}

/** The lots of the user's purchase under this reference, with what is left of each. */
export function purchaseLots(trx: Db, userId: string, referenceType: string, referenceId: string) {
  return trx
    .selectFrom('credit_lots')
    .innerJoin('credit_ledger', 'credit_ledger.id', 'credit_lots.entry_id')
    .select(['credit_lots.id', 'credit_lots.remaining'])
    .where('credit_lots.user_id', '=', userId)
    .where('credit_ledger.kind', '=', 'purchase')
    .where('credit_ledger.reference_type', '=', referenceType)
    .where('credit_ledger.reference_id', '=', referenceId)
    .execute();
}

export interface Draw {
  userId: string;
  entryId: number;
  amount: number;
  now: Date;
  /** Draw only from these lots (a clawback takes from its purchase's lots). */
  onlyLots?: number[];
}

/**
 * Takes `amount` from the user's live lots, earliest expiry first (never-expiring last), then
 * oldest, in one statement: a running total picks the lots, each is reduced, the draws recorded.
 * Answers what each draw took.
 */
export async function drawFromLotsInOrder(trx: Db, draw: Draw): Promise<Array<{ amount: number }>> {
  const onlyLots = draw.onlyLots === undefined ? sql`` : sql`AND id IN (${sql.join(draw.onlyLots)})`;
  const result = await sql<{ amount: number }>`
    WITH ordered AS (
      SELECT id, remaining, sum(remaining) OVER (ORDER BY expires_at ASC NULLS LAST, id) - remaining AS before
      FROM credit_lots
      WHERE user_id = ${draw.userId} AND remaining > 0 AND (expires_at IS NULL OR expires_at > ${draw.now}) ${onlyLots}
    ), takes AS (
      SELECT id, least(remaining, ${draw.amount}::bigint - before)::int AS take FROM ordered WHERE before <
        ${draw.amount}::bigint
    ), drained AS (
      UPDATE credit_lots SET remaining = credit_lots.remaining - takes.take FROM takes WHERE credit_lots.id =
        takes.id RETURNING credit_lots.id, takes.take
    )
    INSERT INTO credit_lot_draws (entry_id, lot_id, amount) SELECT ${draw.entryId}::bigint, id, take FROM drained
      RETURNING amount`.execute(trx);
  return result.rows;
}

/** The lots of these users lapsed at `now` with credits left, by user, then lapse order. */
export function lapsedLotsOf(trx: Db, userIds: string[], now: Date) {
  return trx
    .selectFrom('credit_lots')
    .select(['id', 'user_id', 'remaining', 'expires_at'])
    .where('user_id', 'in', userIds)
    .where('remaining', '>', 0)
    .where('expires_at', '<=', now)
    .orderBy('user_id')
    .orderBy('expires_at')
    .orderBy('id')
    .execute();
}

/** The balance of each of these users who has entries. */
export function balancesOf(trx: Db, userIds: string[]) {
  return trx
    .selectFrom('credit_ledger')
    .select(['user_id', sql<number>`sum(amount)::bigint`.as('balance')])
    .where('user_id', 'in', userIds)
    .groupBy('user_id')
    .execute();
}

/** Inserts entries in one statement; a multi-row VALUES insert takes its ids in row order. */
export function insertEntries(trx: Db, entries: Insertable<CreditLedgerTable>[]) {
  return trx.insertInto('credit_ledger').values(entries).returning(['id', 'reference_id']).execute();
}

export async function insertLotDraws(trx: Db, draws: Insertable<CreditLotDrawsTable>[]): Promise<void> {
  await trx.insertInto('credit_lot_draws').values(draws).execute();
}

export async function emptyLots(trx: Db, lotIds: number[]): Promise<void> {
  await trx.updateTable('credit_lots').set({ remaining: 0 }).where('id', 'in', lotIds).execute();
}

/** Up to `limit` users, in id order, holding a lot lapsed at `now` with credits left. */
export function usersWithLapsedLots(trx: Db, now: Date, limit: number) {
  return trx
    .selectFrom('credit_lots')
    .select('user_id')
    .distinct()
    .where('remaining', '>', 0)
    .where('expires_at', '<=', now)
    .orderBy('user_id')
    .limit(limit)
    .execute();
}

/** Locks these users' credits (their user rows, NO KEY UPDATE) in id order; answers the users that exist. */
export function lockCreditAccountsInIdOrder(trx: Db, userIds: string[]) {
  return lockUsersInIdOrder(trx, userIds);
}
