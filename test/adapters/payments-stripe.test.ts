import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import Stripe from 'stripe';
import { createPaymentProvider } from '../../src/adapters/payments/create.js';
import {
  PaymentProviderError,
  WebhookSignatureError,
  type PaymentProvider,
} from '../../src/adapters/payments/index.js';
import { StripePaymentProvider, STRIPE_API_VERSION } from '../../src/adapters/payments/stripe.js';
import { MalformedWebhookEventError } from '../../src/adapters/payments/stripe-events.js';
import { captureLog, type CapturedLog } from '../helpers/captured-log.js';
import { closedPort } from '../helpers/ports.js';
import { startStripeServer, stripeError, type StripeServer } from '../helpers/stripe-server.js';

const SECRET_KEY = `sk_test_${randomUUID().replaceAll('-', '')}`;
const WEBHOOK_SECRET = `whsec_${randomUUID().replaceAll('-', '')}`;

let stripe: StripeServer;
let captured: CapturedLog;
let provider: StripePaymentProvider;

function providerFor(
  options: { apiBase?: string; timeoutMs?: number; maxNetworkRetries?: number; secretKey?: string } = {},
) {
  return new StripePaymentProvider({
    secretKey: options.secretKey ?? SECRET_KEY,
    webhookSecret: WEBHOOK_SECRET,
    apiBase: options.apiBase ?? stripe.url,
    timeoutMs: options.timeoutMs ?? 2_000,
    ...(options.maxNetworkRetries === undefined ? {} : { maxNetworkRetries: options.maxNetworkRetries }),
    log: captured.log,
  });
}

beforeEach(async () => {
  stripe = await startStripeServer({ secretKey: SECRET_KEY });
  captured = captureLog();
  provider = providerFor();
});

afterEach(async () => {
  await stripe.close();
  // Whatever a test did, neither secret reached the log.
  expectNoSecrets();
});

function onlyRequest() {
  expect(stripe.requests).toHaveLength(1);
  return stripe.requests[0]!;
}

/** Every request reached Stripe with the key and the pinned API version. */
function expectAuthenticated() {
  for (const request of stripe.requests)
    expect(request).toMatchObject({ authorizedWithKey: true, stripeVersion: '2026-10-28.endive' });
}

async function failureOf(call: Promise<unknown>): Promise<PaymentProviderError> {
  const error = await call.then(
    () => null,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(PaymentProviderError);
  return error as PaymentProviderError;
}

function iso(epochSeconds: number): string {
  return new Date(epochSeconds * 1000).toISOString();
}

function warnLines() {
  return captured
    .lines()
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => line.level === 40);
}

function expectNoSecrets(...texts: string[]) {
  for (const text of [captured.text(), ...texts]) {
    expect(text).not.toContain(SECRET_KEY);
    expect(text).not.toContain(WEBHOOK_SECRET);
  }
}

function customerWithPrices() {
  const customer = stripe.addCustomer({ email: 'ada@example.test' });
  const pack = stripe.addPrice({ currency: 'eur', unitAmount: 499 });
  const monthly = stripe.addPrice({ currency: 'eur', unitAmount: 999, interval: 'month' });
  return { customer: String(customer.id), pack: String(pack.id), monthly: String(monthly.id) };
}

describe('createCustomer', () => {
  it('POSTs /v1/customers with email, name and metadata[user_id], keyed by who the customer is', async () => {
    const userId = randomUUID();

    const { id } = await provider.createCustomer({ userId, email: 'ada@example.test', name: 'Ada' });

    const request = onlyRequest();
    expect(request).toMatchObject({
      method: 'POST',
      path: '/v1/customers',
      contentType: 'application/x-www-form-urlencoded',
    });
    expect(request.form).toEqual({ email: 'ada@example.test', name: 'Ada', 'metadata[user_id]': userId });
    expect(request.idempotencyKey).toMatch(new RegExp(`^customer-${userId}-[0-9a-f]{16}$`));
    expectAuthenticated();
    expect(stripe.customers.get(id)).toMatchObject({
      email: 'ada@example.test',
      name: 'Ada',
      metadata: { user_id: userId },
    });
    expect(warnLines()).toEqual([]);
  });

  it('sends no email or name it does not have; a repeat answers the same customer, other details make another', async () => {
    const userId = randomUUID();
    const first = await provider.createCustomer({ userId, email: null, name: null });
    const again = await provider.createCustomer({ userId, email: null, name: null });
    const changed = await provider.createCustomer({ userId, email: 'new@example.test', name: null });

    expect(stripe.requests[0]!.form).toEqual({ 'metadata[user_id]': userId });
    expect(again.id).toBe(first.id);
    expect(changed.id).not.toBe(first.id);
    expect(stripe.customers.size).toBe(2);
    expect(stripe.requests[1]!.idempotencyKey).toBe(stripe.requests[0]!.idempotencyKey);
    expect(stripe.requests[2]!.idempotencyKey).not.toBe(stripe.requests[0]!.idempotencyKey);
  });
});

