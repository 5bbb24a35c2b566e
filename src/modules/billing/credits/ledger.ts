import { createHash } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { Tables, UserStatus } from '../../../db/tables.js';
import { AppError, conflict, invalidRequest, notFound } from '../../../kernel/errors.js';
import type { JobContext, JobSummary } from '../../../kernel/jobs.js';
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
 * Callers run their transaction through `retryingTransaction` (src/kernel/transaction-retry.ts):
 * the user's lock is taken first, but lots, payments and subscriptions are also locked by others
 * in other orders, and PostgreSQL resolves such a deadlock by aborting one transaction.
 */

type Db = Kysely<Tables>;

export interface CreditAccount {
  userId: string;
  status: UserStatus;
}

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

/** Locks the user's credits for the rest of the transaction; undefined when there is no such user. */
export async function lockCreditAccount(trx: Db, userId: string): Promise<CreditAccount | undefined> {
  // NO KEY UPDATE: concurrent credit writes queue on it, while inserts elsewhere that merely
  // reference the user (their FOR KEY SHARE check) are not held up.
  const row = await trx
    .selectFrom('users')
    .select(['id', 'status'])
    .where('id', '=', userId)
    .forNoKeyUpdate()
    .executeTakeFirst();
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

function fingerprint(operation: string, fields: Record<string, unknown>): string {
  return createHash('sha256')
    .update(JSON.stringify([operation, fields]))
    .digest('hex');
}

/** The entry an idempotency key already wrote, if any; a different request under it is a conflict. */
async function earlierWrite(trx: Db, key: string | undefined, print: string): Promise<LedgerRow | undefined> {
  if (key === undefined) return undefined;
  const row = await trx.selectFrom('credit_ledger').selectAll().where('idempotency_key', '=', key).executeTakeFirst();
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
  const row = await trx
    .insertInto('credit_ledger')
    .values({
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
    })
    // A concurrent write under the same key for another user holds no lock we wait on: the
    // unique key makes this insert wait for it and then do nothing.
    .onConflict((oc) => oc.column('idempotency_key').doNothing())
    .returning('id')
    .executeTakeFirst();
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
  if (earlier !== undefined) return { ...replayOf(earlier), lotId: await lotOf(trx, earlier.id) };
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
    return { ...replayOf(written.earlier), lotId: await lotOf(trx, written.earlier.id) };
  const lot = await trx
    .insertInto('credit_lots')
    .values({
      user_id: input.userId,
      entry_id: written.row!.id,
      amount: input.amount,
      remaining: input.amount,
      expires_at: expiresAt,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
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
  const lots = await trx
    .selectFrom('credit_lots')
    .innerJoin('credit_ledger', 'credit_ledger.id', 'credit_lots.entry_id')
    .select(['credit_lots.id', 'credit_lots.remaining'])
    .where('credit_lots.user_id', '=', input.userId)
    .where('credit_ledger.kind', '=', 'purchase')
    .where('credit_ledger.reference_type', '=', input.referenceType)
    .where('credit_ledger.reference_id', '=', input.referenceId)
    .execute();
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

async function lotOf(trx: Db, entryId: number): Promise<number> {
  const lot = await trx
    .selectFrom('credit_lots')
    .select('id')
    .where('entry_id', '=', entryId)
    .executeTakeFirstOrThrow();
  return lot.id;
}

interface Draw {
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
 */
async function drawFromLots(trx: Db, draw: Draw): Promise<void> {
  const onlyLots = draw.onlyLots === undefined ? sql`` : sql`AND id IN (${sql.join(draw.onlyLots)})`;
  const result = await sql<{ amount: number }>`
    WITH ordered AS (
      SELECT id, remaining, sum(remaining) OVER (ORDER BY expires_at ASC NULLS LAST, id) - remaining AS before
      FROM credit_lots
      WHERE user_id = ${draw.userId} AND remaining > 0 AND (expires_at IS NULL OR expires_at > ${draw.now}) ${onlyLots}
    ), takes AS (
      SELECT id, least(remaining, ${draw.amount}::bigint - before)::int AS take FROM ordered WHERE before < ${draw.amount}::bigint
    ), drained AS (
      UPDATE credit_lots SET remaining = credit_lots.remaining - takes.take FROM takes WHERE credit_lots.id = takes.id RETURNING credit_lots.id, takes.take
    )
    INSERT INTO credit_lot_draws (entry_id, lot_id, amount) SELECT ${draw.entryId}::bigint, id, take FROM drained RETURNING amount`.execute(
    trx,
  );
  const drawn = result.rows.reduce((sum, row) => sum + row.amount, 0);
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
  const lapsed = await trx
    .selectFrom('credit_lots')
    .select(['id', 'user_id', 'remaining', 'expires_at'])
    .where('user_id', 'in', userIds)
    .where('remaining', '>', 0)
    .where('expires_at', '<=', now)
    .orderBy('user_id')
    .orderBy('expires_at')
    .orderBy('id')
    .execute();
  if (lapsed.length === 0) return { users: 0, lots: 0, credits: 0 };
  const balances = await trx
    .selectFrom('credit_ledger')
    .select(['user_id', sql<number>`sum(amount)::bigint`.as('balance')])
    .where('user_id', 'in', [...new Set(lapsed.map((lot) => lot.user_id))])
    .groupBy('user_id')
    .execute();
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
    const ids = await trx
      .insertInto('credit_ledger')
      .values(entries.slice(start, start + EXPIRY_CHUNK))
      .returning(['id', 'reference_id'])
      .execute();
    const entryOfLot = new Map(ids.map((row) => [row.reference_id, row.id]));
    await trx
      .insertInto('credit_lot_draws')
      .values(
        chunk.map((lot) => ({ entry_id: entryOfLot.get(String(lot.id))!, lot_id: lot.id, amount: lot.remaining })),
      )
      .execute();
    await trx
      .updateTable('credit_lots')
      .set({ remaining: 0 })
      .where(
        'id',
        'in',
        chunk.map((lot) => lot.id),
      )
      .execute();
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
  const candidates = await trx
    .selectFrom('credit_lots')
    .select('user_id')
    .distinct()
    .where('remaining', '>', 0)
    .where('expires_at', '<=', now)
    .orderBy('user_id')
    .limit(EXPIRY_USERS_PER_RUN)
    .execute();
  if (candidates.length === 0) return { users: 0, lots: 0, credits: 0 };
  const locked = await trx
    .selectFrom('users')
    .select('id')
    .where(
      'id',
      'in',
      candidates.map((row) => row.user_id),
    )
    .orderBy('id')
    .forNoKeyUpdate()
    .execute();
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
