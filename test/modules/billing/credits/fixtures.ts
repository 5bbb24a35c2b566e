import { sql } from 'kysely';
import { expect } from 'vitest';
import type { Kernel } from '../../../../src/kernel/kernel.js';

type Db = Kernel['db'];

/** A user's ledger, oldest first. */
export const ledgerOf = (db: Db, userId: string) =>
  db.selectFrom('credit_ledger').selectAll().where('user_id', '=', userId).orderBy('id').execute();

/** Nothing about this user was written: no entries, no lots. */
export async function expectNoCredits(db: Db, userId: string) {
  expect(await ledgerOf(db, userId)).toEqual([]);
  expect(await lotsOf(db, userId)).toEqual([]);
}

/** A user's lots, oldest first. */
export const lotsOf = (db: Db, userId: string) =>
  db.selectFrom('credit_lots').selectAll().where('user_id', '=', userId).orderBy('id').execute();

export const drawsOf = (db: Db, entryId: number) =>
  db
    .selectFrom('credit_lot_draws')
    .select(['lot_id', 'amount'])
    .where('entry_id', '=', entryId)
    .orderBy('lot_id')
    .execute();

export async function sumOfLedger(db: Db, userId: string): Promise<number> {
  const row = await db
    .selectFrom('credit_ledger')
    .select(sql<number>`coalesce(sum(amount), 0)::int`.as('n'))
    .where('user_id', '=', userId)
    .executeTakeFirstOrThrow();
  return row.n;
}

/**
 * Everything that must hold for one user's credits, whatever happened before:
 * - the balance (sum of entries) equals what is left in the lots that have not lapsed at `now`,
 *   and lapsed lots hold nothing (they were expired);
 * - each entry's balance_after is the running sum in id order, never below zero;
 * - each deduction's draws add up to what it deducted, and each lot's draws to what it lost;
 * - each addition made exactly one lot of its amount.
 */
export async function expectConsistentCredits(db: Db, userId: string, now: Date = new Date()): Promise<number> {
  const [entries, lots, draws] = await Promise.all([
    ledgerOf(db, userId),
    lotsOf(db, userId),
    db
      .selectFrom('credit_lot_draws')
      .innerJoin('credit_ledger', 'credit_ledger.id', 'credit_lot_draws.entry_id')
      .select(['credit_lot_draws.entry_id', 'credit_lot_draws.lot_id', 'credit_lot_draws.amount'])
      .where('credit_ledger.user_id', '=', userId)
      .execute(),
  ]);
  let running = 0;
  for (const entry of entries) {
    running += entry.amount;
    expect(entry.balance_after, `balance_after of entry ${entry.id}`).toBe(running);
    expect(running).toBeGreaterThanOrEqual(0);
    const drawn = draws.filter((draw) => draw.entry_id === entry.id).reduce((sum, draw) => sum + draw.amount, 0);
    const lotsMade = lots.filter((lot) => lot.entry_id === entry.id);
    if (entry.amount > 0) {
      expect(drawn).toBe(0);
      expect(lotsMade.map((lot) => lot.amount)).toEqual([entry.amount]);
    } else {
      expect(drawn, `draws of entry ${entry.id}`).toBe(Math.abs(entry.amount));
      expect(lotsMade).toEqual([]);
    }
  }
  for (const lot of lots) {
    const lost = draws.filter((draw) => draw.lot_id === lot.id).reduce((sum, draw) => sum + draw.amount, 0);
    expect(lot.amount - lot.remaining, `draws of lot ${lot.id}`).toBe(lost);
    if (lot.expires_at !== null && lot.expires_at.getTime() <= now.getTime())
      expect(lot.remaining, `lapsed lot ${lot.id}`).toBe(0);
  }
  const unexpired = lots.filter((lot) => lot.expires_at === null || lot.expires_at.getTime() > now.getTime());
  expect(unexpired.reduce((sum, lot) => sum + lot.remaining, 0)).toBe(running);
  expect(await sumOfLedger(db, userId)).toBe(running);
  return running;
}
