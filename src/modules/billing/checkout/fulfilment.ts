import type { Kysely } from 'kysely';
import type { FastifyBaseLogger } from 'fastify';
import type { PaymentEvent, PaymentProviderKind } from '../../../adapters/payments/index.js';
import type { Tables } from '../../../db/tables.js';
import type { Write, Writes } from '../../../kernel/write.js';
import { addCredits } from '../credits/index.js';
import { expireOpenCheckout, storeEventOnce, userOfCustomer, userOfSubscription } from './fulfilment-queries.js';
import { insertCheckoutSubscription } from './subscription-queries.js';
import { applyProviderSubscription, syncUserTier } from './subscriptions.js';
import { markCheckoutCompleted, markEventIgnored, storedCheckout } from './queries.js';
import {
  fillSubscriptionPayments,
  insertPaymentOnce,
  keepRefundForLater,
  linkInvoicePayment,
  lockInvoice,
  lockPaymentByProviderId,
  lockProviderPayment,
  raiseRefundedAmount,
  recordRefund,
  recordRefundsAwaitingPayment,
  settleInvoicePayments,
  upsertReportedInvoice,
  type RecordedRefund,
} from '../payments/index.js';

type Db = Kysely<Tables>;
type CheckoutCompleted = Extract<PaymentEvent, { type: 'checkout.completed' }>;
type SubscriptionEvent = Extract<PaymentEvent, { type: 'subscription.updated' | 'subscription.deleted' }>;
type InvoiceEvent = Extract<PaymentEvent, { type: 'invoice.paid' | 'invoice.payment_failed' }>;
type RecordedProviderRefund = Extract<RecordedRefund, { recorded: true }>;

/**
 * Fulfilment: the one path every provider event takes, from the Stripe webhook and the local
 * checkout page alike. The event id is stored first, in the transaction of its effects: a
 * redelivery finds it and does nothing, and an effect that fails rolls the id back with it so
 * the provider's retry runs it again. Events about one subscription or invoice apply only when
 * not older than the last one applied, so out-of-order delivery never rolls state back.
 */
export class Fulfilment {
  constructor(
    private readonly write: Writes,
    private readonly provider: PaymentProviderKind,
    private readonly log: FastifyBaseLogger,
  ) {}

  /** 'duplicate' when this event id was processed before (nothing happens again). */
  async process(event: PaymentEvent): Promise<'processed' | 'duplicate'> {
    // Retried on a deadlock or serialization failure: events lock subscription, payment and user
    // rows that staff actions and account deletion also lock, not always in the same order. A
    // 500 would lose the local provider's payment for good (its page does not pay twice) and
    // make Stripe redeliver hours later; the effects all go through `w`, so a retry is safe.
    return this.write(async (w) => {
      const stored = await storeEventOnce(w.trx, this.provider, {
        eventId: event.eventId,
        type: event.type === 'ignored' ? event.providerType : event.type,
        occurredAt: event.occurredAt,
      });
      if (!stored) return 'duplicate';
      await this.#apply(w, event);
      return 'processed';
    });
  }

