import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, startTestApp, type TestApp, type TestUser } from '../../../helpers/app.js';
import { schemaError } from '../../../helpers/expectations.js';

/**
 * GET /v1/admin/billing/deep-link/{type}/{id}: our id in, the provider's dashboard page out. On
 * the local provider with records a real plan purchase made; on Stripe (its dashboard URL needs
 * no call to Stripe) with records as its webhooks would have stored them. A record of the other
 * provider than the configured one is refused, never linked.
 */

const TYPES = ['customer', 'subscription', 'invoice', 'payment'] as const;
type LinkType = (typeof TYPES)[number];
type Records = Record<LinkType, { id: string; providerId: string }>;

const link = (app: TestApp, type: string, id: string, user: TestUser | null) =>
  app.request({ method: 'GET', url: `/v1/admin/billing/deep-link/${type}/${id}`, token: user?.token });

async function expectAnswer(response: Awaited<ReturnType<typeof link>>, status: number, body: unknown) {
  expect({ status: response.statusCode, body: response.json() }).toEqual({ status, body });
}

/** One record of each type for a new player, as the given provider's events store them. */
async function storedRecords(app: TestApp, provider: 'local' | 'stripe', suffix: string): Promise<Records> {
  const player = await createUser(app.db);
  const at = new Date().toISOString();
  await app.db
    .insertInto('billing_customers')
    .values({ user_id: player.id, provider, provider_customer_id: `cus_${suffix}` })
    .execute();
  const subscription = await app.db
    .insertInto('billing_subscriptions')
    .values({ user_id: player.id, provider, provider_subscription_id: `sub_${suffix}`, status: 'active' })
    .returning('id')
    .executeTakeFirstOrThrow();
  const invoice = await app.db
    .insertInto('billing_invoices')
    .values({
      user_id: player.id,
      provider,
      provider_invoice_id: `in_${suffix}`,
      status: 'paid',
      amount_due: 999,
      amount_paid: 999,
      currency: 'usd',
      created_at: at,
      last_event_at: at,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const payment = await app.db
    .insertInto('billing_payments')
    .values({
      user_id: player.id,
      provider,
      provider_payment_id: `pi_${suffix}`,
      kind: 'subscription',
      product_id: null,
      amount: 999,
      currency: 'usd',
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return {
    customer: { id: player.id, providerId: `cus_${suffix}` },
    subscription: { id: subscription.id, providerId: `sub_${suffix}` },
    invoice: { id: invoice.id, providerId: `in_${suffix}` },
    payment: { id: payment.id, providerId: `pi_${suffix}` },
  };
}

describe('GET /v1/admin/billing/deep-link/{type}/{id} (local provider)', () => {
  let t: TestApp;
  let reader: TestUser;
  let writerOnly: TestUser;
  let player: TestUser;
  let bought: Records;
  let fromStripe: Records;

  /** A player who subscribed to a monthly plan on the local checkout page: customer, subscription, invoice and payment. */
  async function boughtPlan(): Promise<Records> {
    const planner = await createUser(t.db, ['plans.write']);
    const ruleset = await t.db
      .insertInto('plan_rulesets')
      .values({ key: 'links', name: 'Rules', description: null, limits: '{}', is_active: true, updated_by: null })
      .returning('id')
      .executeTakeFirstOrThrow();
    await t.db
      .insertInto('plan_tiers')
      .values({ key: 'gold', name: 'Gold', rank: 1, ruleset_id: ruleset.id, description: null, updated_by: null })
      .execute();
    const product = await t.request({
      method: 'POST',
      url: '/v1/admin/plans/products',
      token: planner.token,
      payload: { kind: 'plan', name: 'Gold', tierKey: 'gold' },
    });
    const price = await t.request({
      method: 'POST',
      url: `/v1/admin/plans/products/${product.json().id}/prices`,
      token: planner.token,
      payload: { providerPriceId: 'price_link_gold', currency: 'usd', unitAmount: 999, interval: 'month' },
    });
    expect(price.statusCode, price.body).toBe(201);
    const checkout = await t.request({
      method: 'POST',
      url: '/v1/me/billing/checkout-session',
      token: player.token,
      payload: {
        priceId: 'price_link_gold',
        successUrl: 'https://game.example/ok',
        cancelUrl: 'https://game.example/no',
      },
    });
    expect(checkout.statusCode, checkout.body).toBe(200);
    const paid = await t.request({
      method: 'POST',
      url: `/v1/public/billing/local/checkout/${checkout.json().id}/pay`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: '',
    });
    expect(paid.statusCode).toBe(303);
    const customer = await t.db
      .selectFrom('billing_customers')
      .selectAll()
      .where('user_id', '=', player.id)
      .executeTakeFirstOrThrow();
    const subscription = await t.db
      .selectFrom('billing_subscriptions')
      .selectAll()
      .where('user_id', '=', player.id)
      .executeTakeFirstOrThrow();
    const invoice = await t.db
      .selectFrom('billing_invoices')
      .selectAll()
      .where('user_id', '=', player.id)
      .executeTakeFirstOrThrow();
    const payment = await t.db
      .selectFrom('billing_payments')
      .selectAll()
      .where('user_id', '=', player.id)
      .executeTakeFirstOrThrow();
    return {
      customer: { id: player.id, providerId: customer.provider_customer_id },
      subscription: { id: subscription.id, providerId: subscription.provider_subscription_id },
      invoice: { id: invoice.id, providerId: invoice.provider_invoice_id },
      payment: { id: payment.id, providerId: payment.provider_payment_id },
    };
  }

  beforeAll(async () => {
    t = await startTestApp();
    reader = await createUser(t.db, ['billing.read']);
    writerOnly = await createUser(t.db, ['billing.write']);
    player = await createUser(t.db);
    bought = await boughtPlan();
    fromStripe = await storedRecords(t, 'stripe', 'before_switch');
  });
  afterAll(async () => {
    await t.close();
  });

  it.each(TYPES)("200 %s: our id → the local provider's page of it, on the public base URL", async (type) => {
    const { id, providerId } = bought[type];
    expect(providerId).toMatch(/^[a-z]+_local_/);
    const response = await link(t, type, id, reader);
    await expectAnswer(response, 200, {
      type,
      id,
      provider: 'local',
      provider_id: providerId,
      url: t.kernel.payments.dashboardUrl(type, providerId),
    });
    expect(response.json().url).toMatch(new RegExp(`^http://platform\\.test/.*/${type}/${providerId}$`));
  });

  it.each(TYPES)("the %s link leads to the local provider's record of it", async (type) => {
    const { pathname } = new URL((await link(t, type, bought[type].id, reader)).json().url);
    const page = await t.request({ method: 'GET', url: pathname, token: reader.token });
    expect(page.statusCode, page.body).toBe(200);
    expect(page.json()).toMatchObject({ provider: 'local', type, id: bought[type].providerId });
  });

  it.each(TYPES)('404 not_found: an unknown %s id, or the id of another type', async (type) => {
    await expectAnswer(await link(t, type, randomUUID(), reader), 404, { error: 'not_found' });
    const other = type === 'payment' ? bought.invoice.id : bought.payment.id;
    await expectAnswer(await link(t, type, other, reader), 404, { error: 'not_found' });
  });

  it('404 not_found: a user who never went to checkout has no customer', async () => {
    await expectAnswer(await link(t, 'customer', reader.id, reader), 404, { error: 'not_found' });
  });

  it.each(TYPES)(
    '422 invalid_state for a record (%s) made under Stripe before the deployment moved to local',
    async (type) => {
      await expectAnswer(await link(t, type, fromStripe[type].id, reader), 422, {
        error: 'invalid_state',
        details: {
          reason: `this ${type} belongs to another payment provider than the one configured`,
          provider: 'stripe',
          configured_provider: 'local',
        },
      });
    },
  );

  it.each([
    ['type', 'refund', () => bought.payment.id],
    ['id', 'payment', () => 'pi_local_123'],
    ['id', 'customer', () => '42'],
  ])('400 SchemaError on a bad %s (%s)', async (field, type, id) => {
    const response = await link(t, type, id(), reader);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual(schemaError({ path: [field] }));
  });

  it('401 without a token, 403 without billing.read', async () => {
    await expectAnswer(await link(t, 'payment', bought.payment.id, null), 401, { error: 'missing_token' });
    await expectAnswer(await link(t, 'payment', bought.payment.id, writerOnly), 403, {
      error: 'forbidden',
      details: { perm: 'billing.read' },
    });
    await expectAnswer(await link(t, 'customer', player.id, player), 403, {
      error: 'forbidden',
      details: { perm: 'billing.read' },
    });
  });
});

describe('GET /v1/admin/billing/deep-link/{type}/{id} (Stripe)', () => {
  let s: TestApp;
  let reader: TestUser;
  let records: Records;
  let fromLocal: Records;

  beforeAll(async () => {
    // A closed port: building a dashboard link must not call Stripe at all.
    s = await startTestApp({
      config: {
        stripeSecretKey: 'sk_test_deeplink',
        stripeWebhookSecret: 'whsec_deeplink',
        stripeApiBase: 'http://127.0.0.1:9',
      },
    });
    reader = await createUser(s.db, ['billing.read']);
    records = await storedRecords(s, 'stripe', 'stripe1');
    fromLocal = await storedRecords(s, 'local', 'local_made');
  });
  afterAll(async () => {
    await s.close();
  });

  it.each([
    ['customer', 'customers'],
    ['subscription', 'subscriptions'],
    ['invoice', 'invoices'],
    ['payment', 'payments'],
  ] as const)("200 %s: Stripe's test-mode dashboard page", async (type, segment) => {
    const { id, providerId } = records[type];
    await expectAnswer(await link(s, type, id, reader), 200, {
      type,
      id,
      provider: 'stripe',
      provider_id: providerId,
      url: `https://dashboard.stripe.com/test/${segment}/${providerId}`,
    });
  });

  it.each(TYPES)(
    '422 invalid_state for a record (%s) made with the local provider before the switch to Stripe',
    async (type) => {
      await expectAnswer(await link(s, type, fromLocal[type].id, reader), 422, {
        error: 'invalid_state',
        details: {
          reason: `this ${type} belongs to another payment provider than the one configured`,
          provider: 'local',
          configured_provider: 'stripe',
        },
      });
    },
  );
});
