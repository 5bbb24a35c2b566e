import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PaymentProviderError, WebhookSignatureError, type PaymentEvent } from '../../src/adapters/payments/index.js';
import { LocalPaymentProvider, type LocalPrice } from '../../src/adapters/payments/local.js';
import { rejectionOf } from '../helpers/expectations.js';
import { waitFor } from '../helpers/waiting.js';

/**
 * The embedded default's payment provider: checkouts paid or cancelled on its page produce the
 * same events a Stripe webhook would; renewals, refunds, cancellation and resumption behave as
 * Stripe's do; its state survives a restart through its state file.
 */

const PRICES: Record<string, LocalPrice> = {
  price_pack: { unitAmount: 499, currency: 'eur', interval: null },
  price_monthly: { unitAmount: 999, currency: 'eur', interval: 'month' },
  price_yearly: { unitAmount: 9999, currency: 'eur', interval: 'year' },
};

const dir = mkdtempSync(join(tmpdir(), 'local-payments-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const clock = new Date('2026-11-22T10:00:00Z');
function provider(stateFile?: string) {
  return new LocalPaymentProvider({
    priceLookup: async (id) => PRICES[id] ?? null,
    publicBaseUrl: () => 'http://127.0.0.1:8080',
    now: () => clock,
    ...(stateFile ? { stateFile } : {}),
  });
}

const checkoutInput = (
  customerId: string,
  over: Partial<Parameters<LocalPaymentProvider['createCheckout']>[0]> = {},
) => ({
  customerId,
  mode: 'payment' as const,
  providerPriceId: 'price_pack',
  quantity: 3,
  successUrl: 'https://play.example.test/ok',
  cancelUrl: 'https://play.example.test/cancel',
  metadata: { user_id: 'u1', product_id: 'p1' },
  idempotencyKey: `key-${Math.random()}`,
  ...over,
});

describe('checkout', () => {
  it("a paid pack: the URL is the service's page; paying yields checkout.completed with the total and the metadata", async () => {
    const p = provider();
    const customer = await p.createCustomer({ userId: 'u1', email: 'a@example.test', name: null });
    const checkout = await p.createCheckout(checkoutInput(customer.id));
    expect(checkout.url).toBe(`http://127.0.0.1:8080/v1/public/billing/local/checkout/${checkout.id}`);
    expect(p.checkout(checkout.id)).toMatchObject({ status: 'open', amountTotal: 1497, currency: 'eur', quantity: 3 });

    const events = p.payCheckout(checkout.id);
    expect(events).toEqual([
      {
        type: 'checkout.completed',
        eventId: expect.stringMatching(/^evt_local_/),
        occurredAt: clock.toISOString(),
        checkoutId: checkout.id,
        customerId: customer.id,
        mode: 'payment',
        paymentId: expect.stringMatching(/^pi_local_/),
        subscriptionId: null,
        amountTotal: 1497,
        currency: 'eur',
        metadata: { user_id: 'u1', product_id: 'p1' },
      },
    ]);
    expect(p.checkout(checkout.id)?.status).toBe('complete');
    expect((await rejectionOf(() => p.payCheckout(checkout.id), PaymentProviderError)).code).toBe('checkout_not_open');
  });

  it('the same idempotency key returns the same checkout, also when two calls race', async () => {
    const p = provider();
    const customer = await p.createCustomer({ userId: 'u1', email: null, name: null });
    const input = checkoutInput(customer.id);
    const first = await p.createCheckout(input);
    expect(await p.createCheckout(input)).toEqual(first);
    const racing = checkoutInput(customer.id);
    const [a, b] = await Promise.all([p.createCheckout(racing), p.createCheckout(racing)]);
    expect(b).toEqual(a);
  });

  it('refuses an unknown price, a price in the wrong mode, and an unknown customer', async () => {
    const p = provider();
    const customer = await p.createCustomer({ userId: 'u1', email: null, name: null });
    expect(
      await rejectionOf(
        p.createCheckout(checkoutInput(customer.id, { providerPriceId: 'price_none' })),
        PaymentProviderError,
      ),
    ).toMatchObject({ kind: 'refused', code: 'resource_missing' });
    expect(
      await rejectionOf(p.createCheckout(checkoutInput(customer.id, { mode: 'subscription' })), PaymentProviderError),
    ).toMatchObject({
      code: 'invalid_request',
    });
    expect(
      await rejectionOf(
        p.createCheckout(checkoutInput(customer.id, { mode: 'payment', providerPriceId: 'price_monthly' })),
        PaymentProviderError,
      ),
    ).toMatchObject({ code: 'invalid_request' });
    expect(await rejectionOf(p.createCheckout(checkoutInput('cus_nobody')), PaymentProviderError)).toMatchObject({
      code: 'resource_missing',
    });
  });

  it('ids named like Object.prototype members name nothing, before and after a restart (the fuzz suite found `toString` answering a 500)', async () => {
    const file = join(dir, 'prototype-names.json');
    const p = provider(file);
    const customer = await p.createCustomer({ userId: 'u9', email: null, name: null });
    const checkout = await p.createCheckout(checkoutInput(customer.id, { quantity: 1 }));
    const [completed] = p.payCheckout(checkout.id) as Array<Extract<PaymentEvent, { type: 'checkout.completed' }>>;
    p.flush();
    for (const current of [p, provider(file)]) {
      for (const id of ['toString', '__proto__', 'constructor', 'hasOwnProperty', 'valueOf']) {
        expect(current.checkout(id), id).toBeUndefined();
        expect(() => current.payCheckout(id), id).toThrow(PaymentProviderError);
        expect(current.dashboardObject('payment', id), id).toBeUndefined();
        expect(
          (await rejectionOf(current.refundPayment({ paymentId: id, idempotencyKey: `k-${id}` }), PaymentProviderError))
            .code,
        ).toBe('resource_missing');
        expect((await rejectionOf(current.createCheckout(checkoutInput(id)), PaymentProviderError)).code).toBe(
          'resource_missing',
        );
      }
      // An idempotency key named like a member is a key like any other: a fresh refund, then the same one again.
      const refund = await current.refundPayment({
        paymentId: completed!.paymentId!,
        amount: 1,
        idempotencyKey: current === p ? 'constructor' : 'toString',
      });
      expect(
        await current.refundPayment({
          paymentId: completed!.paymentId!,
          amount: 1,
          idempotencyKey: current === p ? 'constructor' : 'toString',
        }),
      ).toEqual(refund);
    }
  });

  it('cancelling expires the checkout', async () => {
    const p = provider();
    const customer = await p.createCustomer({ userId: 'u1', email: null, name: null });
    const checkout = await p.createCheckout(checkoutInput(customer.id));
    expect(p.cancelCheckout(checkout.id)).toEqual([
      {
        type: 'checkout.expired',
        eventId: expect.any(String),
        occurredAt: clock.toISOString(),
        checkoutId: checkout.id,
        metadata: { user_id: 'u1', product_id: 'p1' },
      },
    ]);
    expect((await rejectionOf(() => p.payCheckout(checkout.id), PaymentProviderError)).code).toBe('checkout_not_open');
  });
});

describe('subscriptions', () => {
  async function subscribed(p: LocalPaymentProvider, priceId = 'price_monthly') {
    const customer = await p.createCustomer({ userId: 'u2', email: null, name: null });
    const checkout = await p.createCheckout(
      checkoutInput(customer.id, { mode: 'subscription', providerPriceId: priceId, quantity: 1 }),
    );
    const events = p.payCheckout(checkout.id);
    const created = events.find((e) => e.type === 'subscription.updated') as Extract<
      PaymentEvent,
      { type: 'subscription.updated' }
    >;
    return { events, subscription: created.subscription };
  }

  it('paying creates an active subscription for one period, its paid invoice, then the completed checkout', async () => {
    const p = provider();
    const { events, subscription } = await subscribed(p, 'price_yearly');
    expect(events.map((e) => e.type)).toEqual(['subscription.updated', 'invoice.paid', 'checkout.completed']);
    expect(subscription).toMatchObject({
      status: 'active',
      providerPriceId: 'price_yearly',
      cancelAtPeriodEnd: false,
      currentPeriodEnd: '2027-11-22T10:00:00.000Z',
      metadata: { user_id: 'u1', product_id: 'p1' },
    });
    const invoicePaid = events[1] as Extract<PaymentEvent, { type: 'invoice.paid' }>;
    expect(invoicePaid.invoice).toMatchObject({
      subscriptionId: subscription.id,
      status: 'paid',
      amountDue: 9999,
      amountPaid: 9999,
      currency: 'eur',
    });
    expect(events[2]).toMatchObject({ mode: 'subscription', paymentId: null, subscriptionId: subscription.id });
    expect(await p.listInvoices(subscription.customerId, 10)).toEqual([invoicePaid.invoice]);
  });

  it('renews (next period), fails a renewal (past_due), and cancels at period end on the next renewal', async () => {
    const p = provider();
    const { subscription } = await subscribed(p);
    const renewed = p.renewSubscription(subscription.id, 'paid');
    expect(renewed.map((e) => e.type)).toEqual(['invoice.paid', 'subscription.updated']);
    expect((renewed[1] as Extract<PaymentEvent, { type: 'subscription.updated' }>).subscription.currentPeriodEnd).toBe(
      '2027-01-22T10:00:00.000Z',
    );

    const failed = p.renewSubscription(subscription.id, 'failed');
    expect(failed.map((e) => e.type)).toEqual(['invoice.payment_failed', 'subscription.updated']);
    expect((failed[1] as Extract<PaymentEvent, { type: 'subscription.updated' }>).subscription.status).toBe('past_due');

    expect(await p.cancelSubscription(subscription.id, 'period_end')).toMatchObject({
      status: 'past_due',
      cancelAtPeriodEnd: true,
    });
    expect(await p.resumeSubscription(subscription.id)).toMatchObject({ cancelAtPeriodEnd: false });
    await p.cancelSubscription(subscription.id, 'period_end');
    const ended = p.renewSubscription(subscription.id, 'paid');
    expect(ended).toEqual([
      expect.objectContaining({
        type: 'subscription.deleted',
        subscription: expect.objectContaining({ status: 'canceled' }),
      }),
    ]);
    expect((await rejectionOf(p.resumeSubscription(subscription.id), PaymentProviderError)).code).toBe(
      'subscription_canceled',
    );
    expect((await rejectionOf(() => p.renewSubscription(subscription.id, 'paid'), PaymentProviderError)).code).toBe(
      'subscription_canceled',
    );
  });

  it('cancels now, and moves to another recurring price', async () => {
    const p = provider();
    const { subscription } = await subscribed(p);
    expect(await p.changeSubscriptionPrice(subscription.id, 'price_yearly', 'k1')).toMatchObject({
      providerPriceId: 'price_yearly',
      status: 'active',
    });
    expect(
      (await rejectionOf(p.changeSubscriptionPrice(subscription.id, 'price_pack', 'k2'), PaymentProviderError)).code,
    ).toBe('resource_missing');
    expect(await p.cancelSubscription(subscription.id, 'now')).toMatchObject({
      status: 'canceled',
      canceledAt: clock.toISOString(),
    });
    expect((await rejectionOf(p.cancelSubscription(subscription.id, 'now'), PaymentProviderError)).code).toBe(
      'subscription_canceled',
    );
    expect((await rejectionOf(p.cancelSubscription('sub_nobody', 'now'), PaymentProviderError)).code).toBe(
      'resource_missing',
    );
  });
});

describe('refunds, coupons, webhooks, links, persistence', () => {
  it('refunds part, then the rest; never more than was paid', async () => {
    const p = provider();
    const customer = await p.createCustomer({ userId: 'u3', email: null, name: null });
    const checkout = await p.createCheckout(checkoutInput(customer.id, { quantity: 2 }));
    const [completed] = p.payCheckout(checkout.id) as Array<Extract<PaymentEvent, { type: 'checkout.completed' }>>;
    const paymentId = completed!.paymentId!;
    expect(await p.refundPayment({ paymentId, amount: 300, idempotencyKey: 'r1' })).toMatchObject({
      amount: 300,
      currency: 'eur',
      status: 'succeeded',
    });
    expect(
      (await rejectionOf(p.refundPayment({ paymentId, amount: 699, idempotencyKey: 'r2' }), PaymentProviderError)).code,
    ).toBe('amount_too_large');
    expect(await p.refundPayment({ paymentId, idempotencyKey: 'r3' })).toMatchObject({ amount: 698 });
    expect((await rejectionOf(p.refundPayment({ paymentId, idempotencyKey: 'r4' }), PaymentProviderError)).code).toBe(
      'amount_too_large',
    );
    expect(
      (await rejectionOf(p.refundPayment({ paymentId: 'pi_nobody', idempotencyKey: 'r5' }), PaymentProviderError)).code,
    ).toBe('resource_missing');
  });

  it('a refund repeated under its idempotency key answers the first refund; the key with another amount is refused', async () => {
    const p = provider();
    const customer = await p.createCustomer({ userId: 'u6', email: null, name: null });
    const checkout = await p.createCheckout(checkoutInput(customer.id, { quantity: 2 }));
    const [completed] = p.payCheckout(checkout.id) as Array<Extract<PaymentEvent, { type: 'checkout.completed' }>>;
    const paymentId = completed!.paymentId!;
    const first = await p.refundPayment({ paymentId, amount: 300, idempotencyKey: 'same' });
    expect(await p.refundPayment({ paymentId, amount: 300, idempotencyKey: 'same' })).toEqual(first);
    expect(
      await rejectionOf(p.refundPayment({ paymentId, amount: 200, idempotencyKey: 'same' }), PaymentProviderError),
    ).toMatchObject({
      kind: 'refused',
      code: 'idempotency_error',
    });
    // Only the first took money back: 698 of 998 is still refundable.
    expect(await p.refundPayment({ paymentId, idempotencyKey: 'rest' })).toMatchObject({ amount: 698 });
    expect(p.dashboardObject('payment', paymentId)).toMatchObject({
      amount: 998,
      refunded: 998,
      refunds: [{ id: first.id, amount: 300 }, { amount: 698 }],
    });
  });

  it("a promotion code discounts the checkout (percent or amount off, in the price's currency); unusable codes are refused", async () => {
    const p = provider();
    const customer = await p.createCustomer({ userId: 'u7', email: null, name: null });
    const percent = await p.createPromotionCode({
      couponId: (await p.createCoupon({ percentOff: 25, duration: 'once', name: 'Quarter' })).id,
      code: 'Q25',
      firstTimeTransaction: false,
      active: true,
    });
    const amount = await p.createPromotionCode({
      couponId: (await p.createCoupon({ amountOff: 200, currency: 'eur', duration: 'once', name: 'Two' })).id,
      code: 'TWO',
      firstTimeTransaction: false,
      active: true,
    });
    const dollars = await p.createPromotionCode({
      couponId: (await p.createCoupon({ amountOff: 200, currency: 'usd', duration: 'once', name: 'Usd' })).id,
      code: 'USD',
      firstTimeTransaction: false,
      active: true,
    });
    const off = await p.createPromotionCode({
      couponId: (await p.createCoupon({ percentOff: 10, duration: 'once', name: 'Off' })).id,
      code: 'OFF',
      firstTimeTransaction: false,
      active: false,
    });
    // 3 × 499 = 1497: 25 % off → 1123 (374.25 rounded off); 200 off → 1297.
    expect(
      p.checkout((await p.createCheckout(checkoutInput(customer.id, { promotionCodeId: percent.id }))).id),
    ).toMatchObject({ subtotal: 1497, amountTotal: 1123 });
    expect(
      p.checkout((await p.createCheckout(checkoutInput(customer.id, { promotionCodeId: amount.id }))).id),
    ).toMatchObject({ subtotal: 1497, amountTotal: 1297 });
    expect(
      await rejectionOf(
        p.createCheckout(checkoutInput(customer.id, { promotionCodeId: dollars.id })),
        PaymentProviderError,
      ),
    ).toMatchObject({
      code: 'coupon_currency_mismatch',
    });
    expect(
      await rejectionOf(
        p.createCheckout(checkoutInput(customer.id, { promotionCodeId: off.id })),
        PaymentProviderError,
      ),
    ).toMatchObject({
      code: 'promotion_code_inactive',
    });
    expect(
      await rejectionOf(
        p.createCheckout(checkoutInput(customer.id, { promotionCodeId: 'promo_nobody' })),
        PaymentProviderError,
      ),
    ).toMatchObject({ code: 'resource_missing' });
  });

  it.each([
    ['once', { duration: 'once' as const }, [749, 999, 999]],
    ['repeating for 3 months', { duration: 'repeating' as const, durationInMonths: 3 }, [749, 749, 749, 999]],
    ['forever', { duration: 'forever' as const }, [749, 749, 749, 749]],
  ])(
    "a subscription's coupon (%s) comes off its first invoice and the renewals its duration covers",
    async (_name, terms, amounts) => {
      const p = provider();
      const customer = await p.createCustomer({ userId: 'u8', email: null, name: null });
      const code = await p.createPromotionCode({
        couponId: (await p.createCoupon({ percentOff: 25, name: 'Sub', ...terms })).id,
        code: 'SUB',
        firstTimeTransaction: false,
        active: true,
      });
      const checkout = await p.createCheckout(
        checkoutInput(customer.id, {
          mode: 'subscription',
          providerPriceId: 'price_monthly',
          quantity: 1,
          promotionCodeId: code.id,
        }),
      );
      const events = p.payCheckout(checkout.id);
      const subscriptionId = (events[0] as Extract<PaymentEvent, { type: 'subscription.updated' }>).subscription.id;
      const charged = [(events[1] as Extract<PaymentEvent, { type: 'invoice.paid' }>).invoice.amountPaid];
      for (let renewal = 1; renewal < amounts.length; renewal++) {
        const paid = p.renewSubscription(subscriptionId, 'paid')[0] as Extract<PaymentEvent, { type: 'invoice.paid' }>;
        charged.push(paid.invoice.amountPaid);
      }
      expect(charged).toEqual(amounts);
    },
  );

  it('coupons and promotion codes', async () => {
    const p = provider();
    const coupon = await p.createCoupon({ percentOff: 20, duration: 'once', name: 'Launch' });
    const code = await p.createPromotionCode({
      couponId: coupon.id,
      code: 'LAUNCH20',
      firstTimeTransaction: false,
      active: true,
    });
    await p.updatePromotionCode(code.id, { active: false });
    expect(
      (await rejectionOf(p.updatePromotionCode('promo_nobody', { active: true }), PaymentProviderError)).code,
    ).toBe('resource_missing');
    await p.deleteCoupon(coupon.id);
    expect(
      (
        await rejectionOf(
          p.createPromotionCode({ couponId: coupon.id, code: 'X', firstTimeTransaction: false, active: true }),
          PaymentProviderError,
        )
      ).code,
    ).toBe('resource_missing');
  });

  it("has no webhooks; its portal and dashboard links are the service's pages", async () => {
    const p = provider();
    expect(() => p.parseWebhook()).toThrow(WebhookSignatureError);
    const customer = await p.createCustomer({ userId: 'u4', email: null, name: null });
    expect((await p.createPortalSession(customer.id, 'https://play.example.test/account')).url).toBe(
      'http://127.0.0.1:8080/v1/public/billing/local/portal?return_url=https%3A%2F%2Fplay.example.test%2Faccount',
    );
    expect(p.dashboardUrl('payment', 'pi_local_1')).toBe(
      'http://127.0.0.1:8080/v1/admin/billing/local/dashboard/payment/pi_local_1',
    );
    expect(p.dashboardObject('customer', customer.id)).toEqual({ id: customer.id, userId: 'u4', email: null });
    expect(p.dashboardObject('payment', 'pi_nobody')).toBeUndefined();
  });

  it('keeps its state in the state file (private to the owner) across restarts', async () => {
    const file = join(dir, 'payments.json');
    const first = provider(file);
    const customer = await first.createCustomer({ userId: 'u5', email: null, name: null });
    const checkout = await first.createCheckout(checkoutInput(customer.id));
    // Changes gather a moment and are written once (bulk work stays linear); a stop flushes them.
    expect(existsSync(file)).toBe(false);
    first.flush();
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const second = provider(file);
    expect(second.checkout(checkout.id)?.status).toBe('open');
    expect(second.payCheckout(checkout.id)).toHaveLength(1);
    // Without a flush, the pending write happens on its own shortly after.
    await waitFor(
      () => provider(file).checkout(checkout.id)?.status === 'complete',
      'the pending write to the state file',
    );
    expect(provider(file).checkout(checkout.id)?.status).toBe('complete');
  });
});
