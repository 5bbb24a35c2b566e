import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalPaymentProvider } from '../../../../src/adapters/payments/local.js';
import { createUser, startTestApp, type TestApp, type TestUser } from '../../../helpers/app.js';
import { startStripeServer, type StripeServer } from '../../../helpers/stripe-server.js';

/**
 * A promotion code at checkout (operation 6's `promotionCode`): checked against what staff made
 * (active, unexpired, its coupon alive, redemptions under the limits, first purchases only, the
 * coupon's currency), then handed to the provider, which discounts the checkout. Every refusal
 * is 422 `invalid_request` naming why, and stores nothing.
 */

const urls = { successUrl: 'https://game.example/done', cancelUrl: 'https://game.example/cancel' };
const PAST = '2020-01-01T00:00:00.000Z';
let t: TestApp;
let staff: TestUser;

beforeAll(async () => {
  t = await startTestApp();
  staff = await createUser(t.db, ['plans.write', 'billing.read', 'billing.write']);
  const product = await t.request({
    method: 'POST',
    url: '/v1/admin/plans/products',
    token: staff.token,
    payload: { kind: 'credit_pack', name: 'Pack', credits: 100 },
  });
  expect(
    (
      await t.request({
        method: 'POST',
        url: `/v1/admin/plans/products/${product.json().id}/prices`,
        token: staff.token,
        payload: { providerPriceId: 'price_promo_pack', currency: 'usd', unitAmount: 1000 },
      })
    ).statusCode,
  ).toBe(201);
});
afterAll(async () => {
  await t.close();
});

let counter = 0;
async function promotionCode(
  coupon: object = { percent_off: 20, duration: 'once' },
  code: object = {},
): Promise<{ id: string; couponId: string; code: string }> {
  const made = await t.request({
    method: 'POST',
    url: '/v1/admin/billing/coupons',
    token: staff.token,
    payload: { name: `Coupon ${++counter}`, ...coupon },
  });
  expect(made.statusCode, made.body).toBe(201);
  const text = `Promo${counter}X`;
  const promo = await t.request({
    method: 'POST',
    url: '/v1/admin/billing/promotion-codes',
    token: staff.token,
    payload: { code: text, coupon_id: made.json().id, ...code },
  });
  expect(promo.statusCode, promo.body).toBe(201);
  return { id: promo.json().id, couponId: made.json().id, code: text };
}

const checkout = (player: TestUser, payload: object) =>
  t.request({
    method: 'POST',
    url: '/v1/me/billing/checkout-session',
    token: player.token,
    payload: { ...urls, priceId: 'price_promo_pack', ...payload },
  });
const pay = (id: string) =>
  t.request({
    method: 'POST',
    url: `/v1/public/billing/local/checkout/${id}/pay`,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: '',
  });
const sessionsOf = (userId: string) =>
  t.db
    .selectFrom('billing_checkout_sessions')
    .select(['provider_checkout_id', 'promotion_code_id', 'status'])
    .where('user_id', '=', userId)
    .execute();

async function expectRefused(player: TestUser, code: string, reason: string) {
  const response = await checkout(player, { promotionCode: code });
  expect({ status: response.statusCode, body: response.json() }).toEqual({
    status: 422,
    body: { error: 'invalid_request', details: { field: 'promotionCode', reason } },
  });
  expect(await sessionsOf(player.id)).toEqual([]);
}

