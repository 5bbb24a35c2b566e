import type { Kysely } from 'kysely';
import type { PaymentProviderKind } from '../../../adapters/payments/index.js';
import type { Tables } from '../../../db/tables.js';
import { clawbackPurchase } from '../credits/index.js';
import {
  forgetRefundsAwaitingPayment,
  insertRefund,
  lockPaymentByProviderId,
  lockProviderPayment,
  recordedRefundTotal,
  refundByProviderId,
  refundsAwaitingPayment,
  setPaymentRefunded,
} from './queries.js';
import type { PaymentRow, RefundRow, RefundSource } from './tables.js';

// Fulfilment records refunds reported by the provider through these too.
export { keepRefundForLater, lockPaymentByProviderId, lockProviderPayment } from './queries.js';

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
  const row = await insertRefund(trx, {
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
  });

  const total = Number(payment.amount);
  // A staff refund is new money back on top of what the payment shows; a refund from an event
  // may already be in `amount_refunded` (charge.refunded carries the charge's running total).
  const refunded = Math.min(
    total,
    refund.source === 'staff'
      ? Number(payment.amount_refunded) + refund.amount
      : Math.max(Number(payment.amount_refunded), recordedBefore + refund.amount),
  );
  const updated = await setPaymentRefunded(trx, payment.id, {
    amount: refunded,
    status: refunded >= total ? 'refunded' : 'partially_refunded',
  });
  return { recorded: true, row, payment: updated, clawback };
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
  const waiting = await refundsAwaitingPayment(trx, provider, providerPaymentId);
  if (waiting.length === 0) return [];
  let payment = await lockPaymentByProviderId(trx, provider, providerPaymentId);
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
  await forgetRefundsAwaitingPayment(trx, provider, providerPaymentId);
  return recorded;
}
