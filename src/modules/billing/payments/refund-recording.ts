import { sql, type ColumnType, type Kysely } from 'kysely';
import type { PaymentProviderKind, ProviderRefund } from '../../../adapters/payments/index.js';
import type { DefaultedTimestamp } from '../../../db/column-types.js';
import type { Tables } from '../../../db/tables.js';
import { clawbackPurchase } from '../credits/index.js';
import type { PaymentRow } from './queries.js';
import type { RefundRow, RefundSource } from './tables.js';
import './tables.js';

type Db = Kysely<Tables>;

/**
 * The pack credits a refund takes back: the payment's credits in proportion to the money
 * refunded, rounded down on the running total, so partial refunds never take more than their
 * share and the refund that completes the payment takes exactly what is left of the pack.
 */
export function creditsForRefund(
  payment: { credits: number; amount: number; refundedBefore: number },
  amount: number,
): number {
  const share = (refunded: number) => Math.floor((payment.credits * refunded) / payment.amount);
  return share(payment.refundedBefore + amount) - share(payment.refundedBefore);
}

export interface RefundToRecord {
  providerRefundId: string;
  amount: number;
  reason: string;
  actorId: string | null;
  source: RefundSource;
  requestKey?: { key: string; fingerprint: string };
}

export type RecordedRefund =
  | { recorded: true; row: RefundRow; payment: PaymentRow; clawback: { taken: number; shortfall: number } }
  /** The provider's refund id was recorded before (the other path got there first): nothing changed. */
  | { recorded: false; row: RefundRow; payment: PaymentRow };

export function refundByProviderId(trx: Db, providerRefundId: string): Promise<RefundRow | undefined> {
  return trx
    .selectFrom('billing_refunds')
    .selectAll()
    .where('provider_refund_id', '=', providerRefundId)
    .executeTakeFirst();
}

/**
 * Records one refund the provider accepted, once per provider refund id, with the caller holding
 * the payment's row lock: the refund row, the pack's proportional credits taken back, and the
 * payment's running total. A refund reaches here from the staff route and from the provider's
 * event; whichever comes second finds the row and changes nothing, so a staff refund whose own
 * write was lost is still recorded (from the event), and never twice.
 *
 * The credit share is computed on the refunds recorded so far (not `amount_refunded`, which a
 * `charge.refunded` event may have raised before the refund itself is recorded), so the shares
 * of all a payment's refunds add up to exactly its credits.
 */
export async function recordRefund(trx: Db, payment: PaymentRow, refund: RefundToRecord): Promise<RecordedRefund> {
  const earlier = await refundByProviderId(trx, refund.providerRefundId);
  if (earlier !== undefined) return { recorded: false, row: earlier, payment };
  const recordedBefore = await recordedRefundTotal(trx, payment.id);
  const clawback = await clawBack(trx, payment, recordedBefore, refund);
  const row = await trx
    .insertInto('billing_refunds')
    .values({
      payment_id: payment.id,
      user_id: payment.user_id,
      provider_refund_id: refund.providerRefundId,
      amount: refund.amount,
      currency: payment.currency,
      reason: refund.reason,
      credits_clawed_back: clawback.taken,
      shortfall: clawback.shortfall,
      actor_id: refund.actorId,
      source: refund.source,
      request_key: refund.requestKey?.key ?? null,
      request_fingerprint: refund.requestKey?.fingerprint ?? null,
    })
    .returningAll()
    .executeTakeFirstOrThrow();

  const total = Number(payment.amount);
  // A staff refund is new money back on top of what the payment shows; a refund from an event
  // may already be in `amount_refunded` (charge.refunded carries the charge's running total).
  const refunded = Math.min(
    total,
    refund.source === 'staff'
      ? Number(payment.amount_refunded) + refund.amount
      : Math.max(Number(payment.amount_refunded), recordedBefore + refund.amount),
  );
  const updated = await trx
    .updateTable('billing_payments')
    .set({
      amount_refunded: refunded,
      status: refunded >= total ? 'refunded' : 'partially_refunded',
      updated_at: sql`now()`,
    })
    .where('id', '=', payment.id)
    .returningAll()
    .executeTakeFirstOrThrow();
  return { recorded: true, row, payment: updated, clawback };
}

async function recordedRefundTotal(trx: Db, paymentId: string): Promise<number> {
  const sum = await trx
    .selectFrom('billing_refunds')
    .select(sql<string>`coalesce(sum(amount), 0)`.as('total'))
    .where('payment_id', '=', paymentId)
    .executeTakeFirstOrThrow();
  return Number(sum.total);
}

