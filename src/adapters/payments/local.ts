import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { validateHeaderValue } from 'node:http';
import { dirname } from 'node:path';
import {
  PaymentProviderError,
  WebhookSignatureError,
  type PaymentEvent,
  type PaymentProvider,
  type ProviderCheckout,
  type ProviderCheckoutInput,
  type ProviderCouponInput,
  type ProviderCustomerInput,
  type ProviderInvoice,
  type ProviderPromotionCodeInput,
  type ProviderRefund,
  type ProviderRefundInput,
  type ProviderSubscription,
} from './index.js';

export type DashboardObjectType = 'customer' | 'subscription' | 'invoice' | 'payment';

/** What the local provider needs to know of a price to charge it (read from the catalog by the caller). */
export interface LocalPrice {
  unitAmount: number;
  currency: string;
  interval: 'month' | 'year' | null;
}

export interface LocalCheckout {
  id: string;
  customerId: string;
  mode: 'payment' | 'subscription';
  providerPriceId: string;
  quantity: number;
  /** Price × quantity before any discount (absent in state saved before discounts existed: no discount then). */
  subtotal?: number;
  amountTotal: number;
  currency: string;
  /** The price's billing interval (subscriptions only). */
  interval: 'month' | 'year' | null;
  successUrl: string;
  cancelUrl: string;
  metadata: Record<string, string>;
  status: 'open' | 'complete' | 'expired';
  idempotencyKey: string;
  createdAt: string;
  /** The coupon of the promotion code applied, if any: the total is already discounted by it. */
  discount?: LocalDiscount;
}

/** A coupon's terms as applied to a subscription's invoices; `periodsLeft` null: every one. */
export interface LocalDiscount {
  percentOff?: number;
  amountOff?: number;
  periodsLeft: number | null;
}

interface LocalPayment {
  id: string;
  customerId: string;
  amount: number;
  currency: string;
  refunded: number;
}

interface LocalState {
  customers: Record<string, { userId: string; email: string | null }>;
  checkouts: Record<string, LocalCheckout>;
  subscriptions: Record<
    string,
    ProviderSubscription & {
      interval: 'month' | 'year';
      unitAmount: number;
      currency: string;
      discount?: LocalDiscount;
    }
  >;
  payments: Record<string, LocalPayment>;
  invoices: Record<string, ProviderInvoice>;
  coupons: Record<string, ProviderCouponInput>;
  promotionCodes: Record<string, ProviderPromotionCodeInput>;
  /** Refunds by the idempotency key they were made with: a retry gets the same refund back. */
  refundsByKey: Record<string, ProviderRefund & { paymentId: string }>;
}

export interface LocalPaymentProviderOptions {
  /** Finds a price by its provider id; null when the catalog has none. */
  priceLookup: (providerPriceId: string) => Promise<LocalPrice | null>;
  /** The service's public base URL: checkout and portal pages are served there. */
  publicBaseUrl: () => string;
  /** Where the provider's state survives restarts (the embedded default keeps it in DATA_DIR); absent: memory only. */
  stateFile?: string;
  now?: () => Date;
}

/**
 * Every map of the state is keyed by ids that arrive in requests (a checkout id in the page's URL,
 * an idempotency key): without a prototype, `toString` or `__proto__` names nothing, as any other
 * unknown id (a plain `{}` answered Object.prototype's members: a 500 on the checkout page).
 */
const idMap = <T>(entries: Record<string, T> = {}): Record<string, T> =>
  Object.assign(Object.create(null) as Record<string, T>, entries);

const emptyState = (): LocalState => ({
  customers: idMap(),
  checkouts: idMap(),
  subscriptions: idMap(),
  payments: idMap(),
  invoices: idMap(),
  coupons: idMap(),
  promotionCodes: idMap(),
  refundsByKey: idMap(),
});

function loadedState(saved: Partial<LocalState>): LocalState {
  const state = emptyState();
  for (const name of Object.keys(state) as Array<keyof LocalState>) Object.assign(state[name], saved[name] ?? {});
  return state;
}

/**
 * Stripe refuses a redirect URL it cannot use (`url_invalid`); so does this provider, whose own page
 * writes these URLs into a Location header: an http(s) URL that header can carry, or nothing is made.
 */
