import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { PaymentProvider } from '../../../adapters/payments/index.js';
import type { Tables } from '../../../db/tables.js';
import type { Actor } from '../../../kernel/actor.js';
import { conflict, invalidRequest, invalidState, notFound } from '../../../kernel/errors.js';
import { paged } from '../../../kernel/pagination.js';
import { atProvider } from '../provider-errors.js';
import { paymentPicture } from './audit-picture.js';
import type { Writes } from '../../../kernel/write.js';
import {
  invoiceView,
  listInvoices,
  listPayments,
  lockPayment,
  paymentListItemView,
  refundByRequestKey,
  refundView,
} from './queries.js';
import { recordRefund } from './refund-recording.js';
import type { ListInvoicesQuery, ListPaymentsQuery, RefundInput, RefundView } from './schemas.js';

/**
 * Staff views of payments and invoices, and refunds. A refund holds the payment's row lock from
 * the first read to the commit, the provider call included: refunds of one payment queue up, each
 * seeing the total the previous one left. The provider's idempotency key names the payment, the
 * total refunded so far and the amount, so a retry after a failure between the provider's answer
 * and the commit gets the same refund back instead of a second one.
 */
export class BillingPaymentsService {
  constructor(
    private readonly db: Kysely<Tables>,
    private readonly write: Writes,
    private readonly payments: PaymentProvider,
  ) {}

  async listPayments(query: ListPaymentsQuery) {
    const { rows, total } = await listPayments(this.db, query);
    return paged(rows.map(paymentListItemView), query, total);
  }

  async listInvoices(query: ListInvoicesQuery) {
    const { rows, total } = await listInvoices(this.db, query);
    return paged(rows.map(invoiceView), query, total);
  }

  async refund(
    actor: Actor,
    paymentId: string,
    input: RefundInput,
    idempotencyKey?: string,
  ): Promise<RefundView & { replayed: boolean }> {
    // Retried on a deadlock (the clawback locks the user after the payment; ledger writes lock
    // users first): run again, the same total read under the lock gives the same provider key,
    // so the provider answers the refund it made instead of refunding twice.
    return this.write(actor, async (w) => {
      const payment = await lockPayment(w.trx, paymentId);
      if (payment === undefined) throw notFound();
      const request =
        idempotencyKey === undefined ? undefined : { key: idempotencyKey, fingerprint: requestFingerprint(input) };
      if (request !== undefined) {
        const earlier = await refundByRequestKey(w.trx, payment.id, request.key);
        if (earlier !== undefined) {
          if (earlier.request_fingerprint !== request.fingerprint)
            throw conflict({ reason: 'this idempotency key was already used for a different request' });
          return { ...refundView(earlier, payment), replayed: true };
        }
      }
      const total = Number(payment.amount);
      const refundedBefore = Number(payment.amount_refunded);
      const refundable = total - refundedBefore;
      if (refundable <= 0) throw invalidState({ reason: 'this payment is fully refunded', status: payment.status });
      const amount = input.amount ?? refundable;
      if (amount > refundable)
        throw invalidRequest({ reason: 'the amount is more than is left to refund', refundable });

      const refund = await atProvider(
        () =>
          this.payments.refundPayment({
            paymentId: payment.provider_payment_id,
            amount,
            reason: input.reason,
            idempotencyKey: providerRefundKey(payment.id, request?.key, refundedBefore, amount),
          }),
        { withMessage: true },
      );
      if (refund.status === 'failed' || refund.status === 'canceled') {
        throw invalidRequest({
          reason: 'the payment provider refused the request',
          provider_code: `refund_${refund.status}`,
        });
      }

      const recorded = await recordRefund(w.trx, payment, {
        providerRefundId: refund.id,
        amount: refund.amount,
        reason: input.reason,
        actorId: actor.userId,
        source: 'staff',
        ...(request === undefined ? {} : { requestKey: request }),
      });
      // The provider answered a refund already recorded from its event (this request's earlier try lost its write):
      // that one is the answer.
      if (!recorded.recorded) return { ...refundView(recorded.row, recorded.payment), replayed: true };
      const { row, payment: updated, clawback } = recorded;
      await w.auditRow(paymentPicture, {
        action: 'billing.payment.refund',
        targetType: 'billing_payment',
        targetId: payment.id,
        reason: input.reason,
        before: payment,
        after: updated,
        extra: {
          refund_id: row.id,
          provider_refund_id: refund.id,
          user_id: payment.user_id,
          amount: refund.amount,
          currency: payment.currency,
          credits_clawed_back: clawback.taken,
          shortfall: clawback.shortfall,
          ...(request === undefined ? {} : { idempotency_key: request.key }),
        },
      });
      return { ...refundView(row, updated), replayed: false };
    });
  }
}

/** What a repeat under the same Idempotency-Key must ask again to be answered with the first refund. */
function requestFingerprint(input: RefundInput): string {
  return createHash('sha256')
    .update(JSON.stringify([input.amount ?? null, input.reason]))
    .digest('hex');
}

/**
 * The provider's idempotency key. With the caller's Idempotency-Key it names that request, so a
 * retry gets the same refund back whatever happened in between. Without one it names the
 * payment, the total refunded so far and the amount: a retry after a failure between the
 * provider's answer and our commit is the same refund, while a second refund of the same amount
 * after the first was recorded is a new one.
 */
function providerRefundKey(
  paymentId: string,
  requestKey: string | undefined,
  refundedBefore: number,
  amount: number,
): string {
  if (requestKey !== undefined)
    return `refund:${paymentId}:request:${createHash('sha256').update(requestKey).digest('hex').slice(0, 40)}`;
  return `refund:${paymentId}:${refundedBefore}:${amount}`;
}