describe('POST /v1/me/billing/checkout-session with a promotionCode', () => {
  it('200: the code (any case) discounts the checkout; the session records it; paying charges the discounted total', async () => {
    const promo = await promotionCode();
    const player = await createUser(t.db);
    const response = await checkout(player, { promotionCode: promo.code.toLowerCase(), quantity: 2 });
    expect(response.statusCode, response.body).toBe(200);
    const id = response.json().id as string;
    expect(await sessionsOf(player.id)).toEqual([
      { provider_checkout_id: id, promotion_code_id: promo.id, status: 'open' },
    ]);
    expect((t.kernel.payments as LocalPaymentProvider).checkout(id)).toMatchObject({
      subtotal: 2000,
      amountTotal: 1600,
    });
    expect((await pay(id)).statusCode).toBe(303);
    const payment = await t.db
      .selectFrom('billing_payments')
      .select(['amount', 'credits'])
      .where('user_id', '=', player.id)
      .executeTakeFirstOrThrow();
    expect({ amount: Number(payment.amount), credits: payment.credits }).toEqual({ amount: 1600, credits: 200 });
  });

  it('the same request with and without a code are different checkouts', async () => {
    const promo = await promotionCode();
    const player = await createUser(t.db);
    const plain = await checkout(player, {});
    const discounted = await checkout(player, { promotionCode: promo.code });
    expect(discounted.json().id).not.toBe(plain.json().id);
    expect((await checkout(player, { promotionCode: promo.code.toUpperCase() })).json().id).toBe(discounted.json().id);
  });

  it('422 unknown_code, code_inactive, code_expired; nothing stored', async () => {
    const player = await createUser(t.db);
    await expectRefused(player, 'NOSUCHCODE', 'unknown_code');
    const inactive = await promotionCode({ percent_off: 10, duration: 'once' }, { active: false });
    await expectRefused(player, inactive.code, 'code_inactive');
    const expiring = await promotionCode();
    await sql`UPDATE billing_promotion_codes SET expires_at = ${PAST} WHERE id = ${expiring.id}`.execute(t.db);
    await expectRefused(player, expiring.code, 'code_expired');
  });

  it('422 coupon_ended when the coupon was deleted or is past its redeem_by', async () => {
    const player = await createUser(t.db);
    const deleted = await promotionCode();
    expect(
      (
        await t.request({
          method: 'DELETE',
          url: `/v1/admin/billing/coupons/${deleted.couponId}`,
          token: staff.token,
          payload: { reason: 'Campaign over' },
        })
      ).statusCode,
    ).toBeLessThan(300);
    // Deleting a coupon deactivates its codes; made active again here, the coupon itself still refuses.
    await t.db.updateTable('billing_promotion_codes').set({ active: true }).where('id', '=', deleted.id).execute();
    await expectRefused(player, deleted.code, 'coupon_ended');
    const lapsed = await promotionCode();
    await sql`UPDATE billing_coupons SET redeem_by = ${PAST} WHERE id = ${lapsed.couponId}`.execute(t.db);
    await expectRefused(player, lapsed.code, 'coupon_ended');
  });

  it("422 fully_redeemed once completed checkouts reach the code's or the coupon's limit; open checkouts do not count", async () => {
    const promo = await promotionCode(
      { percent_off: 10, duration: 'once', max_redemptions: 5 },
      { max_redemptions: 1 },
    );
    const first = await createUser(t.db);
    const started = await checkout(first, { promotionCode: promo.code });
    expect(started.statusCode).toBe(200);
    const second = await createUser(t.db);
    expect((await checkout(second, { promotionCode: promo.code })).statusCode).toBe(200);
    expect((await pay(started.json().id)).statusCode).toBe(303);
    await expectRefused(await createUser(t.db), promo.code, 'fully_redeemed');

    const shared = await promotionCode({ percent_off: 10, duration: 'once', max_redemptions: 1 });
    const sibling = await t.request({
      method: 'POST',
      url: '/v1/admin/billing/promotion-codes',
      token: staff.token,
      payload: { code: `Sibling${counter}`, coupon_id: shared.couponId },
    });
    const buyer = await createUser(t.db);
    expect((await pay((await checkout(buyer, { promotionCode: shared.code })).json().id)).statusCode).toBe(303);
    await expectRefused(await createUser(t.db), sibling.json().code, 'fully_redeemed');
  });

  it('422 first_purchase_only for a player who bought before; a new player may use it', async () => {
    const promo = await promotionCode({ percent_off: 50, duration: 'once' }, { first_time_only: true });
    const regular = await createUser(t.db);
    expect((await pay((await checkout(regular, {})).json().id)).statusCode).toBe(303);
    const before = await sessionsOf(regular.id);
    const response = await checkout(regular, { promotionCode: promo.code });
    expect({ status: response.statusCode, body: response.json() }).toEqual({
      status: 422,
      body: { error: 'invalid_request', details: { field: 'promotionCode', reason: 'first_purchase_only' } },
    });
    expect(await sessionsOf(regular.id)).toEqual(before);
    expect((await checkout(await createUser(t.db), { promotionCode: promo.code })).statusCode).toBe(200);
  });

  it('422 currency_mismatch for an amount-off coupon in another currency', async () => {
    const promo = await promotionCode({ amount_off: 100, currency: 'eur', duration: 'once' });
    await expectRefused(await createUser(t.db), promo.code, 'currency_mismatch');
  });

  it('400 for a code that cannot be one (too short, bad characters)', async () => {
    const player = await createUser(t.db);
    for (const promotionCode of ['AB', 'no spaces', '-DASH', 'x'.repeat(51), 42]) {
      const response = await checkout(player, { promotionCode });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({
        success: false,
        error: { name: 'SchemaError', issues: [expect.objectContaining({ path: ['promotionCode'] })] },
      });
    }
    expect(await sessionsOf(player.id)).toEqual([]);
  });
});