/** A credit pack's proportional credits back from what is left of its lots; nothing for other payments. */
async function clawBack(trx: Db, payment: PaymentRow, recordedBefore: number, refund: RefundToRecord) {
  if (payment.kind !== 'credit_pack' || payment.credits === null) return { taken: 0, shortfall: 0 };
  const credits = creditsForRefund(
    { credits: payment.credits, amount: Number(payment.amount), refundedBefore: recordedBefore },
    refund.amount,
  );
  if (credits <= 0) return { taken: 0, shortfall: 0 };
  const result = await clawbackPurchase(trx, {
    userId: payment.user_id,
    credits,
    referenceType: 'payment',
    referenceId: payment.id,
    actorId: refund.actorId,
    reason: refund.reason,
    idempotencyKey: `refund:${refund.providerRefundId}`,
  });
  return { taken: result.taken, shortfall: result.shortfall };
}

export interface BillingRefundsAwaitingPaymentTable {
  provider: PaymentProviderKind;
  provider_refund_id: string;
  provider_payment_id: string;
  amount: ColumnType<number | string, number, number>;
  currency: string;
  status: ProviderRefund['status'];
  reason: string;
  reported_at: ColumnType<Date, string | Date, string | Date>;
  created_at: DefaultedTimestamp;
}

declare module '../../../db/tables.js' {
  interface Tables {
    billing_refunds_awaiting_payment: BillingRefundsAwaitingPaymentTable;
  }
}

export interface ReportedRefund {
  id: string;
  paymentId: string;
  amount: number;
  currency: string;
  status: ProviderRefund['status'];
  reason: string;
}

/**
 * Serializes, per provider payment id, "is the payment here? if not, keep the refund" with
 * "record the payment, then the refunds kept for it". Without it a refund event and its payment's
 * event running at once each missed the other's uncommitted row, and the refund waited forever.
 * The refund side takes it before looking for the payment; the payment side after inserting the
 * payment and before looking for kept refunds: whichever gets it second sees the other's commit.
 */
export async function lockProviderPayment(
  trx: Db,
  provider: PaymentProviderKind,
  providerPaymentId: string,
): Promise<void> {
  await sql`SELECT pg_advisory_xact_lock(hashtextextended(${`billing-payment:${provider}:${providerPaymentId}`}, 0))`.execute(
    trx,
  );
}

/**
 * Keeps a refund of a payment not recorded yet (see migration 0035); its latest reported state wins. Call under
 * lockProviderPayment.
 */
export async function keepRefundForLater(
  trx: Db,
  provider: PaymentProviderKind,
  refund: ReportedRefund,
  reportedAt: string,
): Promise<void> {
  const columns = {
    provider_payment_id: refund.paymentId,
    amount: refund.amount,
    currency: refund.currency,
    status: refund.status,
    reason: refund.reason,
    reported_at: reportedAt,
  };
  await trx
    .insertInto('billing_refunds_awaiting_payment')
    .values({ provider, provider_refund_id: refund.id, ...columns })
    .onConflict((oc) =>
      oc
        .columns(['provider', 'provider_refund_id'])
        .doUpdateSet(columns)
        .where('billing_refunds_awaiting_payment.reported_at', '<=', sql<Date>`excluded.reported_at`),
    )
    .execute();
}

/**
 * Records the refunds reported before this payment (now inserted by the caller's transaction),
 * oldest first, as `recordRefund` does from the provider's event, and forgets them. A refund that
 * failed or was canceled meanwhile is forgotten without a record, as its event would be.
 */
export async function recordRefundsAwaitingPayment(
  trx: Db,
  provider: PaymentProviderKind,
  providerPaymentId: string,
): Promise<Array<Extract<RecordedRefund, { recorded: true }>>> {
  await lockProviderPayment(trx, provider, providerPaymentId);
  const waiting = await trx
    .selectFrom('billing_refunds_awaiting_payment')
    .selectAll()
    .where('provider', '=', provider)
    .where('provider_payment_id', '=', providerPaymentId)
    .orderBy('reported_at')
    .orderBy('provider_refund_id')
    .execute();
  if (waiting.length === 0) return [];
  let payment = await trx
    .selectFrom('billing_payments')
    .selectAll()
    .where('provider', '=', provider)
    .where('provider_payment_id', '=', providerPaymentId)
    .forUpdate()
    .executeTakeFirst();
  if (payment === undefined) return [];
  const recorded: Array<Extract<RecordedRefund, { recorded: true }>> = [];
  for (const refund of waiting) {
    if (refund.status === 'failed' || refund.status === 'canceled') continue;
    const result = await recordRefund(trx, payment, {
      providerRefundId: refund.provider_refund_id,
      amount: Number(refund.amount),
      reason: refund.reason,
      actorId: null,
      source: 'provider',
    });
    if (!result.recorded) continue;
    payment = result.payment;
    recorded.push(result);
  }
  await trx
    .deleteFrom('billing_refunds_awaiting_payment')
    .where('provider', '=', provider)
    .where('provider_payment_id', '=', providerPaymentId)
    .execute();
  return recorded;
}