  async #apply(w: Write, event: PaymentEvent): Promise<void> {
    const { trx } = w;
    switch (event.type) {
      case 'checkout.completed':
        return this.#checkoutCompleted(w, event);
      case 'checkout.expired':
        return expireOpenCheckout(trx, this.provider, event.checkoutId);
      case 'subscription.updated':
      case 'subscription.deleted':
        return this.#subscriptionChanged(trx, event);
      case 'invoice.paid':
        return this.#invoice(w, event, event.paymentId);
      case 'invoice.payment_failed':
        return this.#invoice(w, event, null);
      case 'invoice.payment_linked':
        for (const recorded of await linkInvoicePayment(trx, this.provider, event.link))
          await this.#refunded(w, recorded, event.occurredAt);
        return;
      case 'charge.refunded':
        // The money side only; taking back a refunded pack's credits belongs to the refund flow.
        return raiseRefundedAmount(trx, this.provider, event.paymentId, event.amountRefunded);
      case 'refund.recorded':
        return this.#refundRecorded(w, event);
      case 'ignored':
        return;
    }
  }

  /**
   * Whose event this is: the player whose customer this service made at the provider. Never the
   * event's metadata: another integration on the same provider account could name anyone there.
   */
  async #userOf(trx: Db, customerId: string | null): Promise<string | null> {
    if (customerId === null) return null;
    return (await userOfCustomer(trx, this.provider, customerId)) ?? null;
  }

  /**
   * An event recorded and not acted on: its row says why (a redelivery finds it and does nothing
   * either), and the operator is told. The provider gets its 2xx, so it stops retrying.
   */
  async #ignored(trx: Db, event: PaymentEvent, objectId: string, reason: string): Promise<void> {
    this.log.warn(
      { provider: this.provider, event_id: event.eventId, event_type: event.type, object_id: objectId, reason },
      'payment event recorded, not acted on',
    );
    await markEventIgnored(trx, this.provider, event.eventId, reason);
  }

  /**
   * A refund the provider reports: recorded once (the staff route may have recorded it already), credits clawed back as
   * a staff refund would.
   */
  async #refundRecorded(
    w: Write,
    { refund, occurredAt }: Extract<PaymentEvent, { type: 'refund.recorded' }>,
  ): Promise<void> {
    const { trx } = w;
    // Before looking for the payment: a payment recorded at this moment then finds this refund kept.
    await lockProviderPayment(trx, this.provider, refund.paymentId);
    const payment = await lockPaymentByProviderId(trx, this.provider, refund.paymentId);
    const reason =
      refund.reason !== null && refund.reason.trim().length >= 3
        ? refund.reason.trim().slice(0, 500)
        : 'Refunded at the payment provider';
    if (payment === undefined) {
      // Events arrive in any order: the payment's may come later (a redelivery). Dropping the
      // refund here lost it for good (credits kept, payment shown unrefunded); it is kept and
      // recorded with its payment (migration 0035). Failed ones too, so a later report wins.
      await keepRefundForLater(trx, this.provider, { ...refund, reason }, occurredAt);
      this.log.warn(
        { provider: this.provider, refund_id: refund.id, payment_id: refund.paymentId },
        'refund of a payment not recorded (yet): kept until the payment is',
      );
      return;
    }
    if (refund.status === 'failed' || refund.status === 'canceled') {
      this.log.warn(
        { provider: this.provider, refund_id: refund.id, status: refund.status },
        'payment provider reports a refund that did not go through: not recorded',
      );
      return;
    }
    const recorded = await recordRefund(trx, payment, {
      providerRefundId: refund.id,
      amount: refund.amount,
      reason,
      actorId: null,
      source: 'provider',
    });
    if (!recorded.recorded) return;
    await this.#refunded(w, recorded, occurredAt);
  }

  /** The dashboard event of a refund recorded from the provider's report. */
  async #refunded(w: Write, { row, payment, clawback }: RecordedProviderRefund, occurredAt: string): Promise<void> {
    await w.publish({
      kind: 'dashboard',
      name: 'billing.payment_refunded',
      payload: {
        user_id: payment.user_id,
        payment_id: payment.id,
        refund_id: row.id,
        amount: Number(row.amount),
        currency: payment.currency,
        credits_clawed_back: clawback.taken,
        shortfall: clawback.shortfall,
        source: 'provider',
        occurred_at: occurredAt,
      },
    });
  }

  /**
   * Only a checkout this service made is fulfilled, and only as it was stored: for its player, its
   * product and quantity, and the credits fixed when it was made. The event's metadata is whatever
   * the maker of a checkout wrote, and anyone making checkouts on the provider account (a payment
   * link, another integration) gets events signed like ours: one for a checkout made elsewhere
   * granted the 1,000,000 credits its metadata named. What the provider charged (`amountTotal`)
   * is its own report of the money, and is recorded as such.
   */
  async #checkoutCompleted(w: Write, event: CheckoutCompleted): Promise<void> {
    const { trx } = w;
    const checkout = await storedCheckout(trx, this.provider, event.checkoutId);
    const ignore = (reason: string) => this.#ignored(trx, event, event.checkoutId, reason);
    if (checkout === undefined) return ignore('a checkout this service did not make');
    if (checkout.mode !== event.mode) return ignore(`completed in ${event.mode} mode, made in ${checkout.mode} mode`);
    const userId = checkout.user_id;
    await markCheckoutCompleted(trx, checkout.id, event.occurredAt);

    if (checkout.mode === 'subscription') {
      if (event.subscriptionId === null) return;
      // The subscription's own events carry its status and period; until one arrives, a paid checkout means active.
      await insertCheckoutSubscription(trx, {
        userId,
        provider: this.provider,
        providerSubscriptionId: event.subscriptionId,
        productId: checkout.product_id,
        providerPriceId: checkout.provider_price_id,
        providerCustomerId: event.customerId,
      });
      await syncUserTier(trx, userId);
      await fillSubscriptionPayments(trx, this.provider, event.subscriptionId);
      await w.publish({
        kind: 'dashboard',
        name: 'billing.subscription_started',
        payload: {
          user_id: userId,
          product_id: checkout.product_id,
          amount: event.amountTotal,
          currency: event.currency,
        },
      });
      return;
    }

    const quantity = checkout.quantity;
    const credits = checkout.credits === null ? null : checkout.credits * quantity;
    const providerPaymentId = event.paymentId ?? event.checkoutId;
    const payment = await insertPaymentOnce(trx, {
      user_id: userId,
      provider: this.provider,
      provider_payment_id: providerPaymentId,
      product_id: checkout.product_id,
      price_id: checkout.price_id,
      kind: 'credit_pack',
      quantity,
      credits,
      amount: event.amountTotal,
      currency: event.currency,
      checkout_session_id: checkout.id,
    });
    if (payment === undefined) return; // this payment was fulfilled by an earlier event
    // A checkout closed before its credits were stored (migration 0045): the payment is kept, and staff grant by hand.
    if (credits === null) return this.#ignored(trx, event, event.checkoutId, 'the checkout stored no credits');
    await addCredits(trx, {
      userId,
      amount: credits,
      kind: 'purchase',
      actorId: null,
      referenceType: 'payment',
      referenceId: payment.id,
      idempotencyKey: `payment:${this.provider}:${providerPaymentId}`,
      reason: `Bought ${quantity} × ${checkout.product_name}`,
    });
    await w.publish({
      kind: 'dashboard',
      name: 'billing.credits_purchased',
      payload: {
        user_id: userId,
        payment_id: payment.id,
        product_id: checkout.product_id,
        quantity,
        credits,
        amount: event.amountTotal,
        currency: event.currency,
      },
    });
    // Refunds reported before this payment (their events came first) are recorded now, credits taken back.
    for (const recorded of await recordRefundsAwaitingPayment(trx, this.provider, providerPaymentId))
      await this.#refunded(w, recorded, event.occurredAt);
  }

  async #subscriptionChanged(trx: Db, event: SubscriptionEvent): Promise<void> {
    const { subscription, occurredAt } = event;
    const deleted = event.type === 'subscription.deleted';
    const created = event.type === 'subscription.updated' && event.created === true;
    const userId = await this.#userOf(trx, subscription.customerId);
    if (userId === null) return this.#ignored(trx, event, subscription.id, 'no known user');
    await applyProviderSubscription(trx, this.provider, userId, subscription, { deleted, occurredAt, created });
  }

  async #invoice(w: Write, event: InvoiceEvent, paymentId: string | null): Promise<void> {
    const { trx } = w;
    const { invoice, occurredAt } = event;
    // Before anything of the invoice is written: its payment's link may be arriving at this moment.
    await lockInvoice(trx, this.provider, invoice.id);
    const subscriptionUser =
      invoice.subscriptionId === null
        ? undefined
        : await userOfSubscription(trx, this.provider, invoice.subscriptionId);
    const userId = subscriptionUser ?? (await this.#userOf(trx, invoice.customerId));
    if (userId === null) return this.#ignored(trx, event, invoice.id, 'no known user');
    await upsertReportedInvoice(trx, { provider: this.provider, userId, invoice, occurredAt, paymentId });
    const refunds =
      paymentId !== null
        ? await linkInvoicePayment(trx, this.provider, {
            invoiceId: invoice.id,
            paymentId,
            amount: invoice.amountPaid,
            currency: invoice.currency,
          })
        : // A payment that named this invoice before it arrived (invoice_payment.paid first) is recorded now.
          await settleInvoicePayments(trx, this.provider, invoice.id);
    for (const recorded of refunds) await this.#refunded(w, recorded, occurredAt);
  }
}