function checkRedirectTarget(operation: string, param: string, value: string): void {
  if (isRedirectTarget(value)) return;
  throw new PaymentProviderError(operation, 'refused', 'url_invalid', `Not a valid URL: ${param}`, 400);
}

function isRedirectTarget(value: string): boolean {
  try {
    validateHeaderValue('location', value);
    return /^https?:$/.test(new URL(value).protocol);
  } catch {
    return false;
  }
}

function newId(prefix: string): string {
  return `${prefix}_local_${randomBytes(12).toString('hex')}`;
}

/** What is charged after a discount: never below zero; an amount off comes off the whole total. */
export function discountedAmount(amount: number, discount: LocalDiscount | undefined): number {
  if (discount === undefined) return amount;
  if (discount.percentOff !== undefined) return amount - Math.round((amount * discount.percentOff) / 100);
  return Math.max(0, amount - (discount.amountOff ?? 0));
}

/** The invoices after the first that a coupon's duration still covers (Stripe counts repeating coupons in months). */
function periodsAfterFirst(coupon: ProviderCouponInput, interval: 'month' | 'year' | null): number | null {
  if (coupon.duration === 'forever') return null;
  if (coupon.duration === 'once' || interval === null) return 0;
  const months = coupon.durationInMonths ?? 1;
  return Math.max(0, Math.ceil(months / (interval === 'year' ? 12 : 1)) - 1);
}

function addPeriod(from: Date, interval: 'month' | 'year'): Date {
  const next = new Date(from);
  if (interval === 'month') next.setUTCMonth(next.getUTCMonth() + 1);
  else next.setUTCFullYear(next.getUTCFullYear() + 1);
  return next;
}

/**
 * The embedded default's payment provider: a working stand-in for Stripe that takes no money.
 * Its checkout URL opens a page the service serves, where the player pays or cancels; paying
 * returns the same PaymentEvents a Stripe webhook would produce, so fulfilment has one path.
 * Renewals and failed renewals are triggered by staff for testing. State is kept in a JSON file
 * (written whole, atomically) so checkouts and subscriptions survive a restart.
 */
/** How long changes gather before the state file is written. */
const SAVE_DELAY_MS = 100;

export class LocalPaymentProvider implements PaymentProvider {
  readonly kind = 'local' as const;
  readonly #options: LocalPaymentProviderOptions;
  readonly #state: LocalState;
  #saveTimer: NodeJS.Timeout | undefined;

  constructor(options: LocalPaymentProviderOptions) {
    this.#options = options;
    this.#state =
      options.stateFile !== undefined && existsSync(options.stateFile)
        ? loadedState(JSON.parse(readFileSync(options.stateFile, 'utf8')) as Partial<LocalState>)
        : emptyState();
  }

  async createCustomer(input: ProviderCustomerInput): Promise<{ id: string }> {
    const id = newId('cus');
    this.#state.customers[id] = { userId: input.userId, email: input.email };
    this.#save();
    return { id };
  }

