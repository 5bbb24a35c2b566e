import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Tables } from '../../../db/tables.js';
import { AppError, conflict, invalidRequest, notFound } from '../../../kernel/errors.js';
import type { JobContext, JobSummary } from '../../../kernel/areas/jobs.js';
import {
  balanceOf,
  balancesOf,
  drawFromLotsInOrder,
  emptyLots,
  entryByIdempotencyKey,
  insertEntries,
  insertEntryUnlessKeyTaken,
  insertLot,
  insertLotDraws,
  lapsedLotsOf,
  lockCreditAccount,
  lockCreditAccountsInIdOrder,
  lotIdOfEntry,
  purchaseLots,
  usersWithLapsedLots,
  type CreditAccount,
  type Draw,
} from './ledger-queries.js';
import type { AdditionKind, DeductionKind, LedgerKind, LedgerRow } from './tables.js';

/**
 * The credit ledger as other modules use it (fulfilment, gift packs, refunds, spends). Every
 * function takes the caller's transaction, so a ledger write commits or rolls back with the
 * caller's own writes, and every write first locks the user's row: writes for one user happen
 * one at a time, in id order, each seeing the balance the previous one left.
 *
 * The balance is SUM(amount) of the user's entries. Each addition is a lot; deductions draw
 * from lots (earliest expiry first, never-expiring last, then oldest) and record their draws;
 * lapsed lots are zeroed by an `expiry` entry. So the balance always equals the sum of what is
 * left in the lots, and never drops below zero.
 *
 * Callers write through `kernel.write` (src/kernel/write.ts), which runs the work again after a
 * deadlock: the user's lock is taken first, but lots, payments and subscriptions are also locked
 * by others in other orders, and PostgreSQL resolves such a deadlock by aborting one transaction.
 */

type Db = Kysely<Tables>;

export { balanceOf, lockCreditAccount, type CreditAccount };

export interface LedgerWriteResult {
  entryId: number;
  /** The balance right after this entry (a replay answers the first call's balance). */
  balance: number;
  /** True when an earlier write with the same idempotency key is answered again. */
  replayed: boolean;
}

interface WriteCommon {
  userId: string;
  /** The staff member behind the write; null for the service itself. */
  actorId: string | null;
  reason?: string | null | undefined;
  referenceType?: string | null | undefined;
  referenceId?: string | null | undefined;
  /**
   * One write per key across every user: repeating it answers the first result and writes
   * nothing; the same key asking for something else is 409 `conflict`. Prefix keys with a
   * namespace ('grant:', 'stripe:'), since they are unique across callers.
   */
  idempotencyKey?: string | undefined;
  /** Called under the lock, after the idempotency check, before any write: throw to refuse. */
  checkAccount?: ((account: CreditAccount) => void) | undefined;
  /** The clock lots lapse by (tests pass their own). */
  now?: Date | undefined;
}

export interface AddCreditsInput extends WriteCommon {
  amount: number;
  kind: AdditionKind;
  /** When what is left of this addition lapses; null or omitted: never. */
  expiresAt?: Date | null | undefined;
}

export interface SpendCreditsInput extends WriteCommon {
  amount: number;
  kind?: DeductionKind;
}

export interface ClawbackInput extends WriteCommon {
  /** The purchase's reference, as fulfilment wrote it (e.g. 'payment', the payment id). */
  referenceType: string;
  referenceId: string;
  /** How many credits the refund takes back (all of the pack on a full refund). */
  credits: number;
}

export interface ClawbackResult extends LedgerWriteResult {
  /** Credits actually taken from what was left of the purchase's lots. */
  taken: number;
  /** Credits the refund covered that were already spent or expired, so could not be taken. */
  shortfall: number;
}

/** 422 `insufficient_credits`: a deduction larger than the balance. */
export const insufficientCredits = (balance: number, requested: number) =>
  new AppError(422, 'insufficient_credits', { balance, requested });

