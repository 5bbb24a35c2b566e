/**
 * What the service asks of the payment provider. Money is in integer minor units with a
 * lowercase ISO 4217 currency. The provider owns customers, checkouts, subscriptions, invoices
 * and refunds; the service mirrors what it needs from the provider's events, and fulfils
 * (credits, tiers) from those events only, so a paid checkout is fulfilled on one path whichever
 * provider runs. The embedded default is the `local` provider; production is Stripe.
 */

export type PaymentProviderKind = 'local' | 'stripe';

export interface ProviderCustomerInput {
  /** The service's user id, kept in the provider's metadata so its events lead back. */
  userId: string;
  email: string | null;
  name: string | null;
}

export type CheckoutMode = 'payment' | 'subscription';

export interface ProviderCheckoutInput {
  customerId: string;
  mode: CheckoutMode;
  providerPriceId: string;
  /** One-off payments (credit packs): 1..99. Subscriptions: always 1 (a single seat). */
  quantity: number;
  successUrl: string;
  cancelUrl: string;
  /** A provider promotion code id to apply, when the player entered one. */
  promotionCodeId?: string;
  /** Copied onto the checkout and what it creates (payment, subscription) for fulfilment. */
  metadata: Record<string, string>;
  /**
   * Makes the create safe to retry: the same key returns the same checkout instead of a
   * second one (Stripe's Idempotency-Key).
   */
  idempotencyKey: string;
}

export interface ProviderCheckout {
  id: string;
  /** Where to send the player; null when the provider has none (for example already completed). */
  url: string | null;
}

export interface ProviderRefundInput {
  /** The provider's payment id (Stripe: the PaymentIntent). */
  paymentId: string;
  /** Minor units; omitted refunds what is left. */
  amount?: number;
  reason?: string;
  idempotencyKey: string;
}

export interface ProviderRefund {
  id: string;
  amount: number;
  currency: string;
  status: 'pending' | 'succeeded' | 'failed' | 'canceled';
}

export interface ProviderInvoice {
  id: string;
  customerId: string;
  subscriptionId: string | null;
  status: 'draft' | 'open' | 'paid' | 'void' | 'uncollectible';
  currency: string;
  amountDue: number;
  amountPaid: number;
  hostedUrl: string | null;
  periodStart: string | null;
  periodEnd: string | null;
  createdAt: string;
}

export interface ProviderCouponInput {
  /** Exactly one of percentOff (0 < p <= 100) and amountOff (minor units, with currency). */
  percentOff?: number;
  amountOff?: number;
  currency?: string;
  duration: 'once' | 'repeating' | 'forever';
  durationInMonths?: number;
  maxRedemptions?: number;
  redeemBy?: string;
  name: string;
}

export interface ProviderPromotionCodeInput {
  couponId: string;
  code: string;
  maxRedemptions?: number;
  expiresAt?: string;
  firstTimeTransaction: boolean;
  active: boolean;
}

export type SubscriptionStatus =
  | 'incomplete'
  | 'incomplete_expired'
  | 'trialing'
  | 'active'
  | 'past_due'
  | 'canceled'
  | 'unpaid'
  | 'paused';

/** A subscription as the provider reports it after a change or in an event. */
export interface ProviderSubscription {
  id: string;
  customerId: string;
  status: SubscriptionStatus;
  providerPriceId: string;
  cancelAtPeriodEnd: boolean;
  currentPeriodEnd: string | null;
  canceledAt: string | null;
  metadata: Record<string, string>;
}

/**
 * The provider's webhook events, turned into the service's own vocabulary. `occurredAt` orders
 * events about one object: an event older than what is stored never rolls state back.
 */