  async createCheckout(input: ProviderCheckoutInput): Promise<ProviderCheckout> {
    checkRedirectTarget('createCheckout', 'success_url', input.successUrl);
    checkRedirectTarget('createCheckout', 'cancel_url', input.cancelUrl);
    const price = await this.#options.priceLookup(input.providerPriceId);
    // From here to the insert nothing awaits, so two racing calls with one key see each other.
    const existing = Object.values(this.#state.checkouts).find((c) => c.idempotencyKey === input.idempotencyKey);
    if (existing !== undefined)
      return { id: existing.id, url: existing.status === 'open' ? this.#checkoutUrl(existing.id) : null };
    this.#customer('createCheckout', input.customerId);
    if (price === null)
      throw new PaymentProviderError(
        'createCheckout',
        'refused',
        'resource_missing',
        `No such price: '${input.providerPriceId}'`,
        400,
      );
    if ((input.mode === 'subscription') !== (price.interval !== null)) {
      throw new PaymentProviderError(
        'createCheckout',
        'refused',
        'invalid_request',
        `price ${input.providerPriceId} cannot be used in ${input.mode} mode`,
        400,
      );
    }
    const discount = input.promotionCodeId === undefined ? undefined : this.#discountOf(input.promotionCodeId, price);
    const checkout: LocalCheckout = {
      id: newId('cs'),
      customerId: input.customerId,
      mode: input.mode,
      providerPriceId: input.providerPriceId,
      quantity: input.quantity,
      subtotal: price.unitAmount * input.quantity,
      amountTotal: discountedAmount(price.unitAmount * input.quantity, discount),
      currency: price.currency,
      interval: price.interval,
      successUrl: input.successUrl,
      cancelUrl: input.cancelUrl,
      metadata: input.metadata,
      status: 'open',
      idempotencyKey: input.idempotencyKey,
      createdAt: this.#now().toISOString(),
      ...(discount === undefined ? {} : { discount }),
    };
    this.#state.checkouts[checkout.id] = checkout;
    this.#save();
    return { id: checkout.id, url: this.#checkoutUrl(checkout.id) };
  }

  /** The checkout as the payment page shows it; undefined for an unknown id. */
  checkout(id: string): LocalCheckout | undefined {
    return this.#state.checkouts[id];
  }

  /**
   * The player paid on the checkout page. Returns the events Stripe would send, in its order:
   * for a subscription the subscription and its first paid invoice, then the completed checkout.
   * Paying twice returns nothing the second time.
   */
  payCheckout(id: string): PaymentEvent[] {
    const checkout = this.#openCheckout(id);
    const now = this.#now();
    const occurredAt = now.toISOString();
    const paymentId = newId('pi');
    this.#state.payments[paymentId] = {
      id: paymentId,
      customerId: checkout.customerId,
      amount: checkout.amountTotal,
      currency: checkout.currency,
      refunded: 0,
    };
    const events: PaymentEvent[] = [];
    let subscriptionId: string | null = null;
    if (checkout.mode === 'subscription') {
      const interval = checkout.interval ?? 'month';
      const subscription = {
        id: newId('sub'),
        customerId: checkout.customerId,
        status: 'active' as const,
        providerPriceId: checkout.providerPriceId,
        cancelAtPeriodEnd: false,
        currentPeriodEnd: addPeriod(now, interval).toISOString(),
        canceledAt: null,
        metadata: checkout.metadata,
        interval,
        // The price itself; a discount still running comes off each renewal's invoice.
        unitAmount: checkout.subtotal ?? checkout.amountTotal,
        currency: checkout.currency,
        ...(checkout.discount === undefined ? {} : { discount: { ...checkout.discount } }),
      };
      this.#state.subscriptions[subscription.id] = subscription;
      subscriptionId = subscription.id;
      events.push({
        type: 'subscription.updated',
        eventId: newId('evt'),
        occurredAt,
        subscription: this.#publicSubscription(subscription.id),
      });
      events.push({
        type: 'invoice.paid',
        eventId: newId('evt'),
        occurredAt,
        invoice: this.#invoice(subscription.id, checkout.amountTotal, now),
        paymentId,
      });
    }
    checkout.status = 'complete';
    events.push({
      type: 'checkout.completed',
      eventId: newId('evt'),
      occurredAt,
      checkoutId: checkout.id,
      customerId: checkout.customerId,
      mode: checkout.mode,
      paymentId: checkout.mode === 'payment' ? paymentId : null,
      subscriptionId,
      amountTotal: checkout.amountTotal,
      currency: checkout.currency,
      metadata: checkout.metadata,
    });
    this.#save();
    return events;
  }

  /** The player cancelled on the checkout page: the checkout expires. */
  cancelCheckout(id: string): PaymentEvent[] {
    const checkout = this.#openCheckout(id);
    checkout.status = 'expired';
    this.#save();
    return [
      {
        type: 'checkout.expired',
        eventId: newId('evt'),
        occurredAt: this.#now().toISOString(),
        checkoutId: checkout.id,
        metadata: checkout.metadata,
      },
    ];
  }

  /**
   * A renewal for testing: the next period is paid (or, with `fail`, the charge fails and the subscription is past
   * due).
   */
  renewSubscription(subscriptionId: string, outcome: 'paid' | 'failed'): PaymentEvent[] {
    const subscription = this.#subscription('renewSubscription', subscriptionId);
    if (subscription.status === 'canceled')
      throw new PaymentProviderError(
        'renewSubscription',
        'refused',
        'subscription_canceled',
        'a canceled subscription does not renew',
        400,
      );
    const now = this.#now();
    const occurredAt = now.toISOString();
    if (outcome === 'paid' && subscription.cancelAtPeriodEnd) {
      subscription.status = 'canceled';
      subscription.canceledAt = occurredAt;
      this.#save();
      return [
        {
          type: 'subscription.deleted',
          eventId: newId('evt'),
          occurredAt,
          subscription: this.#publicSubscription(subscription.id),
        },
      ];
    }
    const discount = subscription.discount;
    const discountApplies = discount !== undefined && (discount.periodsLeft === null || discount.periodsLeft > 0);
    const invoice = this.#invoice(
      subscription.id,
      discountedAmount(subscription.unitAmount, discountApplies ? discount : undefined),
      now,
    );
    const events: PaymentEvent[] = [];
    if (outcome === 'paid') {
      if (discountApplies && discount.periodsLeft !== null) discount.periodsLeft -= 1;
      const paymentId = newId('pi');
      this.#state.payments[paymentId] = {
        id: paymentId,
        customerId: subscription.customerId,
        amount: invoice.amountDue,
        currency: invoice.currency,
        refunded: 0,
      };
      subscription.status = 'active';
      subscription.currentPeriodEnd = addPeriod(
        new Date(subscription.currentPeriodEnd ?? now),
        subscription.interval,
      ).toISOString();
      events.push({
        type: 'invoice.paid',
        eventId: newId('evt'),
        occurredAt,
        invoice: { ...invoice, status: 'paid', amountPaid: invoice.amountDue },
        paymentId,
      });
    } else {
      subscription.status = 'past_due';
      this.#state.invoices[invoice.id] = { ...invoice, status: 'open', amountPaid: 0 };
      events.push({
        type: 'invoice.payment_failed',
        eventId: newId('evt'),
        occurredAt,
        invoice: { ...invoice, status: 'open', amountPaid: 0 },
      });
    }
    events.push({
      type: 'subscription.updated',
      eventId: newId('evt'),
      occurredAt,
      subscription: this.#publicSubscription(subscription.id),
    });
    this.#save();
    return events;
  }