function fingerprint(operation: string, fields: Record<string, unknown>): string {
  return createHash('sha256')
    .update(JSON.stringify([operation, fields]))
    .digest('hex');
}

/** The entry an idempotency key already wrote, if any; a different request under it is a conflict. */
async function earlierWrite(trx: Db, key: string | undefined, print: string): Promise<LedgerRow | undefined> {
  if (key === undefined) return undefined;
  const row = await entryByIdempotencyKey(trx, key);
  if (row !== undefined && row.idempotency_fingerprint !== print) {
    throw conflict({ reason: 'this idempotency key was already used for a different request' });
  }
  return row;
}

const replayOf = (row: LedgerRow): LedgerWriteResult => ({
  entryId: row.id,
  balance: row.balance_after,
  replayed: true,
});

/** Lock, answer a repeated key, let the caller refuse, and settle lapsed lots: every write starts here. */
async function beginWrite(trx: Db, input: WriteCommon, print: string): Promise<{ earlier?: LedgerRow; now: Date }> {
  const account = await lockCreditAccount(trx, input.userId);
  if (account === undefined) throw notFound();
  const earlier = await earlierWrite(trx, input.idempotencyKey, print);
  if (earlier !== undefined) return { earlier, now: input.now ?? new Date() };
  input.checkAccount?.(account);
  const now = input.now ?? new Date();
  // Lapsed lots are expired before any write, so a deduction never draws on them even when
  // the expiry job has not passed yet, and every write leaves balance == SUM(unexpired lots).
  await expireLapsedLotsOf(trx, [input.userId], now);
  return { now };
}

interface NewEntry {
  userId: string;
  amount: number;
  kind: LedgerKind;
  balanceAfter: number;
  input: WriteCommon;
  print: string;
  details?: Record<string, unknown>;
}

/** Inserts the entry, or (another user's write took the key meanwhile) answers that write. */
async function insertEntry(trx: Db, entry: NewEntry): Promise<{ row?: { id: number }; earlier?: LedgerRow }> {
  const { input } = entry;
  const row = await insertEntryUnlessKeyTaken(trx, {
    user_id: entry.userId,
    amount: entry.amount,
    kind: entry.kind,
    balance_after: entry.balanceAfter,
    reference_type: input.referenceType ?? null,
    reference_id: input.referenceId ?? null,
    actor_id: input.actorId,
    reason: input.reason ?? null,
    details: JSON.stringify(entry.details ?? {}),
    idempotency_key: input.idempotencyKey ?? null,
    idempotency_fingerprint: input.idempotencyKey === undefined ? null : entry.print,
  });
  if (row !== undefined) return { row };
  return { earlier: await earlierWrite(trx, input.idempotencyKey, entry.print) };
}

export async function addCredits(trx: Db, input: AddCreditsInput): Promise<LedgerWriteResult & { lotId: number }> {
  assertPositive(input.amount);
  const expiresAt = input.expiresAt ?? null;
  const print = fingerprint('add', {
    userId: input.userId,
    amount: input.amount,
    kind: input.kind,
    expiresAt: expiresAt?.toISOString() ?? null,
    referenceType: input.referenceType ?? null,
    referenceId: input.referenceId ?? null,
    reason: input.reason ?? null,
  });
  const { earlier, now } = await beginWrite(trx, input, print);
  if (earlier !== undefined) return { ...replayOf(earlier), lotId: await lotIdOfEntry(trx, earlier.id) };
  if (expiresAt !== null && expiresAt.getTime() <= now.getTime())
    throw invalidRequest({ reason: 'expires_at must be in the future' });
  const balance = (await balanceOf(trx, input.userId)) + input.amount;
  const written = await insertEntry(trx, {
    userId: input.userId,
    amount: input.amount,
    kind: input.kind,
    balanceAfter: balance,
    input,
    print,
  });
  if (written.earlier !== undefined)
    return { ...replayOf(written.earlier), lotId: await lotIdOfEntry(trx, written.earlier.id) };
  const lot = await insertLot(trx, {
    user_id: input.userId,
    entry_id: written.row!.id,
    amount: input.amount,
    remaining: input.amount,
    expires_at: expiresAt,
  });
  return { entryId: written.row!.id, balance, replayed: false, lotId: lot.id };
}