export type PaymentEvent =
  | {
      type: 'checkout.completed';
      eventId: string;
      occurredAt: string;
      checkoutId: string;
      customerId: string;
      mode: CheckoutMode;
      paymentId: string | null;
      subscriptionId: string | null;
      amountTotal: number;
      currency: string;
      metadata: Record<string, string>;
    }
  | {
      type: 'checkout.expired';
      eventId: string;
      occurredAt: string;
      checkoutId: string;
      metadata: Record<string, string>;
    }
  /**
   * `created`: the provider's first snapshot of the subscription (Stripe's
   * customer.subscription.created). It is often stamped the same second as the first update,
   * so the timestamp alone cannot order the two; a created snapshot never replaces a state
   * another subscription event already wrote.
   */
  | {
      type: 'subscription.updated';
      eventId: string;
      occurredAt: string;
      subscription: ProviderSubscription;
      created?: boolean;
    }
  | { type: 'subscription.deleted'; eventId: string; occurredAt: string; subscription: ProviderSubscription }
  | { type: 'invoice.paid'; eventId: string; occurredAt: string; invoice: ProviderInvoice; paymentId: string | null }
  | { type: 'invoice.payment_failed'; eventId: string; occurredAt: string; invoice: ProviderInvoice }
  /** A payment that paid (part of) an invoice, reported apart from the invoice (Stripe's invoice_payment.paid). */
  | {
      type: 'invoice.payment_linked';
      eventId: string;
      occurredAt: string;
      link: { invoiceId: string; paymentId: string; amount: number; currency: string };
    }
  | {
      type: 'charge.refunded';
      eventId: string;
      occurredAt: string;
      paymentId: string;
      amountRefunded: number;
      currency: string;
    }
  /**
   * A refund of one payment, made by the service or elsewhere (the provider's dashboard); `reason` is the staff
   * member's words when the service made it.
   */
  | {
      type: 'refund.recorded';
      eventId: string;
      occurredAt: string;
      refund: ProviderRefund & { paymentId: string; reason: string | null };
    }
  /** An event type the service does not act on: stored (once) and otherwise ignored. */
  | { type: 'ignored'; eventId: string; occurredAt: string; providerType: string };

export interface PaymentProvider {
  readonly kind: PaymentProviderKind;
  createCustomer(input: ProviderCustomerInput): Promise<{ id: string }>;
  createCheckout(input: ProviderCheckoutInput): Promise<ProviderCheckout>;
  /** The provider's self-service page where the customer manages payment methods and plans. */
  createPortalSession(customerId: string, returnUrl: string): Promise<{ url: string }>;
  /** Moves the subscription's single item to another price, without proration. */
  changeSubscriptionPrice(
    subscriptionId: string,
    providerPriceId: string,
    idempotencyKey: string,
  ): Promise<ProviderSubscription>;
  cancelSubscription(subscriptionId: string, when: 'now' | 'period_end'): Promise<ProviderSubscription>;
  /** Undoes a cancel-at-period-end. */
  resumeSubscription(subscriptionId: string): Promise<ProviderSubscription>;
  refundPayment(input: ProviderRefundInput): Promise<ProviderRefund>;
  listInvoices(customerId: string, limit: number): Promise<ProviderInvoice[]>;
  createCoupon(input: ProviderCouponInput): Promise<{ id: string }>;
  deleteCoupon(couponId: string): Promise<void>;
  createPromotionCode(input: ProviderPromotionCodeInput): Promise<{ id: string }>;
  updatePromotionCode(promotionCodeId: string, input: { active?: boolean }): Promise<void>;
  /**
   * Verifies a webhook delivery (signature over the raw body, 5 minute tolerance) and turns it
   * into a PaymentEvent. Throws WebhookSignatureError when it does not verify.
   */
  parseWebhook(rawBody: Buffer, signatureHeader: string | undefined): PaymentEvent;
  /** The provider dashboard page of an object, for staff deep links. */
  dashboardUrl(type: 'customer' | 'subscription' | 'invoice' | 'payment', id: string): string;
}

/** The webhook body does not carry a valid signature (or is too old): 400, nothing processed. */
export class WebhookSignatureError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookSignatureError';
  }
}

/**
 * The provider refused (card declined, unknown price, invalid coupon: `refused` with the
 * provider's code and message, safe to show staff) or failed (network, 5xx, rate limit after
 * retries: `unavailable`). Never carries keys.
 */
export class PaymentProviderError extends Error {
  constructor(
    readonly operation: string,
    readonly kind: 'refused' | 'unavailable',
    readonly code: string | null,
    message: string,
    readonly status: number | null = null,
  ) {
    super(message);
    this.name = 'PaymentProviderError';
  }
}

export interface PaymentsConfig {
  /** Stripe's secret key; absent: the `local` provider. */
  stripeSecretKey: string | undefined;
  stripeWebhookSecret: string | undefined;
  /** Overrides the Stripe API host (tests point the SDK at a loopback server): `http://127.0.0.1:1234`. */
  stripeApiBase: string | undefined;
}