  async createPortalSession(customerId: string, returnUrl: string): Promise<{ url: string }> {
    this.#customer('createPortalSession', customerId);
    checkRedirectTarget('createPortalSession', 'return_url', returnUrl);
    const url = new URL('/v1/public/billing/local/portal', this.#options.publicBaseUrl());
    url.searchParams.set('return_url', returnUrl);
    return { url: url.toString() };
  }

  async changeSubscriptionPrice(
    subscriptionId: string,
    providerPriceId: string,
    _idempotencyKey?: string,
  ): Promise<ProviderSubscription> {
    const subscription = this.#subscription('changeSubscriptionPrice', subscriptionId);
    const price = await this.#options.priceLookup(providerPriceId);
    if (price === null || price.interval === null)
      throw new PaymentProviderError(
        'changeSubscriptionPrice',
        'refused',
        'resource_missing',
        `No such recurring price: '${providerPriceId}'`,
        400,
      );
    Object.assign(subscription, {
      providerPriceId,
      interval: price.interval,
      unitAmount: price.unitAmount,
      currency: price.currency,
    });
    this.#save();
    return this.#publicSubscription(subscriptionId);
  }

  async cancelSubscription(subscriptionId: string, when: 'now' | 'period_end'): Promise<ProviderSubscription> {
    const subscription = this.#subscription('cancelSubscription', subscriptionId);
    if (subscription.status === 'canceled')
      throw new PaymentProviderError(
        'cancelSubscription',
        'refused',
        'subscription_canceled',
        'the subscription is already canceled',
        400,
      );
    if (when === 'now') {
      subscription.status = 'canceled';
      subscription.canceledAt = this.#now().toISOString();
    } else {
      subscription.cancelAtPeriodEnd = true;
    }
    this.#save();
    return this.#publicSubscription(subscriptionId);
  }

  async resumeSubscription(subscriptionId: string): Promise<ProviderSubscription> {
    const subscription = this.#subscription('resumeSubscription', subscriptionId);
    if (subscription.status === 'canceled')
      throw new PaymentProviderError(
        'resumeSubscription',
        'refused',
        'subscription_canceled',
        'a canceled subscription cannot be resumed',
        400,
      );
    subscription.cancelAtPeriodEnd = false;
    this.#save();
    return this.#publicSubscription(subscriptionId);
  }

  async refundPayment(input: ProviderRefundInput): Promise<ProviderRefund> {
    const earlier = this.#state.refundsByKey[input.idempotencyKey];
    if (earlier !== undefined) {
      // Stripe answers a reused key with the first answer, and refuses it for another request.
      if (earlier.paymentId !== input.paymentId || (input.amount !== undefined && earlier.amount !== input.amount)) {
        throw new PaymentProviderError(
          'refundPayment',
          'refused',
          'idempotency_error',
          'Keys for idempotent requests can only be used with the same parameters they were first used with.',
          400,
        );
      }
      const { paymentId: _paymentId, ...refund } = earlier;
      return refund;
    }
    const payment = this.#state.payments[input.paymentId];
    if (payment === undefined)
      throw new PaymentProviderError(
        'refundPayment',
        'refused',
        'resource_missing',
        `No such payment: '${input.paymentId}'`,
        404,
      );
    const left = payment.amount - payment.refunded;
    const amount = input.amount ?? left;
    if (amount <= 0 || amount > left)
      throw new PaymentProviderError(
        'refundPayment',
        'refused',
        'amount_too_large',
        `Refund amount (${amount}) is greater than the unrefunded amount (${left})`,
        400,
      );
    payment.refunded += amount;
    const refund: ProviderRefund = { id: newId('re'), amount, currency: payment.currency, status: 'succeeded' };
    this.#state.refundsByKey[input.idempotencyKey] = { ...refund, paymentId: payment.id };
    this.#save();
    return refund;
  }

  async listInvoices(customerId: string, limit: number): Promise<ProviderInvoice[]> {
    return Object.values(this.#state.invoices)
      .filter((invoice) => invoice.customerId === customerId)
      .sort((a, b) => b.createdAt.localeCompare(a.createdAt))
      .slice(0, limit);
  }

  async createCoupon(input: ProviderCouponInput): Promise<{ id: string }> {
    const id = newId('coupon');
    this.#state.coupons[id] = input;
    this.#save();
    return { id };
  }

  async deleteCoupon(couponId: string): Promise<void> {
    delete this.#state.coupons[couponId];
    this.#save();
  }

  async createPromotionCode(input: ProviderPromotionCodeInput): Promise<{ id: string }> {
    if (this.#state.coupons[input.couponId] === undefined)
      throw new PaymentProviderError(
        'createPromotionCode',
        'refused',
        'resource_missing',
        `No such coupon: '${input.couponId}'`,
        400,
      );
    const id = newId('promo');
    this.#state.promotionCodes[id] = input;
    this.#save();
    return { id };
  }

  async updatePromotionCode(promotionCodeId: string, input: { active?: boolean }): Promise<void> {
    const code = this.#state.promotionCodes[promotionCodeId];
    if (code === undefined)
      throw new PaymentProviderError(
        'updatePromotionCode',
        'refused',
        'resource_missing',
        `No such promotion code: '${promotionCodeId}'`,
        404,
      );
    if (input.active !== undefined) code.active = input.active;
    this.#save();
  }

  parseWebhook(): PaymentEvent {
    throw new WebhookSignatureError(
      'the local payment provider sends no webhooks; its events come from its checkout page',
    );
  }

  /** The local provider's "dashboard" is a staff route of the service that shows its record of the object. */
  dashboardUrl(type: DashboardObjectType, id: string): string {
    return new URL(
      `/v1/admin/billing/local/dashboard/${type}/${encodeURIComponent(id)}`,
      this.#options.publicBaseUrl(),
    ).toString();
  }

  /** What the provider holds of an object, for its dashboard page; undefined for an unknown id. */
  dashboardObject(type: DashboardObjectType, id: string): object | undefined {
    switch (type) {
      case 'customer': {
        const customer = this.#state.customers[id];
        return customer === undefined ? undefined : { id, ...customer };
      }
      case 'subscription':
        return this.#state.subscriptions[id] === undefined ? undefined : { ...this.#state.subscriptions[id] };
      case 'invoice':
        return this.#state.invoices[id];
      case 'payment': {
        const payment = this.#state.payments[id];
        if (payment === undefined) return undefined;
        const refunds = Object.values(this.#state.refundsByKey)
          .filter((refund) => refund.paymentId === id)
          .map(({ paymentId: _paymentId, ...refund }) => refund);
        return { ...payment, refunds };
      }
    }
  }

  /** The discount a promotion code gives at this price; refused as Stripe refuses an unusable code. */
  #discountOf(promotionCodeId: string, price: LocalPrice): LocalDiscount {
    const code = this.#state.promotionCodes[promotionCodeId];
    if (code === undefined)
      throw new PaymentProviderError(
        'createCheckout',
        'refused',
        'resource_missing',
        `No such promotion code: '${promotionCodeId}'`,
        400,
      );
    const coupon = this.#state.coupons[code.couponId];
    if (!code.active || coupon === undefined)
      throw new PaymentProviderError(
        'createCheckout',
        'refused',
        'promotion_code_inactive',
        'This promotion code cannot be used.',
        400,
      );
    if (coupon.amountOff !== undefined && coupon.currency !== price.currency) {
      throw new PaymentProviderError(
        'createCheckout',
        'refused',
        'coupon_currency_mismatch',
        `This coupon is in ${coupon.currency ?? 'another currency'}, the price in ${price.currency}.`,
        400,
      );
    }
    const periodsLeft = periodsAfterFirst(coupon, price.interval);
    return coupon.percentOff !== undefined
      ? { percentOff: coupon.percentOff, periodsLeft }
      : { amountOff: coupon.amountOff ?? 0, periodsLeft };
  }

  #checkoutUrl(id: string): string {
    return new URL(`/v1/public/billing/local/checkout/${id}`, this.#options.publicBaseUrl()).toString();
  }

  #openCheckout(id: string): LocalCheckout {
    const checkout = this.#state.checkouts[id];
    if (checkout === undefined)
      throw new PaymentProviderError(
        'checkout',
        'refused',
        'resource_missing',
        `No such checkout session: '${id}'`,
        404,
      );
    if (checkout.status !== 'open')
      throw new PaymentProviderError(
        'checkout',
        'refused',
        'checkout_not_open',
        `the checkout session is ${checkout.status}`,
        400,
      );
    return checkout;
  }

  #customer(operation: string, id: string) {
    const customer = this.#state.customers[id];
    if (customer === undefined)
      throw new PaymentProviderError(operation, 'refused', 'resource_missing', `No such customer: '${id}'`, 400);
    return customer;
  }

  #subscription(operation: string, id: string) {
    const subscription = this.#state.subscriptions[id];
    if (subscription === undefined)
      throw new PaymentProviderError(operation, 'refused', 'resource_missing', `No such subscription: '${id}'`, 404);
    return subscription;
  }