describe('createCheckout', () => {
  it('a pack: mode payment with the quantity, metadata on the session and its PaymentIntent, the caller’s idempotency key', async () => {
    const { customer, pack } = customerWithPrices();
    const metadata = { user_id: randomUUID(), product_id: 'pack-10' };

    const checkout = await provider.createCheckout({
      customerId: customer,
      mode: 'payment',
      providerPriceId: pack,
      quantity: 3,
      successUrl: 'https://play.example/ok',
      cancelUrl: 'https://play.example/no',
      metadata,
      idempotencyKey: 'checkout-1',
    });

    const request = onlyRequest();
    expect(request).toMatchObject({ method: 'POST', path: '/v1/checkout/sessions', idempotencyKey: 'checkout-1' });
    expect(request.form).toEqual({
      mode: 'payment',
      customer,
      'line_items[0][price]': pack,
      'line_items[0][quantity]': '3',
      success_url: 'https://play.example/ok',
      cancel_url: 'https://play.example/no',
      'metadata[user_id]': metadata.user_id,
      'metadata[product_id]': 'pack-10',
      'payment_intent_data[metadata][user_id]': metadata.user_id,
      'payment_intent_data[metadata][product_id]': 'pack-10',
    });
    expectAuthenticated();
    const session = stripe.checkoutSessions.get(checkout.id)!;
    expect(checkout).toEqual({ id: session.id, url: session.url });
    expect(session).toMatchObject({ amount_total: 1497, currency: 'eur', mode: 'payment' });
  });

  it('a plan: mode subscription, a single seat, metadata on the subscription, the promotion code as a discount', async () => {
    const { customer, monthly } = customerWithPrices();
    const { id: coupon } = await provider.createCoupon({ percentOff: 20, duration: 'forever', name: 'Fifth off' });
    const { id: promotionCode } = await provider.createPromotionCode({
      couponId: coupon,
      code: 'FIFTH',
      firstTimeTransaction: false,
      active: true,
    });
    stripe.requests.length = 0;

    const checkout = await provider.createCheckout({
      customerId: customer,
      mode: 'subscription',
      providerPriceId: monthly,
      quantity: 1,
      successUrl: 'https://play.example/ok',
      cancelUrl: 'https://play.example/no',
      promotionCodeId: promotionCode,
      metadata: { plan: 'gold' },
      idempotencyKey: 'checkout-2',
    });

    expect(onlyRequest().form).toEqual({
      mode: 'subscription',
      customer,
      'line_items[0][price]': monthly,
      'line_items[0][quantity]': '1',
      success_url: 'https://play.example/ok',
      cancel_url: 'https://play.example/no',
      'metadata[plan]': 'gold',
      'subscription_data[metadata][plan]': 'gold',
      'discounts[0][promotion_code]': promotionCode,
    });
    expect(stripe.checkoutSessions.get(checkout.id)).toMatchObject({
      amount_total: 799,
      discounts: [{ promotion_code: promotionCode }],
    });
  });

  it('the same idempotency key answers the same checkout: one session at Stripe', async () => {
    const { customer, pack } = customerWithPrices();
    const input = {
      customerId: customer,
      mode: 'payment' as const,
      providerPriceId: pack,
      quantity: 1,
      successUrl: 'https://play.example/ok',
      cancelUrl: 'https://play.example/no',
      metadata: {},
      idempotencyKey: 'same-key',
    };
    const first = await provider.createCheckout(input);
    const second = await provider.createCheckout(input);
    expect(second).toEqual(first);
    expect(stripe.checkoutSessions.size).toBe(1);
  });

  it('the same key with other parameters is Stripe’s idempotency_error: refused, nothing created', async () => {
    const { customer, pack } = customerWithPrices();
    const input = {
      customerId: customer,
      mode: 'payment' as const,
      providerPriceId: pack,
      quantity: 1,
      successUrl: 'https://play.example/ok',
      cancelUrl: 'https://play.example/no',
      metadata: {},
      idempotencyKey: 'reused',
    };
    await provider.createCheckout(input);
    const error = await failureOf(provider.createCheckout({ ...input, quantity: 2 }));
    expect(error).toMatchObject({ kind: 'refused', code: 'idempotency_error', status: 400 });
    expect(stripe.checkoutSessions.size).toBe(1);
  });

  it('refuses a subscription for more than one seat without calling Stripe', async () => {
    const { customer, monthly } = customerWithPrices();
    const call = provider.createCheckout({
      customerId: customer,
      mode: 'subscription',
      providerPriceId: monthly,
      quantity: 2,
      successUrl: 'https://play.example/ok',
      cancelUrl: 'https://play.example/no',
      metadata: {},
      idempotencyKey: 'k',
    });
    await expect(call).rejects.toThrow(RangeError);
    expect(stripe.requests).toEqual([]);
  });

  it('an unknown price is Stripe’s refusal: refused, resource_missing, 400, Stripe’s message', async () => {
    const { customer } = customerWithPrices();
    const error = await failureOf(
      provider.createCheckout({
        customerId: customer,
        mode: 'payment',
        providerPriceId: 'price_nope',
        quantity: 1,
        successUrl: 'https://play.example/ok',
        cancelUrl: 'https://play.example/no',
        metadata: {},
        idempotencyKey: 'k',
      }),
    );
    expect(error).toMatchObject({
      operation: 'createCheckout',
      kind: 'refused',
      code: 'resource_missing',
      status: 400,
      message: "No such price: 'price_nope'",
    });
    expect(warnLines()).toHaveLength(1);
    expect(warnLines()[0]).toMatchObject({
      payment_operation: 'createCheckout',
      provider_status: 400,
      provider_code: 'resource_missing',
      provider_error: 'StripeInvalidRequestError',
    });
  });
});

