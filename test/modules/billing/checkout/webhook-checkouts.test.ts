import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureLog, type CapturedLog } from '../../../helpers/captured-log.js';
import { createUser, startTestApp, type TestApp, type TestUser } from '../../../helpers/app.js';
import { startStripeServer, type StripeServer } from '../../../helpers/stripe-server.js';
import { deliverStripeEvent, stripeEvent, type StripeTestEvent } from '../../../helpers/stripe-events.js';

/**
 * Stripe signs every event of the account, whoever made the checkout it is about: a payment link,
 * another integration, someone with the dashboard. A checkout.session.completed is fulfilled only
 * for a checkout this service made (operation 6), and only as it stored it: its player, product,
 * quantity and credits, never the event's metadata. Checkouts are made over the real route against
 * a loopback Stripe, paid there, and the events signed with the official SDK's test helper.
 */

const SECRET_KEY = 'sk_test_webhook_checkouts';
const WEBHOOK_SECRET = 'whsec_webhook_checkouts';
const urls = { successUrl: 'https://game.example/done', cancelUrl: 'https://game.example/cancel' };

let stripe: StripeServer;
let t: TestApp;
let log: CapturedLog;
let packPrice: string;
let packProduct: string;

beforeAll(async () => {
  stripe = await startStripeServer({ secretKey: SECRET_KEY });
  log = captureLog();
  t = await startTestApp({
    config: { stripeSecretKey: SECRET_KEY, stripeWebhookSecret: WEBHOOK_SECRET, stripeApiBase: stripe.url },
    log: log.log,
  });
  const staff = await createUser(t.db, ['plans.write']);
  packPrice = stripe.addPrice({ currency: 'usd', unitAmount: 499 }).id as string;
  const product = await t.request({
    method: 'POST',
    url: '/v1/admin/plans/products',
    token: staff.token,
    payload: { kind: 'credit_pack', name: 'Pack of 100', credits: 100 },
  });
  packProduct = product.json().id;
  const price = await t.request({
    method: 'POST',
    url: `/v1/admin/plans/products/${packProduct}/prices`,
    token: staff.token,
    payload: { providerPriceId: packPrice, currency: 'usd', unitAmount: 499 },
  });
  expect(price.statusCode, price.body).toBe(201);
});
afterAll(async () => {
  await t?.close();
  await stripe?.close();
});

/** One delivery, signed with the endpoint's secret at the moment it is sent. */
const deliver = (event: StripeTestEvent) => deliverStripeEvent(t, event, WEBHOOK_SECRET);

const ignoredLines = () =>
  log
    .lines()
    .map((line) => JSON.parse(line))
    .filter((line) => line.msg === 'payment event recorded, not acted on');

async function holdings(player: TestUser) {
  return {
    ledger: await t.db
      .selectFrom('credit_ledger')
      .select(['amount', 'kind'])
      .where('user_id', '=', player.id)
      .execute(),
    payments: await t.db
      .selectFrom('billing_payments')
      .select(['provider_payment_id', 'quantity', 'credits', 'amount'])
      .where('user_id', '=', player.id)
      .execute(),
  };
}

const webhookRow = (eventId: string) =>
  t.db
    .selectFrom('billing_webhook_events')
    .select(['type', 'ignored_reason'])
    .where('event_id', '=', eventId)
    .executeTakeFirst();