  #publicSubscription(id: string): ProviderSubscription {
    const {
      interval: _interval,
      unitAmount: _amount,
      currency: _currency,
      discount: _discount,
      ...subscription
    } = this.#state.subscriptions[id]!;
    return { ...subscription, metadata: { ...subscription.metadata } };
  }

  #invoice(subscriptionId: string, amount: number, now: Date): ProviderInvoice {
    const subscription = this.#state.subscriptions[subscriptionId]!;
    const invoice: ProviderInvoice = {
      id: newId('in'),
      customerId: subscription.customerId,
      subscriptionId,
      status: 'paid',
      currency: subscription.currency,
      amountDue: amount,
      amountPaid: amount,
      hostedUrl: null,
      periodStart: now.toISOString(),
      periodEnd: subscription.currentPeriodEnd,
      createdAt: now.toISOString(),
    };
    this.#state.invoices[invoice.id] = invoice;
    return invoice;
  }

  #now(): Date {
    return this.#options.now?.() ?? new Date();
  }

  /**
   * Schedules a write of the whole state. Writing it on every change made bulk work quadratic (a
   * migration of 1,000 subscriptions rewrote a file of 1,000 subscriptions a thousand times), so
   * changes within SAVE_DELAY_MS are written once; `flush` (the kernel's stop) writes what is
   * pending. A crash loses at most that much of a test provider's state.
   */
  #save(): void {
    if (this.#options.stateFile === undefined || this.#saveTimer !== undefined) return;
    this.#saveTimer = setTimeout(() => this.flush(), SAVE_DELAY_MS);
    this.#saveTimer.unref();
  }

  /** Writes pending state now. */
  flush(): void {
    const file = this.#options.stateFile;
    if (file === undefined || this.#saveTimer === undefined) return;
    clearTimeout(this.#saveTimer);
    this.#saveTimer = undefined;
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(`${file}.tmp`, JSON.stringify(this.#state), { mode: 0o600 });
    renameSync(`${file}.tmp`, file);
  }
}