export async function spendCredits(trx: Db, input: SpendCreditsInput): Promise<LedgerWriteResult> {
  assertPositive(input.amount);
  const kind = input.kind ?? 'spend';
  const print = fingerprint('spend', {
    userId: input.userId,
    amount: input.amount,
    kind,
    referenceType: input.referenceType ?? null,
    referenceId: input.referenceId ?? null,
    reason: input.reason ?? null,
  });
  const { earlier, now } = await beginWrite(trx, input, print);
  if (earlier !== undefined) return replayOf(earlier);
  const balance = await balanceOf(trx, input.userId);
  if (balance < input.amount) throw insufficientCredits(balance, input.amount);
  const written = await insertEntry(trx, {
    userId: input.userId,
    amount: -input.amount,
    kind,
    balanceAfter: balance - input.amount,
    input,
    print,
  });
  if (written.earlier !== undefined) return replayOf(written.earlier);
  await drawFromLots(trx, { userId: input.userId, entryId: written.row!.id, amount: input.amount, now });
  return { entryId: written.row!.id, balance: balance - input.amount, replayed: false };
}

/**
 * A refunded credit pack: takes back up to `credits` from what is left of that purchase's
 * lots. What was already spent (or expired) is the shortfall, recorded in the entry's details;
 * the balance never goes below zero for it. Even a clawback that takes nothing is an entry, so
 * the ledger shows every refund. 404 `not_found` when the user bought nothing under that reference.
 */
export async function clawbackPurchase(trx: Db, input: ClawbackInput): Promise<ClawbackResult> {
  assertPositive(input.credits);
  const print = fingerprint('clawback', {
    userId: input.userId,
    credits: input.credits,
    referenceType: input.referenceType,
    referenceId: input.referenceId,
    reason: input.reason ?? null,
  });
  const { earlier, now } = await beginWrite(trx, input, print);
  if (earlier !== undefined) return clawbackReplay(earlier);
  const lots = await purchaseLots(trx, input.userId, input.referenceType, input.referenceId);
  if (lots.length === 0) throw notFound('not_found', { reason: 'no credit purchase with this reference' });
  const left = lots.reduce((sum, lot) => sum + lot.remaining, 0);
  const taken = Math.min(left, input.credits);
  const shortfall = input.credits - taken;
  const balance = (await balanceOf(trx, input.userId)) - taken;
  const details = { requested: input.credits, taken, shortfall };
  const written = await insertEntry(trx, {
    userId: input.userId,
    amount: -taken,
    kind: 'refund_clawback',
    balanceAfter: balance,
    input,
    print,
    details,
  });
  if (written.earlier !== undefined) return clawbackReplay(written.earlier);
  if (taken > 0)
    await drawFromLots(trx, {
      userId: input.userId,
      entryId: written.row!.id,
      amount: taken,
      now,
      onlyLots: lots.map((lot) => lot.id),
    });
  return { entryId: written.row!.id, balance, replayed: false, taken, shortfall };
}

function clawbackReplay(row: LedgerRow): ClawbackResult {
  const details = row.details as { taken?: number; shortfall?: number };
  return { ...replayOf(row), taken: details.taken ?? -row.amount, shortfall: details.shortfall ?? 0 };
}

function assertPositive(amount: number): void {
  if (!Number.isSafeInteger(amount) || amount <= 0)
    throw invalidRequest({ reason: 'amount must be a positive integer', amount });
}