describe('on Stripe', () => {
  const secretKey = 'sk_test_checkoutpromotions';
  let stripe: StripeServer;
  let s: TestApp;

  beforeAll(async () => {
    stripe = await startStripeServer({ secretKey });
    s = await startTestApp({
      config: {
        stripeSecretKey: secretKey,
        stripeWebhookSecret: 'whsec_checkoutpromotions',
        stripeApiBase: stripe.url,
      },
    });
    const planner = await createUser(s.db, ['plans.write', 'billing.write']);
    const product = await s.request({
      method: 'POST',
      url: '/v1/admin/plans/products',
      token: planner.token,
      payload: { kind: 'credit_pack', name: 'Pack', credits: 100 },
    });
    const price = stripe.addPrice({ currency: 'usd', unitAmount: 1000 });
    expect(
      (
        await s.request({
          method: 'POST',
          url: `/v1/admin/plans/products/${product.json().id}/prices`,
          token: planner.token,
          payload: { providerPriceId: price.id, currency: 'usd', unitAmount: 1000 },
        })
      ).statusCode,
    ).toBe(201);
    const coupon = await s.request({
      method: 'POST',
      url: '/v1/admin/billing/coupons',
      token: planner.token,
      payload: { name: 'Stripe ten', percent_off: 10, duration: 'once' },
    });
    expect(
      (
        await s.request({
          method: 'POST',
          url: '/v1/admin/billing/promotion-codes',
          token: planner.token,
          payload: { code: 'STRIPE10', coupon_id: coupon.json().id },
        })
      ).statusCode,
    ).toBe(201);
  });
  afterAll(async () => {
    await s.close();
    await stripe.close();
  });

  it("the checkout asks Stripe for the code's provider id as its discount", async () => {
    const player = await createUser(s.db);
    const price = await s.db.selectFrom('billing_prices').select('provider_price_id').executeTakeFirstOrThrow();
    const response = await s.request({
      method: 'POST',
      url: '/v1/me/billing/checkout-session',
      token: player.token,
      payload: { ...urls, priceId: price.provider_price_id, promotionCode: 'stripe10' },
    });
    expect(response.statusCode, response.body).toBe(200);
    const code = await s.db
      .selectFrom('billing_promotion_codes')
      .select(['id', 'provider_promotion_code_id'])
      .executeTakeFirstOrThrow();
    const sent = stripe.requests.filter((r) => r.path === '/v1/checkout/sessions').at(-1)!;
    expect(sent.form['discounts[0][promotion_code]']).toBe(code.provider_promotion_code_id);
    expect(
      await s.db
        .selectFrom('billing_checkout_sessions')
        .select('promotion_code_id')
        .where('user_id', '=', player.id)
        .executeTakeFirstOrThrow(),
    ).toEqual({ promotion_code_id: code.id });
  });
});
