import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalPaymentProvider } from '../../../../src/adapters/payments/local.js';
import { createUser, startTestApp, type TestApp, type TestUser } from '../../../helpers/app.js';
import { startStripeServer, stripeError, type StripeServer } from '../../../helpers/stripe-server.js';

/**
 * Operation 6, `POST /v1/me/billing/checkout-session`, on the local provider (the embedded
 * default) and on Stripe (the SDK against a loopback Stripe): every documented status and code,
 * with what is stored (customers, checkout sessions) checked each time.
 */

let t: TestApp;
let planner: TestUser;
let operator: TestUser;
const products: Record<string, string> = {};

async function seedCatalog(app: TestApp, staff: TestUser, prices: { pack: string; plan: string; euro: string }) {
  const ruleset = await app.db
    .insertInto('plan_rulesets')
    .values({
      key: `r-${randomUUID().slice(0, 8)}`,
      name: 'Rules',
      description: null,
      limits: '{}',
      is_active: true,
      updated_by: null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  await app.db
    .insertInto('plan_tiers')
    .values({ key: 'gold', name: 'Gold', rank: 2, ruleset_id: ruleset.id, description: null, updated_by: null })
    .execute();
  const made: Record<string, string> = {};
  const product = async (key: string, payload: object) => {
    const response = await app.request({
      method: 'POST',
      url: '/v1/admin/plans/products',
      token: staff.token,
      payload,
    });
    expect(response.statusCode, response.body).toBe(201);
    made[key] = response.json().id;
  };
  const price = async (productKey: string, payload: object) => {
    const response = await app.request({
      method: 'POST',
      url: `/v1/admin/plans/products/${made[productKey]}/prices`,
      token: staff.token,
      payload,
    });
    expect(response.statusCode, response.body).toBe(201);
  };
  await product('pack', { kind: 'credit_pack', name: 'Pack of 100', credits: 100 });
  await price('pack', { providerPriceId: prices.pack, currency: 'usd', unitAmount: 499 });
  await price('pack', { providerPriceId: prices.euro, currency: 'eur', unitAmount: 450 });
  await product('plan', { kind: 'plan', name: 'Gold plan', tierKey: 'gold' });
  await price('plan', { providerPriceId: prices.plan, currency: 'usd', unitAmount: 999, interval: 'month' });
  await product('unpriced', { kind: 'credit_pack', name: 'Unpriced', credits: 5 });
  return made;
}

const checkout = (app: TestApp, user: TestUser | null, payload: unknown) =>
  app.request({
    method: 'POST',
    url: '/v1/me/billing/checkout-session',
    ...(user ? { token: user.token } : {}),
    payload: payload as object,
  });

const urls = { successUrl: 'https://game.example/billing/done', cancelUrl: 'https://game.example/billing' };

/** The 400 SchemaError naming one field. */
const schemaErrorAt = (field: string) => ({
  success: false,
  error: { name: 'SchemaError', issues: [expect.objectContaining({ path: [field] })] },
});

async function storedFor(app: TestApp, userId: string) {
  const customers = await app.db.selectFrom('billing_customers').selectAll().where('user_id', '=', userId).execute();
  const sessions = await app.db
    .selectFrom('billing_checkout_sessions')
    .selectAll()
    .where('user_id', '=', userId)
    .execute();
  return { customers, sessions };
}

beforeAll(async () => {
  t = await startTestApp();
  planner = await createUser(t.db, ['plans.write']);
  operator = await createUser(t.db, ['ops.panic']);
  Object.assign(
    products,
    await seedCatalog(t, planner, { pack: 'price_pack_usd', plan: 'price_plan_usd', euro: 'price_pack_eur' }),
  );
});
afterAll(async () => {
  await t.close();
});

describe('POST /v1/me/billing/checkout-session (local provider)', () => {
  it('200 for a pack with a quantity: a local checkout URL, the customer made and stored, the checkout recorded with its metadata', async () => {
    const player = await createUser(t.db);
    const response = await checkout(t, player, { priceId: 'price_pack_usd', quantity: 3, ...urls });
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json();
    expect(Object.keys(body).sort()).toEqual(['id', 'url']);
    expect(body.url).toBe(`http://platform.test/v1/public/billing/local/checkout/${body.id}`);
    const stored = await storedFor(t, player.id);
    expect(stored.customers).toMatchObject([{ provider: 'local' }]);
    expect(stored.sessions).toMatchObject([
      {
        provider: 'local',
        provider_checkout_id: body.id,
        product_id: products.pack,
        mode: 'payment',
        quantity: 3,
        status: 'open',
        ...{ success_url: urls.successUrl, cancel_url: urls.cancelUrl },
      },
    ]);
    const provider = t.kernel.payments as LocalPaymentProvider;
    const made = provider.checkout(body.id)!;
    expect(made).toMatchObject({
      customerId: stored.customers[0]!.provider_customer_id,
      quantity: 3,
      amountTotal: 3 * 499,
      currency: 'usd',
      providerPriceId: 'price_pack_usd',
    });
    expect(made.metadata).toEqual({
      user_id: player.id,
      product_id: products.pack,
      price_id: 'price_pack_usd',
      quantity: '3',
      credits: '100',
    });
  });

  it('a double-click answers the same checkout; a later different checkout reuses the customer', async () => {
    const player = await createUser(t.db);
    const payload = { productId: products.plan, ...urls };
    const [first, second] = await Promise.all([checkout(t, player, payload), checkout(t, player, payload)]);
    expect(first.statusCode, first.body).toBe(200);
    expect(second.json()).toEqual(first.json());
    const other = await checkout(t, player, { priceId: 'price_pack_eur', quantity: 2, ...urls });
    expect(other.statusCode).toBe(200);
    expect(other.json().id).not.toBe(first.json().id);
    const stored = await storedFor(t, player.id);
    expect(stored.customers).toHaveLength(1);
    expect(stored.sessions.map((s) => s.provider_checkout_id).sort()).toEqual(
      [first.json().id, other.json().id].sort(),
    );
    const provider = t.kernel.payments as LocalPaymentProvider;
    expect(provider.checkout(other.json().id)!.customerId).toBe(stored.customers[0]!.provider_customer_id);
    expect(provider.checkout(first.json().id)).toMatchObject({ mode: 'subscription', quantity: 1 });
  });

  it('both productId and priceId that agree: 200', async () => {
    const player = await createUser(t.db);
    const response = await checkout(t, player, { productId: products.pack, priceId: 'price_pack_eur', ...urls });
    expect(response.statusCode, response.body).toBe(200);
    expect((t.kernel.payments as LocalPaymentProvider).checkout(response.json().id)).toMatchObject({
      currency: 'eur',
      quantity: 1,
    });
  });

  const refusals: Array<[string, () => object, number, object]> = [
    ['neither productId nor priceId', () => ({ ...urls }), 400, { success: false, error: { name: 'SchemaError' } }],
    [
      'a quantity over 99',
      () => ({ priceId: 'price_pack_usd', quantity: 100, ...urls }),
      400,
      { success: false, error: { name: 'SchemaError' } },
    ],
    [
      'a successUrl that is no URI',
      () => ({ priceId: 'price_pack_usd', successUrl: 'not a url', cancelUrl: urls.cancelUrl }),
      400,
      { success: false, error: { name: 'SchemaError' } },
    ],
    ['an unknown product', () => ({ productId: randomUUID(), ...urls }), 404, { error: 'product' }],
    ['an unknown price', () => ({ priceId: 'price_nope', ...urls }), 404, { error: 'product' }],
    [
      'a price of another product',
      () => ({ productId: products.pack, priceId: 'price_plan_usd', ...urls }),
      422,
      { error: 'price_mismatch' },
    ],
    [
      'a product without an active price',
      () => ({ productId: products.unpriced, ...urls }),
      422,
      { error: 'product_has_no_price' },
    ],
    [
      'a plan with quantity 2',
      () => ({ productId: products.plan, quantity: 2, ...urls }),
      422,
      { error: 'invalid_request', details: { field: 'quantity' } },
    ],
    [
      'a product priced in several currencies without priceId',
      () => ({ productId: products.pack, ...urls }),
      422,
      { error: 'invalid_request' },
    ],
    [
      'a non-http successUrl',
      () => ({ priceId: 'price_pack_usd', successUrl: 'javascript:alert(1)', cancelUrl: urls.cancelUrl }),
      400,
      schemaErrorAt('successUrl'),
    ],
    [
      'a non-http cancelUrl',
      () => ({ priceId: 'price_pack_usd', successUrl: urls.successUrl, cancelUrl: 'ftp://game.example/x' }),
      400,
      schemaErrorAt('cancelUrl'),
    ],
    // The URL parser drops CR and LF: the URL passed zod's own check and broke the pay page's Location header.
    [
      'CR/LF in successUrl',
      () => ({
        priceId: 'price_pack_usd',
        successUrl: 'https://game.example/\r\nSet-Cookie: a=b',
        cancelUrl: urls.cancelUrl,
      }),
      400,
      schemaErrorAt('successUrl'),
    ],
    [
      'U+2028 in cancelUrl',
      () => ({ priceId: 'price_pack_usd', successUrl: urls.successUrl, cancelUrl: 'https://game.example/\u2028x' }),
      400,
      schemaErrorAt('cancelUrl'),
    ],
  ];

  it.each(refusals)(
    '%s: refused, nothing stored, nothing asked of the provider',
    async (_name, payload, status, body) => {
      const player = await createUser(t.db);
      const response = await checkout(t, player, payload());
      expect(response.statusCode, response.body).toBe(status);
      expect(response.json()).toMatchObject(body);
      expect(await storedFor(t, player.id)).toEqual({ customers: [], sessions: [] });
    },
  );

  it('401 without a token', async () => {
    const response = await checkout(t, null, { priceId: 'price_pack_usd', ...urls });
    expect(response.statusCode).toBe(401);
  });

  it.each(['degraded', 'lockdown'] as const)('503 panic_mode at %s, nothing stored', async (level) => {
    const player = await createUser(t.db);
    const set = await t.request({
      method: 'POST',
      url: '/v1/admin/ops/panic',
      token: operator.token,
      payload: { level, reason: `billing test ${level}` },
    });
    expect(set.statusCode, set.body).toBe(200);
    try {
      const response = await checkout(t, player, { priceId: 'price_pack_usd', ...urls });
      expect(response.statusCode).toBe(503);
      expect(response.json()).toEqual({ error: 'panic_mode', level, reason: `billing test ${level}` });
      expect(await storedFor(t, player.id)).toEqual({ customers: [], sessions: [] });
    } finally {
      const off = await t.request({
        method: 'POST',
        url: '/v1/admin/ops/panic',
        token: operator.token,
        payload: { level: 'off', reason: 'billing test over' },
      });
      expect(off.statusCode).toBe(200);
    }
    expect((await checkout(t, player, { priceId: 'price_pack_usd', ...urls })).statusCode).toBe(200);
  });
});

describe('allowed origins', () => {
  let limited: TestApp;
  beforeAll(async () => {
    limited = await startTestApp({ config: { checkoutAllowedOrigins: ['https://game.example'] } });
    const staff = await createUser(limited.db, ['plans.write']);
    await seedCatalog(limited, staff, { pack: 'price_pack_usd', plan: 'price_plan_usd', euro: 'price_pack_eur' });
  });
  afterAll(async () => {
    await limited.close();
  });

  it('a URL on another origin → 422 invalid_request, nothing stored; on the allowed origin → 200', async () => {
    const player = await createUser(limited.db);
    const refused = await checkout(limited, player, {
      priceId: 'price_pack_usd',
      successUrl: 'https://evil.example/done',
      cancelUrl: urls.cancelUrl,
    });
    expect(refused.statusCode).toBe(422);
    expect(refused.json()).toMatchObject({ error: 'invalid_request', details: { field: 'successUrl' } });
    const refusedCancel = await checkout(limited, player, {
      priceId: 'price_pack_usd',
      successUrl: urls.successUrl,
      cancelUrl: 'http://game.example/x',
    });
    expect(refusedCancel.json()).toMatchObject({ error: 'invalid_request', details: { field: 'cancelUrl' } });
    expect(await storedFor(limited, player.id)).toEqual({ customers: [], sessions: [] });
    expect((await checkout(limited, player, { priceId: 'price_pack_usd', ...urls })).statusCode).toBe(200);
  });
});

describe('on Stripe', () => {
  let stripe: StripeServer;
  let s: TestApp;
  const secretKey = 'sk_test_billingcheckout';
  beforeAll(async () => {
    stripe = await startStripeServer({ secretKey });
    s = await startTestApp({
      config: { stripeSecretKey: secretKey, stripeWebhookSecret: 'whsec_billingcheckout', stripeApiBase: stripe.url },
    });
    const staff = await createUser(s.db, ['plans.write']);
    const pack = stripe.addPrice({ currency: 'usd', unitAmount: 499 });
    const euro = stripe.addPrice({ currency: 'eur', unitAmount: 450 });
    const plan = stripe.addPrice({ currency: 'usd', unitAmount: 999, interval: 'month' });
    await seedCatalog(s, staff, { pack: pack.id as string, plan: plan.id as string, euro: euro.id as string });
    products.stripePack = pack.id as string;
  });
  afterAll(async () => {
    await s.close();
    await stripe.close();
  });

  it('200: Stripe gets the customer once, the checkout with metadata and an idempotency key; a double-click sends the same key', async () => {
    const player = await createUser(s.db);
    const payload = { priceId: products.stripePack, quantity: 2, ...urls };
    const first = await checkout(s, player, payload);
    expect(first.statusCode, first.body).toBe(200);
    const again = await checkout(s, player, payload);
    expect(again.json()).toEqual(first.json());
    const creates = stripe.requests.filter((r) => r.method === 'POST' && r.path === '/v1/checkout/sessions');
    expect(creates).toHaveLength(2);
    expect(creates[0]!.idempotencyKey).toBe(creates[1]!.idempotencyKey);
    expect(creates[0]!.form).toMatchObject({
      'metadata[user_id]': player.id,
      'metadata[quantity]': '2',
      'metadata[price_id]': products.stripePack,
    });
    expect(stripe.requests.filter((r) => r.path === '/v1/customers' && r.method === 'POST')).toHaveLength(1);
    expect((await storedFor(s, player.id)).sessions).toHaveLength(1);
  });

  it('the provider refuses → 422 invalid_request with its code; unreachable → 503 unavailable; no checkout stored', async () => {
    const player = await createUser(s.db);
    stripe.behave({
      kind: 'answer',
      status: 400,
      body: stripeError('invalid_request_error', 'No such price', { code: 'resource_missing' }),
    });
    try {
      const refused = await checkout(s, player, { priceId: products.stripePack, ...urls });
      expect(refused.statusCode, refused.body).toBe(422);
      expect(refused.json()).toMatchObject({
        error: 'invalid_request',
        details: { provider_code: 'resource_missing' },
      });
      stripe.behave({ kind: 'answer', status: 500, body: stripeError('api_error', 'boom') });
      const down = await checkout(s, player, { priceId: products.stripePack, ...urls });
      expect(down.statusCode, down.body).toBe(503);
      expect(down.json()).toMatchObject({ error: 'unavailable' });
      expect(down.body).not.toContain(secretKey);
    } finally {
      stripe.behave({ kind: 'normal' });
    }
    expect((await storedFor(s, player.id)).sessions).toEqual([]);
  });
});
