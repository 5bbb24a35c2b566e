import type { Kysely } from 'kysely';
import type { PaymentProvider } from '../../adapters/payments/index.js';
import type { Tables } from '../../db/tables.js';
import type { Actor } from '../../kernel/actor.js';
import { recordAudit } from '../../kernel/audit.js';
import { invalidRequest, invalidState, notFound } from '../../kernel/errors.js';
import { paged } from '../../kernel/pagination.js';
import { atProvider } from '../billing/provider-errors.js';
import { clawbackPurchase } from '../credits/ledger.js';
import {
  addRefundedAmount,
  insertRefund,
  invoiceView,
  listInvoices,
  listPayments,
  lockPayment,
  paymentView,
  refundView,
  type PaymentRow,
} from './queries.js';
import type { ListInvoicesQuery, ListPaymentsQuery, RefundInput, RefundView } from './schemas.js';

/**
 * The pack credits a refund takes back: the payment's credits in proportion to the money
 * refunded, rounded down on the running total, so partial refunds never take more than their
 * share and the refund that completes the payment takes exactly what is left of the pack.
 */
export function creditsForRefund(payment: { credits: number; amount: number; refundedBefore: number }, amount: number): number {
  const share = (refunded: number) => Math.floor((payment.credits * refunded) / payment.amount);
  return share(payment.refundedBefore + amount) - share(payment.refundedBefore);
}

/**
 * Staff views of payments and invoices, and refunds. A refund holds the payment's row lock from
 * the first read to the commit, the provider call included: refunds of one payment queue up, each
 * seeing the total the previous one left. The provider's idempotency key names the payment, the
 * total refunded so far and the amount, so a retry after a failure between the provider's answer
 * and the commit gets the same refund back instead of a second one.
 */
export class BillingPaymentsService {
  constructor(private readonly db: Kysely<Tables>, private readonly payments: PaymentProvider) {}

  async listPayments(query: ListPaymentsQuery) {
    const { rows, total } = await listPayments(this.db, query);
    return paged(rows.map(paymentView), query, total);
  }

  async listInvoices(query: ListInvoicesQuery) {
    const { rows, total } = await listInvoices(this.db, query);
    return paged(rows.map(invoiceView), query, total);
  }

  async refund(actor: Actor, paymentId: string, input: RefundInput): Promise<RefundView> {
    return this.db.transaction().execute(async (trx) => {
      const payment = await lockPayment(trx, paymentId);
      if (payment === undefined) throw notFound();
      const total = Number(payment.amount);
      const refundedBefore = Number(payment.amount_refunded);
      const refundable = total - refundedBefore;
      if (refundable <= 0) throw invalidState({ reason: 'this payment is fully refunded', status: payment.status });
      const amount = input.amount ?? refundable;
      if (amount > refundable) throw invalidRequest({ reason: 'the amount is more than is left to refund', refundable });

      const refund = await atProvider(() => this.payments.refundPayment({
        paymentId: payment.provider_payment_id,
        amount,
        reason: input.reason,
        idempotencyKey: `refund:${payment.id}:${refundedBefore}:${amount}`,
      }), { withMessage: true });
      if (refund.status === 'failed' || refund.status === 'canceled') {
        throw invalidRequest({ reason: 'the payment provider refused the request', provider_code: `refund_${refund.status}` });
      }

      const clawback = await this.#clawBack(trx, actor, payment, refundedBefore, amount, refund.id, input.reason);
      const row = await insertRefund(trx, {
        payment_id: payment.id, user_id: payment.user_id, provider_refund_id: refund.id, amount, currency: payment.currency,
        reason: input.reason, credits_clawed_back: clawback.taken, shortfall: clawback.shortfall, actor_id: actor.userId,
      });
      const updated = await addRefundedAmount(trx, payment.id, amount);
      await recordAudit(trx, actor, {
        action: 'billing.payment.refund',
        targetType: 'billing_payment',
        targetId: payment.id,
        reason: input.reason,
        before: { amount_refunded: refundedBefore, status: payment.status },
        after: { amount_refunded: Number(updated.amount_refunded), status: updated.status },
        extra: {
          refund_id: row.id, provider_refund_id: refund.id, user_id: payment.user_id, amount, currency: payment.currency,
          credits_clawed_back: clawback.taken, shortfall: clawback.shortfall,
        },
      });
      return refundView(row, updated);
    });
  }

  /** A credit pack's proportional credits back from what is left of its lots; nothing for other payments. */
  async #clawBack(trx: Kysely<Tables>, actor: Actor, payment: PaymentRow, refundedBefore: number, amount: number, providerRefundId: string, reason: string) {
    if (payment.kind !== 'credit_pack' || payment.credits === null) return { taken: 0, shortfall: 0 };
    const credits = creditsForRefund({ credits: payment.credits, amount: Number(payment.amount), refundedBefore }, amount);
    if (credits <= 0) return { taken: 0, shortfall: 0 };
    const result = await clawbackPurchase(trx, {
      userId: payment.user_id, credits, referenceType: 'payment', referenceId: payment.id, actorId: actor.userId, reason,
      idempotencyKey: `refund:${providerRefundId}`,
    });
    return { taken: result.taken, shortfall: result.shortfall };
  }
}