/** Takes `amount` from the user's live lots (drawFromLotsInOrder says in which order). */
async function drawFromLots(trx: Db, draw: Draw): Promise<void> {
  const draws = await drawFromLotsInOrder(trx, draw);
  const drawn = draws.reduce((sum, row) => sum + row.amount, 0);
  // The lots always hold the balance; if they do not, refuse rather than write a lie.
  if (drawn !== draw.amount)
    throw new Error(`credit lots of user ${draw.userId} held ${drawn} of the ${draw.amount} credits to draw`);
}

export interface ExpirySummary {
  /** Users whose lots expired, lots zeroed, credits those lots still held. */
  users: number;
  lots: number;
  credits: number;
}

/** Rows per INSERT: well inside PostgreSQL's 65535 bind parameters. */
const EXPIRY_CHUNK = 500;

/**
 * Writes an `expiry` entry for what is left of each lapsed lot of these (already locked) users
 * and zeroes the lot. One entry per lot, referencing it, in lapse order.
 */
async function expireLapsedLotsOf(trx: Db, userIds: string[], now: Date): Promise<ExpirySummary> {
  if (userIds.length === 0) return { users: 0, lots: 0, credits: 0 };
  const lapsed = await lapsedLotsOf(trx, userIds, now);
  if (lapsed.length === 0) return { users: 0, lots: 0, credits: 0 };
  const balances = await balancesOf(trx, [...new Set(lapsed.map((lot) => lot.user_id))]);
  const running = new Map(balances.map((row) => [row.user_id, Number(row.balance)]));
  const entries = lapsed.map((lot) => {
    const balance = running.get(lot.user_id)! - lot.remaining;
    running.set(lot.user_id, balance);
    return {
      user_id: lot.user_id,
      amount: -lot.remaining,
      kind: 'expiry' as const,
      balance_after: balance,
      reference_type: 'credit_lot',
      reference_id: String(lot.id),
      actor_id: null,
      reason: 'credit lot expired',
      details: JSON.stringify({ expires_at: lot.expires_at?.toISOString() }),
    };
  });
  for (let start = 0; start < entries.length; start += EXPIRY_CHUNK) {
    const chunk = lapsed.slice(start, start + EXPIRY_CHUNK);
    // A multi-row VALUES insert takes its ids in row order, so ids follow the running balance.
    const ids = await insertEntries(trx, entries.slice(start, start + EXPIRY_CHUNK));
    const entryOfLot = new Map(ids.map((row) => [row.reference_id, row.id]));
    await insertLotDraws(
      trx,
      chunk.map((lot) => ({ entry_id: entryOfLot.get(String(lot.id))!, lot_id: lot.id, amount: lot.remaining })),
    );
    await emptyLots(
      trx,
      chunk.map((lot) => lot.id),
    );
  }
  return { users: running.size, lots: lapsed.length, credits: lapsed.reduce((sum, lot) => sum + lot.remaining, 0) };
}

/** Users per expiry run; the rest wait for the next run (or expire on their own next write). */
const EXPIRY_USERS_PER_RUN = 1_000;

/**
 * Expires every lot lapsed at `now`: locks the affected users (in id order, so two expiry runs
 * cannot deadlock) and writes their expiry entries. At most EXPIRY_USERS_PER_RUN users a call.
 */
export async function expireLapsedLots(trx: Db, now: Date): Promise<ExpirySummary> {
  const candidates = await usersWithLapsedLots(trx, now, EXPIRY_USERS_PER_RUN);
  if (candidates.length === 0) return { users: 0, lots: 0, credits: 0 };
  const locked = await lockCreditAccountsInIdOrder(
    trx,
    candidates.map((row) => row.user_id),
  );
  return expireLapsedLotsOf(
    trx,
    locked.map((row) => row.id),
    now,
  );
}

/** The `expire-credit-lots` scheduled job (seeded by migration 0010). */
export async function expireCreditLotsJob(trx: Db, { now }: JobContext): Promise<JobSummary> {
  return { ...(await expireLapsedLots(trx, now)) };
}