describe('checkout.session.completed', () => {
  it('a checkout this service never made, signed by Stripe with metadata naming a player and 1,000,000 credits: 200, nothing granted, recorded as ignored', async () => {
    const player = await createUser(t.db);
    const customer = stripe.addCustomer({ metadata: { user_id: player.id } }).id as string;
    // Another integration on the same Stripe account, with the official SDK.
    const elsewhere = new Stripe(SECRET_KEY, {
      host: new URL(stripe.url).hostname,
      port: Number(new URL(stripe.url).port),
      protocol: 'http',
      telemetry: false,
      maxNetworkRetries: 0,
    });
    const made = await elsewhere.checkout.sessions.create({
      mode: 'payment',
      customer,
      line_items: [{ price: packPrice, quantity: 99 }],
      success_url: 'https://elsewhere.example/ok',
      metadata: {
        user_id: player.id,
        product_id: packProduct,
        price_id: packPrice,
        quantity: '99',
        credits: '1000000',
      },
    });
    const event = stripeEvent('checkout.session.completed', stripe.completeCheckout(made.id));
    // Stripe retries until it gets a 2xx: the first delivery and a redelivery are both acknowledged.
    for (const answer of [await deliver(event), await deliver(event)]) {
      expect({ status: answer.statusCode, body: answer.json() }).toEqual({ status: 200, body: { received: true } });
    }
    expect(await holdings(player)).toEqual({ ledger: [], payments: [] });
    expect(
      await t.db
        .selectFrom('billing_checkout_sessions')
        .select('id')
        .where('provider_checkout_id', '=', made.id)
        .execute(),
    ).toEqual([]);
    expect(await webhookRow(event.id)).toEqual({
      type: 'checkout.completed',
      ignored_reason: 'a checkout this service did not make',
    });
    expect(ignoredLines()).toEqual([
      expect.objectContaining({
        event_id: event.id,
        object_id: made.id,
        reason: 'a checkout this service did not make',
      }),
    ]);
  });

  it("the player's own checkout, its metadata edited at Stripe (another player, 1,000,000 credits, 99 units): fulfilled as stored", async () => {
    const player = await createUser(t.db);
    const other = await createUser(t.db);
    const made = await t.request({
      method: 'POST',
      url: '/v1/me/billing/checkout-session',
      token: player.token,
      payload: { priceId: packPrice, quantity: 2, ...urls },
    });
    expect(made.statusCode, made.body).toBe(200);
    const session = stripe.completeCheckout(made.json().id);
    const edited = {
      ...session,
      metadata: { user_id: other.id, product_id: packProduct, price_id: packPrice, quantity: '99', credits: '1000000' },
    };
    const event = stripeEvent('checkout.session.completed', edited);
    expect((await deliver(event)).statusCode).toBe(200);
    expect(await holdings(player)).toEqual({
      ledger: [{ amount: 200, kind: 'purchase' }],
      payments: [{ provider_payment_id: session.payment_intent, quantity: 2, credits: 200, amount: 998 }],
    });
    expect(await holdings(other)).toEqual({ ledger: [], payments: [] });
    expect(await webhookRow(event.id)).toEqual({ type: 'checkout.completed', ignored_reason: null });
    expect(
      await t.db
        .selectFrom('billing_checkout_sessions')
        .select('status')
        .where('provider_checkout_id', '=', made.json().id)
        .executeTakeFirst(),
    ).toEqual({ status: 'completed' });
  });

  it('the credits are those of the pack when the checkout was made, whatever the catalog says later', async () => {
    const player = await createUser(t.db);
    const made = await t.request({
      method: 'POST',
      url: '/v1/me/billing/checkout-session',
      token: player.token,
      payload: { priceId: packPrice, ...urls },
    });
    expect(made.statusCode, made.body).toBe(200);
    await t.db.updateTable('billing_products').set({ credits: 5 }).where('id', '=', packProduct).execute();
    try {
      expect(
        (await deliver(stripeEvent('checkout.session.completed', stripe.completeCheckout(made.json().id)))).statusCode,
      ).toBe(200);
    } finally {
      await t.db.updateTable('billing_products').set({ credits: 100 }).where('id', '=', packProduct).execute();
    }
    expect((await holdings(player)).ledger).toEqual([{ amount: 100, kind: 'purchase' }]);
  });
});

describe('customer.subscription.created', () => {
  it('for a customer this service never made, its metadata naming a player: 200, no subscription, no tier, ignored', async () => {
    const staff = await createUser(t.db, ['plans.write']);
    const ruleset = await t.db
      .insertInto('plan_rulesets')
      .values({
        key: 'platinum-rules',
        name: 'Rules',
        description: null,
        limits: '{}',
        is_active: true,
        updated_by: null,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await t.db
      .insertInto('plan_tiers')
      .values({
        key: 'platinum',
        name: 'Platinum',
        rank: 3,
        ruleset_id: ruleset.id,
        description: null,
        updated_by: null,
      })
      .execute();
    const planPrice = stripe.addPrice({ currency: 'usd', unitAmount: 2999, interval: 'month' }).id as string;
    const asStaff = (url: string, payload: object) => t.request({ method: 'POST', url, token: staff.token, payload });
    const plan = await asStaff('/v1/admin/plans/products', {
      kind: 'plan',
      name: 'Platinum plan',
      tierKey: 'platinum',
    });
    const price = { providerPriceId: planPrice, currency: 'usd', unitAmount: 2999, interval: 'month' };
    expect((await asStaff(`/v1/admin/plans/products/${plan.json().id}/prices`, price)).statusCode).toBe(201);

    const player = await createUser(t.db);
    // Made at Stripe by another integration, for a customer this service never made.
    const customer = stripe.addCustomer({ metadata: { user_id: player.id } }).id as string;
    const subscription = stripe.addSubscription({
      customer,
      price: planPrice,
      metadata: { user_id: player.id, product_id: plan.json().id },
    });
    const event = stripeEvent('customer.subscription.created', subscription);
    expect((await deliver(event)).statusCode).toBe(200);
    expect(
      await t.db.selectFrom('billing_subscriptions').select('id').where('user_id', '=', player.id).execute(),
    ).toEqual([]);
    const billing = await t.request({ method: 'GET', url: '/v1/me/billing', token: player.token });
    expect(billing.json()).toMatchObject({ tier: null, subscription: null });
    expect(await webhookRow(event.id)).toEqual({ type: 'subscription.updated', ignored_reason: 'no known user' });
  });
});