describe('createPortalSession', () => {
  it('POSTs /v1/billing_portal/sessions with the customer and return URL, answers the portal URL', async () => {
    const { customer } = customerWithPrices();
    const { url } = await provider.createPortalSession(customer, 'https://play.example/account');
    expect(onlyRequest()).toMatchObject({
      method: 'POST',
      path: '/v1/billing_portal/sessions',
      form: { customer, return_url: 'https://play.example/account' },
    });
    expect(url).toMatch(/^https:\/\/billing\.stripe\.com\/p\/session\//);
  });
});

describe('subscriptions', () => {
  function subscribed(metadata: Record<string, string> = { user_id: 'u1' }) {
    const { customer, monthly } = customerWithPrices();
    const subscription = stripe.addSubscription({ customer, price: monthly, metadata });
    const item = (subscription.items as { data: Array<{ id: string; current_period_end: number }> }).data[0]!;
    return { customer, subscription: String(subscription.id), item };
  }

  it('changeSubscriptionPrice reads the subscription, then moves its one item to the price without proration', async () => {
    const { customer, subscription, item } = subscribed();
    const yearly = String(stripe.addPrice({ currency: 'eur', unitAmount: 9999, interval: 'year' }).id);

    const changed = await provider.changeSubscriptionPrice(subscription, yearly, 'migrate-1');

    expect(stripe.requests.map((request) => [request.method, request.path])).toEqual([
      ['GET', `/v1/subscriptions/${subscription}`],
      ['POST', `/v1/subscriptions/${subscription}`],
    ]);
    expect(stripe.requests[0]!.idempotencyKey).toBeNull();
    expect(stripe.requests[1]).toMatchObject({
      idempotencyKey: 'migrate-1',
      form: { 'items[0][id]': item.id, 'items[0][price]': yearly, proration_behavior: 'none' },
    });
    expect(Object.keys(stripe.requests[1]!.form)).toHaveLength(3);
    expectAuthenticated();
    expect(changed).toEqual({
      id: subscription,
      customerId: customer,
      status: 'active',
      providerPriceId: yearly,
      cancelAtPeriodEnd: false,
      // Since 2025-03-31.basil the period lives on the item.
      currentPeriodEnd: new Date(item.current_period_end * 1000).toISOString(),
      canceledAt: null,
      metadata: { user_id: 'u1' },
    });
  });

  it('changeSubscriptionPrice refuses a subscription with several items after reading it', async () => {
    const { subscription } = subscribed();
    const items = (stripe.subscriptions.get(subscription)!.items as { data: unknown[] }).data;
    items.push({ ...(items[0] as object), id: 'si_second' });
    const error = await failureOf(provider.changeSubscriptionPrice(subscription, 'price_x', 'k'));
    expect(error).toMatchObject({ kind: 'refused', code: 'subscription_not_single_item' });
    expect(onlyRequest().method).toBe('GET');
  });

  it('an unknown subscription is refused with Stripe’s 404', async () => {
    const error = await failureOf(provider.cancelSubscription('sub_missing', 'now'));
    expect(error).toMatchObject({
      operation: 'cancelSubscription',
      kind: 'refused',
      code: 'resource_missing',
      status: 404,
    });
  });

  it('cancels now with DELETE /v1/subscriptions/{id}', async () => {
    const { subscription } = subscribed();
    const canceled = await provider.cancelSubscription(subscription, 'now');
    expect(onlyRequest()).toMatchObject({
      method: 'DELETE',
      path: `/v1/subscriptions/${subscription}`,
      form: {},
      query: {},
    });
    expect(canceled).toMatchObject({ id: subscription, status: 'canceled', cancelAtPeriodEnd: false });
    expect(Date.parse(canceled.canceledAt!)).toBeGreaterThan(Date.now() - 60_000);
  });

  it('cancels at period end with cancel_at_period_end=true, and resumes with false', async () => {
    const { subscription } = subscribed();

    const ending = await provider.cancelSubscription(subscription, 'period_end');
    expect(onlyRequest()).toMatchObject({
      method: 'POST',
      path: `/v1/subscriptions/${subscription}`,
      form: { cancel_at_period_end: 'true' },
    });
    expect(ending).toMatchObject({ status: 'active', cancelAtPeriodEnd: true });

    const resumed = await provider.resumeSubscription(subscription);
    expect(stripe.requests[1]).toMatchObject({
      method: 'POST',
      path: `/v1/subscriptions/${subscription}`,
      form: { cancel_at_period_end: 'false' },
    });
    expect(resumed).toMatchObject({ status: 'active', cancelAtPeriodEnd: false, canceledAt: null });
    expect(stripe.subscriptions.get(subscription)).toMatchObject({ cancel_at_period_end: false });
  });
});

describe('refundPayment', () => {
  function paid(amount = 1000) {
    const { customer } = customerWithPrices();
    return String(stripe.addPaymentIntent({ customer, amount, currency: 'eur' }).id);
  }

  it('refunds part of a PaymentIntent with the reason in metadata and the caller’s key', async () => {
    const payment = paid();
    const refund = await provider.refundPayment({
      paymentId: payment,
      amount: 300,
      reason: 'duplicate purchase',
      idempotencyKey: 'refund-1',
    });
    expect(onlyRequest()).toMatchObject({
      method: 'POST',
      path: '/v1/refunds',
      idempotencyKey: 'refund-1',
      form: { payment_intent: payment, amount: '300', 'metadata[reason]': 'duplicate purchase' },
    });
    expect(Object.keys(onlyRequest().form)).toHaveLength(3);
    expect(refund).toEqual({ id: expect.stringMatching(/^re_/), amount: 300, currency: 'eur', status: 'succeeded' });
  });

  it('without an amount refunds what is left; the same key refunds once; more than was paid is refused', async () => {
    const payment = paid();
    await provider.refundPayment({ paymentId: payment, amount: 400, idempotencyKey: 'r1' });
    const rest = await provider.refundPayment({ paymentId: payment, idempotencyKey: 'r2' });
    const repeat = await provider.refundPayment({ paymentId: payment, idempotencyKey: 'r2' });
    expect(stripe.requests[1]!.form).toEqual({ payment_intent: payment });
    expect(rest.amount).toBe(600);
    expect(repeat).toEqual(rest);
    expect(stripe.refunds.size).toBe(2);

    const over = await failureOf(provider.refundPayment({ paymentId: paid(500), amount: 501, idempotencyKey: 'r3' }));
    expect(over).toMatchObject({ operation: 'refundPayment', kind: 'refused', status: 400, code: null });
    expect(over.message).toContain('greater than unrefunded amount');
  });
});

describe('listInvoices', () => {
  it('GETs /v1/invoices?customer&limit and maps them newest first: subscription from parent, period from the line', async () => {
    const { customer, monthly } = customerWithPrices();
    const subscription = String(stripe.addSubscription({ customer, price: monthly }).id);
    const older = stripe.addInvoice({ customer, subscription, amount: 999, currency: 'eur', created: 1_780_000_000 });
    const newer = stripe.addInvoice({ customer, amount: 499, currency: 'eur', status: 'open', created: 1_780_500_000 });
    stripe.addInvoice({ customer: 'cus_someone_else', amount: 1, currency: 'eur' });

    const invoices = await provider.listInvoices(customer, 10);

    expect(onlyRequest()).toMatchObject({
      method: 'GET',
      path: '/v1/invoices',
      query: { customer, limit: '10' },
      idempotencyKey: null,
    });
    expectAuthenticated();
    expect(invoices).toEqual([
      {
        id: newer.id,
        customerId: customer,
        subscriptionId: null,
        status: 'open',
        currency: 'eur',
        amountDue: 499,
        amountPaid: 0,
        hostedUrl: newer.hosted_invoice_url,
        periodStart: iso(1_780_500_000),
        periodEnd: iso(1_780_500_000 + 30 * 86_400),
        createdAt: iso(1_780_500_000),
      },
      {
        id: older.id,
        customerId: customer,
        subscriptionId: subscription,
        status: 'paid',
        currency: 'eur',
        amountDue: 999,
        amountPaid: 999,
        hostedUrl: older.hosted_invoice_url,
        periodStart: iso(1_780_000_000),
        periodEnd: iso(1_780_000_000 + 30 * 86_400),
        createdAt: iso(1_780_000_000),
      },
    ]);
  });

  it('asks for at most Stripe’s largest page, 100', async () => {
    await provider.listInvoices('cus_x', 500);
    expect(onlyRequest().query.limit).toBe('100');
  });
});

describe('coupons and promotion codes', () => {
  it('creates a percent coupon and an amount coupon with their fields as Stripe names them', async () => {
    const percent = await provider.createCoupon({
      percentOff: 25,
      duration: 'repeating',
      durationInMonths: 3,
      maxRedemptions: 50,
      redeemBy: '2027-01-01T00:00:00Z',
      name: 'Quarter off',
    });
    const amount = await provider.createCoupon({ amountOff: 500, currency: 'eur', duration: 'once', name: 'Five off' });

    expect(stripe.requests.map((request) => [request.method, request.path])).toEqual([
      ['POST', '/v1/coupons'],
      ['POST', '/v1/coupons'],
    ]);
    expect(stripe.requests[0]!.form).toEqual({
      duration: 'repeating',
      name: 'Quarter off',
      percent_off: '25',
      duration_in_months: '3',
      max_redemptions: '50',
      redeem_by: '1798761600',
    });
    expect(stripe.requests[1]!.form).toEqual({
      duration: 'once',
      name: 'Five off',
      amount_off: '500',
      currency: 'eur',
    });
    expect(stripe.coupons.get(percent.id)).toMatchObject({ percent_off: 25, redeem_by: 1_798_761_600 });
    expect(stripe.coupons.get(amount.id)).toMatchObject({ amount_off: 500, currency: 'eur' });
  });

  it('a coupon Stripe refuses (both kinds of discount) is refused', async () => {
    const error = await failureOf(
      provider.createCoupon({ percentOff: 10, amountOff: 100, currency: 'eur', duration: 'once', name: 'x' }),
    );
    expect(error).toMatchObject({ operation: 'createCoupon', kind: 'refused', status: 400 });
  });

  it('deletes a coupon with DELETE /v1/coupons/{id}; one already gone counts as deleted', async () => {
    const { id } = await provider.createCoupon({ percentOff: 10, duration: 'once', name: 'Tenth' });
    await provider.deleteCoupon(id);
    await provider.deleteCoupon(id);
    expect(stripe.requests.slice(1).map((request) => [request.method, request.path])).toEqual([
      ['DELETE', `/v1/coupons/${id}`],
      ['DELETE', `/v1/coupons/${id}`],
    ]);
    expect(stripe.coupons.has(id)).toBe(false);
    expect(warnLines()).toEqual([]);
  });

  it('creates a promotion code naming its coupon under promotion (2025-09-30.clover on)', async () => {
    const { id: coupon } = await provider.createCoupon({ percentOff: 10, duration: 'once', name: 'Tenth' });
    const { id } = await provider.createPromotionCode({
      couponId: coupon,
      code: 'WELCOME10',
      maxRedemptions: 100,
      expiresAt: '2027-01-01T00:00:00Z',
      firstTimeTransaction: true,
      active: true,
    });
    expect(stripe.requests[1]).toMatchObject({ method: 'POST', path: '/v1/promotion_codes' });
    expect(stripe.requests[1]!.form).toEqual({
      'promotion[type]': 'coupon',
      'promotion[coupon]': coupon,
      code: 'WELCOME10',
      active: 'true',
      'restrictions[first_time_transaction]': 'true',
      max_redemptions: '100',
      expires_at: '1798761600',
    });
    expect(stripe.promotionCodes.get(id)).toMatchObject({
      code: 'WELCOME10',
      promotion: { coupon },
      restrictions: { first_time_transaction: true },
    });
  });

  it('a promotion code for an unknown coupon is refused', async () => {
    const error = await failureOf(
      provider.createPromotionCode({ couponId: 'gone', code: 'X', firstTimeTransaction: false, active: true }),
    );
    expect(error).toMatchObject({ kind: 'refused', code: 'resource_missing', status: 400 });
  });

  it('deactivates a promotion code; with nothing to change it calls nothing', async () => {
    const { id: coupon } = await provider.createCoupon({ percentOff: 10, duration: 'once', name: 'Tenth' });
    const { id } = await provider.createPromotionCode({
      couponId: coupon,
      code: 'OFF',
      firstTimeTransaction: false,
      active: true,
    });
    await provider.updatePromotionCode(id, { active: false });
    await provider.updatePromotionCode(id, {});
    expect(stripe.requests).toHaveLength(3);
    expect(stripe.requests[2]).toMatchObject({
      method: 'POST',
      path: `/v1/promotion_codes/${id}`,
      form: { active: 'false' },
    });
    expect(stripe.promotionCodes.get(id)!.active).toBe(false);
  });
});

const operations = [
  ['createCustomer', (p: PaymentProvider) => p.createCustomer({ userId: randomUUID(), email: null, name: null })],
  [
    'createCheckout',
    (p: PaymentProvider) =>
      p.createCheckout({
        customerId: 'cus_1',
        mode: 'payment',
        providerPriceId: 'price_1',
        quantity: 1,
        successUrl: 'https://a.example',
        cancelUrl: 'https://a.example',
        metadata: {},
        idempotencyKey: 'k',
      }),
  ],
  ['createPortalSession', (p: PaymentProvider) => p.createPortalSession('cus_1', 'https://a.example')],
  ['changeSubscriptionPrice', (p: PaymentProvider) => p.changeSubscriptionPrice('sub_1', 'price_1', 'k')],
  ['cancelSubscription', (p: PaymentProvider) => p.cancelSubscription('sub_1', 'now')],
  ['resumeSubscription', (p: PaymentProvider) => p.resumeSubscription('sub_1')],
  ['refundPayment', (p: PaymentProvider) => p.refundPayment({ paymentId: 'pi_1', idempotencyKey: 'k' })],
  ['listInvoices', (p: PaymentProvider) => p.listInvoices('cus_1', 10)],
  ['createCoupon', (p: PaymentProvider) => p.createCoupon({ percentOff: 5, duration: 'once', name: 'x' })],
  ['deleteCoupon', (p: PaymentProvider) => p.deleteCoupon('co_1')],
  [
    'createPromotionCode',
    (p: PaymentProvider) =>
      p.createPromotionCode({ couponId: 'co_1', code: 'X', firstTimeTransaction: false, active: true }),
  ],
  ['updatePromotionCode', (p: PaymentProvider) => p.updatePromotionCode('promo_1', { active: false })],
] as const;

describe.each(operations)(
  '%s when Stripe refuses, fails, rate limits, hangs or cannot be reached',
  (operation, call) => {
    function expectOneWarn(status: number | null, code: string | null) {
      const lines = warnLines();
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatchObject({ payment_operation: operation, provider_status: status, provider_code: code });
      expect(typeof lines[0]!.duration_ms).toBe('number');
      expectNoSecrets();
    }

    it.each([
      [
        402,
        stripeError('card_error', 'Your card was declined.', {
          code: 'card_declined',
          decline_code: 'generic_decline',
        }),
        'card_declined',
      ],
      [
        400,
        stripeError('invalid_request_error', "No such customer: 'cus_1'", {
          code: 'resource_missing',
          param: 'customer',
        }),
        'resource_missing',
      ],
    ] as const)('answers %i: refused with Stripe’s code and message, one warn line', async (status, body, code) => {
      stripe.behave({ kind: 'answer', status, body });
      const error = await failureOf(call(providerFor({ maxNetworkRetries: 0 })));
      expect(error).toMatchObject({ operation, kind: 'refused', code, status, message: body.error.message });
      expect(stripe.requests).toHaveLength(1);
      expectOneWarn(status, code);
    });

    it.each([
      [500, stripeError('api_error', 'Something went wrong on our end.')],
      [429, stripeError('invalid_request_error', 'Too many requests hit the API too quickly.', { code: 'rate_limit' })],
      [401, stripeError('invalid_request_error', 'Invalid API Key provided: sk_test_****abcd')],
    ] as const)('answers %i: unavailable, one warn line', async (status, body) => {
      stripe.behave({ kind: 'answer', status, body });
      const error = await failureOf(call(providerFor({ maxNetworkRetries: 0 })));
      expect(error).toMatchObject({ operation, kind: 'unavailable', status });
      expect(error.message).toContain(`Stripe answered ${status}`);
      expectOneWarn(status, body.error.code ?? null);
    });

    it.each([
      ['a proxy’s HTML page', { status: 502, body: '<html><body>Bad gateway</body></html>', raw: true }],
      ['JSON that is no object', { status: 200, body: null }],
    ] as const)('answers %s: unavailable with no status, and the call settles', async (_what, answer) => {
      stripe.behave({ kind: 'answer', ...answer });
      const error = await failureOf(call(providerFor({ maxNetworkRetries: 0 })));
      expect(error).toMatchObject({ operation, kind: 'unavailable', status: null });
      expect(error.message).toContain('the answer could not be read');
      expectOneWarn(null, null);
    });

    it('does not answer within the timeout: unavailable with no status', async () => {
      stripe.behave({ kind: 'hang' });
      const started = Date.now();
      const error = await failureOf(call(providerFor({ timeoutMs: 200, maxNetworkRetries: 0 })));
      expect(Date.now() - started).toBeGreaterThanOrEqual(190);
      expect(Date.now() - started).toBeLessThan(2_000);
      expect(error).toMatchObject({ operation, kind: 'unavailable', status: null, code: null });
      expect(error.message).toContain('no answer within 200 ms');
      expectOneWarn(null, null);
    });

    it('cannot be reached (connection refused): unavailable with no status', async () => {
      const unreachable = providerFor({ apiBase: `http://127.0.0.1:${await closedPort()}`, maxNetworkRetries: 0 });
      const error = await failureOf(call(unreachable));
      expect(error).toMatchObject({ operation, kind: 'unavailable', status: null });
      expect(error.message).toContain('unreachable');
      expectOneWarn(null, null);
    });

    it('echoes the secret key back: neither the error nor the log carries it', async () => {
      stripe.behave({
        kind: 'answer',
        status: 400,
        body: stripeError('invalid_request_error', `bad key ${SECRET_KEY} and ${WEBHOOK_SECRET}`),
      });
      const error = await failureOf(call(providerFor({ maxNetworkRetries: 0 })));
      expect(error.message).toBe('bad key [redacted] and [redacted]');
      expectOneWarn(400, null);
      expectNoSecrets(error.message, JSON.stringify(error));
    });
  },
);

describe('authentication', () => {
  it('a key Stripe does not know is a 401: unavailable (an operator must fix it), the key in neither the error nor the log', async () => {
    const wrongKey = `sk_test_${randomUUID().replaceAll('-', '')}`;
    const error = await failureOf(
      providerFor({ secretKey: wrongKey }).createCustomer({ userId: randomUUID(), email: null, name: null }),
    );
    expect(onlyRequest().authorizedWithKey).toBe(false);
    expect(error).toMatchObject({ operation: 'createCustomer', kind: 'unavailable', status: 401 });
    expect(error.message).toContain('Invalid API Key provided');
    expect(error.message).not.toContain(wrongKey);
    expect(captured.text()).not.toContain(wrongKey);
    expect(stripe.customers.size).toBe(0);
  });
});

describe('retries', () => {
  it('a 500 is retried twice with the same Idempotency-Key, then reported unavailable', async () => {
    stripe.behave({ kind: 'answer', status: 500, body: stripeError('api_error', 'Something went wrong on our end.') });
    const error = await failureOf(provider.refundPayment({ paymentId: 'pi_1', idempotencyKey: 'refund-k' }));
    expect(error).toMatchObject({ kind: 'unavailable', status: 500 });
    expect(stripe.requests.map((request) => request.idempotencyKey)).toEqual(['refund-k', 'refund-k', 'refund-k']);
    expect(warnLines()).toHaveLength(1);
  });

  it('a POST without a caller key gets one from the SDK, kept across its retries; the retry that succeeds is the answer', async () => {
    stripe.behave({ kind: 'answer', status: 503, body: stripeError('api_error', 'unavailable'), times: 1 });
    await provider.createPortalSession(String(stripe.addCustomer().id), 'https://a.example');
    expect(stripe.requests).toHaveLength(2);
    expect(stripe.requests[0]!.idempotencyKey).toMatch(/^stripe-node-retry-/);
    expect(stripe.requests[1]!.idempotencyKey).toBe(stripe.requests[0]!.idempotencyKey);
    expect(warnLines()).toEqual([]);
  });

  it('a timed-out attempt is retried; the SDK gives up after three', async () => {
    stripe.behave({ kind: 'hang' });
    const error = await failureOf(providerFor({ timeoutMs: 150 }).listInvoices('cus_1', 5));
    expect(error).toMatchObject({ kind: 'unavailable', status: null });
    expect(stripe.requests).toHaveLength(3);
  });

  it('a 429 is not retried unless Stripe says Stripe-Should-Retry: true', async () => {
    const limited = stripeError('invalid_request_error', 'Too many requests', { code: 'rate_limit' });
    stripe.behave({ kind: 'answer', status: 429, body: limited });
    const error = await failureOf(provider.listInvoices('cus_1', 5));
    expect(error).toMatchObject({ kind: 'unavailable', status: 429, code: 'rate_limit' });
    expect(stripe.requests).toHaveLength(1);

    stripe.requests.length = 0;
    stripe.behave({ kind: 'answer', status: 429, body: limited, headers: { 'stripe-should-retry': 'true' }, times: 1 });
    expect(await provider.listInvoices('cus_1', 5)).toEqual([]);
    expect(stripe.requests).toHaveLength(2);
  });
});

describe('parseWebhook', () => {
  const created = 1_790_000_000;

  function event(type: string, object: unknown, apiVersion: string = STRIPE_API_VERSION) {
    return {
      id: `evt_${randomUUID().replaceAll('-', '').slice(0, 24)}`,
      object: 'event',
      api_version: apiVersion,
      created,
      data: { object },
      livemode: false,
      pending_webhooks: 1,
      request: { id: null, idempotency_key: null },
      type,
    };
  }

  /** Signed the way Stripe signs a delivery, with the SDK's own test helper. */
  function signed(payloadEvent: unknown, options: { secret?: string; timestamp?: number } = {}) {
    const payload = JSON.stringify(payloadEvent, null, 2);
    const header = Stripe.webhooks.generateTestHeaderString({
      payload,
      secret: options.secret ?? WEBHOOK_SECRET,
      ...(options.timestamp === undefined ? {} : { timestamp: options.timestamp }),
    });
    return { body: Buffer.from(payload), header };
  }

  function parse(payloadEvent: unknown) {
    const { body, header } = signed(payloadEvent);
    return provider.parseWebhook(body, header);
  }

  function signatureFailure(body: Buffer, header: string | undefined): WebhookSignatureError {
    let thrown: unknown = null;
    try {
      provider.parseWebhook(body, header);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(WebhookSignatureError);
    expectNoSecrets((thrown as Error).message);
    return thrown as WebhookSignatureError;
  }

  async function completedCheckout(mode: 'payment' | 'subscription') {
    const { customer, pack, monthly } = customerWithPrices();
    const checkout = await provider.createCheckout({
      customerId: customer,
      mode,
      providerPriceId: mode === 'payment' ? pack : monthly,
      quantity: mode === 'payment' ? 2 : 1,
      successUrl: 'https://a.example',
      cancelUrl: 'https://a.example',
      metadata: { user_id: 'u1' },
      idempotencyKey: randomUUID(),
    });
    return { customer, session: stripe.completeCheckout(checkout.id) };
  }

  it('checkout.session.completed (payment) → checkout.completed with the PaymentIntent', async () => {
    const { customer, session } = await completedCheckout('payment');
    const delivered = event('checkout.session.completed', session);
    expect(parse(delivered)).toEqual({
      type: 'checkout.completed',
      eventId: delivered.id,
      occurredAt: iso(created),
      checkoutId: session.id,
      customerId: customer,
      mode: 'payment',
      paymentId: session.payment_intent,
      subscriptionId: null,
      amountTotal: 998,
      currency: 'eur',
      metadata: { user_id: 'u1' },
    });
  });

  it('checkout.session.completed (subscription) → checkout.completed with the subscription', async () => {
    const { session } = await completedCheckout('subscription');
    expect(parse(event('checkout.session.completed', session))).toMatchObject({
      type: 'checkout.completed',
      mode: 'subscription',
      paymentId: null,
      subscriptionId: session.subscription,
      amountTotal: 999,
    });
  });

  it('a checkout completed unpaid (a delayed payment method) is ignored until async_payment_succeeded; async_payment_failed ends it', async () => {
    const { session } = await completedCheckout('payment');
    expect(parse(event('checkout.session.completed', { ...session, payment_status: 'unpaid' }))).toMatchObject({
      type: 'ignored',
      providerType: 'checkout.session.completed',
    });
    expect(parse(event('checkout.session.async_payment_succeeded', session))).toMatchObject({
      type: 'checkout.completed',
      checkoutId: session.id,
      amountTotal: 998,
    });
    expect(
      parse(event('checkout.session.async_payment_failed', { ...session, payment_status: 'unpaid' })),
    ).toMatchObject({ type: 'checkout.expired', checkoutId: session.id });
    expect(parse(event('checkout.session.completed', { ...session, mode: 'setup', amount_total: null }))).toMatchObject(
      { type: 'ignored' },
    );
  });

  it('checkout.session.expired → checkout.expired with its metadata', async () => {
    const { session } = await completedCheckout('payment');
    const delivered = event('checkout.session.expired', {
      ...session,
      status: 'expired',
      payment_status: 'unpaid',
      payment_intent: null,
    });
    expect(parse(delivered)).toEqual({
      type: 'checkout.expired',
      eventId: delivered.id,
      occurredAt: iso(created),
      checkoutId: session.id,
      metadata: { user_id: 'u1' },
    });
  });

  it.each([
    ['customer.subscription.created', 'subscription.updated'],
    ['customer.subscription.updated', 'subscription.updated'],
    ['customer.subscription.deleted', 'subscription.deleted'],
  ])('%s → %s', async (type, mapped) => {
    const { customer, monthly } = customerWithPrices();
    const subscription = stripe.addSubscription({ customer, price: monthly, metadata: { user_id: 'u1' } });
    const periodEnd = (subscription.items as { data: Array<{ current_period_end: number }> }).data[0]!
      .current_period_end;
    const delivered = event(type, {
      ...subscription,
      status: mapped === 'subscription.deleted' ? 'canceled' : 'past_due',
      cancel_at_period_end: true,
      canceled_at: created,
    });
    expect(parse(delivered)).toEqual({
      type: mapped,
      eventId: delivered.id,
      occurredAt: iso(created),
      subscription: {
        id: subscription.id,
        customerId: customer,
        status: mapped === 'subscription.deleted' ? 'canceled' : 'past_due',
        providerPriceId: monthly,
        cancelAtPeriodEnd: true,
        currentPeriodEnd: new Date(periodEnd * 1000).toISOString(),
        canceledAt: iso(created),
        metadata: { user_id: 'u1' },
      },
      // The first snapshot is marked: it never replaces a state a later event wrote in the same second.
      ...(type === 'customer.subscription.created' ? { created: true } : {}),
    });
  });

  it('reads a subscription from an endpoint on an API version before 2025-03-31.basil (period on the subscription)', () => {
    const old = {
      id: 'sub_old',
      object: 'subscription',
      customer: { id: 'cus_old', object: 'customer' },
      status: 'active',
      cancel_at_period_end: false,
      canceled_at: null,
      current_period_end: 1_790_500_000,
      metadata: {},
      items: { object: 'list', data: [{ id: 'si_old', price: { id: 'price_old' } }] },
    };
    expect(parse(event('customer.subscription.updated', old, '2024-06-20'))).toMatchObject({
      subscription: {
        id: 'sub_old',
        customerId: 'cus_old',
        currentPeriodEnd: iso(1_790_500_000),
        providerPriceId: 'price_old',
      },
    });
  });

  it('invoice.paid → invoice.paid with the PaymentIntent when the event carries one; invoice.payment_failed → invoice.payment_failed', () => {
    const { customer, monthly } = customerWithPrices();
    const subscription = String(stripe.addSubscription({ customer, price: monthly }).id);
    const invoice = stripe.addInvoice({ customer, subscription, amount: 999, currency: 'eur', created: 1_780_000_000 });
    const mapped = {
      id: invoice.id,
      customerId: customer,
      subscriptionId: subscription,
      status: 'paid',
      currency: 'eur',
      amountDue: 999,
      amountPaid: 999,
      hostedUrl: invoice.hosted_invoice_url,
      periodStart: iso(1_780_000_000),
      periodEnd: iso(1_780_000_000 + 30 * 86_400),
      createdAt: iso(1_780_000_000),
    };

    expect(parse(event('invoice.paid', invoice))).toMatchObject({
      type: 'invoice.paid',
      invoice: mapped,
      paymentId: null,
    });
    const withPayments = {
      ...invoice,
      payments: {
        object: 'list',
        data: [
          { object: 'invoice_payment', status: 'paid', payment: { type: 'payment_intent', payment_intent: 'pi_paid' } },
        ],
      },
    };
    expect(parse(event('invoice.paid', withPayments))).toMatchObject({ paymentId: 'pi_paid' });
    const failed = event('invoice.payment_failed', { ...invoice, status: 'open', amount_paid: 0 });
    expect(parse(failed)).toEqual({
      type: 'invoice.payment_failed',
      eventId: failed.id,
      occurredAt: iso(created),
      invoice: { ...mapped, status: 'open', amountPaid: 0 },
    });
  });

  it('reads an invoice from an endpoint before 2025-03-31.basil (subscription and payment_intent on the invoice)', () => {
    const old = {
      id: 'in_old',
      object: 'invoice',
      customer: 'cus_old',
      subscription: 'sub_old',
      payment_intent: 'pi_old',
      status: 'paid',
      currency: 'usd',
      amount_due: 500,
      amount_paid: 500,
      hosted_invoice_url: null,
      period_start: 1_780_000_000,
      period_end: 1_780_000_000,
      created: 1_780_000_000,
      lines: { data: [] },
    };
    expect(parse(event('invoice.paid', old, '2024-06-20'))).toMatchObject({
      invoice: { subscriptionId: 'sub_old', hostedUrl: null, periodStart: iso(1_780_000_000) },
      paymentId: 'pi_old',
    });
  });

  it('charge.refunded → charge.refunded with the PaymentIntent and the total refunded; a charge without one is ignored', () => {
    const charge = {
      id: 'ch_1',
      object: 'charge',
      amount: 1000,
      amount_refunded: 700,
      currency: 'eur',
      payment_intent: 'pi_1',
      refunded: false,
      status: 'succeeded',
    };
    const delivered = event('charge.refunded', charge);
    expect(parse(delivered)).toEqual({
      type: 'charge.refunded',
      eventId: delivered.id,
      occurredAt: iso(created),
      paymentId: 'pi_1',
      amountRefunded: 700,
      currency: 'eur',
    });
    expect(parse(event('charge.refunded', { ...charge, payment_intent: null }))).toMatchObject({
      type: 'ignored',
      providerType: 'charge.refunded',
    });
  });

  it('invoice_payment.paid → invoice.payment_linked naming the invoice and its PaymentIntent; unpaid or not a PaymentIntent → ignored', () => {
    const paid = {
      id: 'inpay_1',
      object: 'invoice_payment',
      invoice: 'in_1',
      status: 'paid',
      amount_paid: 999,
      currency: 'eur',
      payment: { type: 'payment_intent', payment_intent: { id: 'pi_9', object: 'payment_intent' } },
    };
    const delivered = event('invoice_payment.paid', paid);
    expect(parse(delivered)).toEqual({
      type: 'invoice.payment_linked',
      eventId: delivered.id,
      occurredAt: iso(created),
      link: { invoiceId: 'in_1', paymentId: 'pi_9', amount: 999, currency: 'eur' },
    });
    expect(parse(event('invoice_payment.paid', { ...paid, status: 'open' }))).toMatchObject({
      type: 'ignored',
      providerType: 'invoice_payment.paid',
    });
    expect(parse(event('invoice_payment.paid', { ...paid, payment: { type: 'out_of_band_payment' } }))).toMatchObject({
      type: 'ignored',
    });
    expect(() => parse(event('invoice_payment.paid', { id: 'inpay_2' }))).toThrow(MalformedWebhookEventError);
  });

  it('refund.created / refund.updated → refund.recorded with the PaymentIntent, status and the reason the service put in metadata; a refund without a PaymentIntent is ignored', () => {
    const refund = {
      id: 're_1',
      object: 'refund',
      amount: 300,
      currency: 'eur',
      payment_intent: { id: 'pi_1', object: 'payment_intent' },
      status: 'succeeded',
      metadata: { reason: 'duplicate purchase' },
    };
    const delivered = event('refund.created', refund);
    expect(parse(delivered)).toEqual({
      type: 'refund.recorded',
      eventId: delivered.id,
      occurredAt: iso(created),
      refund: {
        id: 're_1',
        paymentId: 'pi_1',
        amount: 300,
        currency: 'eur',
        status: 'succeeded',
        reason: 'duplicate purchase',
      },
    });
    expect(parse(event('refund.updated', { ...refund, status: 'requires_action', metadata: {} }))).toMatchObject({
      type: 'refund.recorded',
      refund: { status: 'pending', reason: null },
    });
    expect(parse(event('refund.updated', { ...refund, status: 'failed' }))).toMatchObject({
      refund: { status: 'failed' },
    });
    expect(parse(event('refund.created', { ...refund, payment_intent: null }))).toMatchObject({
      type: 'ignored',
      providerType: 'refund.created',
    });
    expect(() => parse(event('refund.created', { id: 're_2', object: 'refund' }))).toThrow(MalformedWebhookEventError);
  });

  it('an event type it does not consume → ignored, with the type', () => {
    const delivered = event('customer.created', { id: 'cus_1', object: 'customer' });
    expect(parse(delivered)).toEqual({
      type: 'ignored',
      eventId: delivered.id,
      occurredAt: iso(created),
      providerType: 'customer.created',
    });
  });

  it('a signed event it consumes whose object does not read is MalformedWebhookEventError, not a guess', () => {
    expect(() => parse(event('customer.subscription.updated', { id: 'sub_1', status: 'active' }))).toThrow(
      MalformedWebhookEventError,
    );
    expect(() => parse(event('invoice.paid', { id: 'in_1' }))).toThrow(MalformedWebhookEventError);
  });

  it('refuses a tampered body, a wrong secret, a missing or malformed header, and a signature older than 300 s', () => {
    const delivered = event('charge.refunded', {
      id: 'ch_1',
      amount_refunded: 700,
      currency: 'eur',
      payment_intent: 'pi_1',
    });
    const { body, header } = signed(delivered);
    const tampered = Buffer.from(body.toString('utf8').replace('700', '70000'));
    expect(signatureFailure(tampered, header).message).toBe('the signature does not match the body');

    const wrongSecret = signed(delivered, { secret: `whsec_${randomUUID()}` });
    expect(signatureFailure(wrongSecret.body, wrongSecret.header).message).toBe(
      'the signature does not match the body',
    );

    expect(signatureFailure(body, undefined).message).toBe('no Stripe-Signature header');
    expect(signatureFailure(body, '').message).toBe('no Stripe-Signature header');
    expect(signatureFailure(body, 'garbage').message).toBe('the Stripe-Signature header is malformed');

    const now = Math.floor(Date.now() / 1000);
    const stale = signed(delivered, { timestamp: now - 301 });
    expect(signatureFailure(stale.body, stale.header).message).toBe('the signature is older than 300 s');
    const justInTime = signed(delivered, { timestamp: now - 290 });
    expect(provider.parseWebhook(justInTime.body, justInTime.header)).toMatchObject({ type: 'charge.refunded' });
  });
});

describe('dashboardUrl', () => {
  it('links into the test dashboard for a test key and the live one otherwise', () => {
    expect(provider.dashboardUrl('customer', 'cus_1')).toBe('https://dashboard.stripe.com/test/customers/cus_1');
    expect(provider.dashboardUrl('subscription', 'sub_1')).toBe(
      'https://dashboard.stripe.com/test/subscriptions/sub_1',
    );
    expect(provider.dashboardUrl('invoice', 'in_1')).toBe('https://dashboard.stripe.com/test/invoices/in_1');
    expect(provider.dashboardUrl('payment', 'pi/1')).toBe('https://dashboard.stripe.com/test/payments/pi%2F1');
    expect(providerFor({ secretKey: 'sk_live_abc' }).dashboardUrl('payment', 'pi_1')).toBe(
      'https://dashboard.stripe.com/payments/pi_1',
    );
  });
});

describe('createPaymentProvider', () => {
  it('picks stripe when STRIPE_SECRET_KEY is set, pointed at STRIPE_API_BASE', async () => {
    const payments = await createPaymentProvider(
      { stripeSecretKey: SECRET_KEY, stripeWebhookSecret: WEBHOOK_SECRET, stripeApiBase: stripe.url },
      captured.log,
    );
    expect(payments.kind).toBe('stripe');
    await payments.createPortalSession(String(stripe.addCustomer().id), 'https://a.example');
    expect(onlyRequest()).toMatchObject({ path: '/v1/billing_portal/sessions', authorizedWithKey: true });
  });

  it('refuses a key without a webhook secret, and an API base with a path', async () => {
    await expect(
      createPaymentProvider(
        { stripeSecretKey: SECRET_KEY, stripeWebhookSecret: undefined, stripeApiBase: undefined },
        captured.log,
      ),
    ).rejects.toThrow('STRIPE_WEBHOOK_SECRET');
    await expect(
      createPaymentProvider(
        { stripeSecretKey: SECRET_KEY, stripeWebhookSecret: WEBHOOK_SECRET, stripeApiBase: `${stripe.url}/v1` },
        captured.log,
      ),
    ).rejects.toThrow('without a path');
  });

  it('picks local without a key, given what the local provider needs', async () => {
    const local = await createPaymentProvider(
      { stripeSecretKey: undefined, stripeWebhookSecret: undefined, stripeApiBase: undefined },
      captured.log,
      { priceLookup: async () => null, publicBaseUrl: () => 'http://127.0.0.1:1' },
    );
    expect(local.kind).toBe('local');
    await expect(
      createPaymentProvider(
        { stripeSecretKey: undefined, stripeWebhookSecret: undefined, stripeApiBase: undefined },
        captured.log,
      ),
    ).rejects.toThrow('local payment provider needs');
  });
});
