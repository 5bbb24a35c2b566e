import { randomUUID } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, startTestApp, type TestApp, type TestUser } from '../../../helpers/app.js';
import { auditOf, expectRefusedUnchanged, requestIdOf, schemaError } from '../../../helpers/expectations.js';
import { storedState } from '../../../helpers/stored-state.js';

/**
 * Billing prices: added to a product (POST …/products/{id}/prices), activated or deactivated
 * (PATCH …/prices/{id}), never edited nor deleted. At most one active price per product and
 * currency. Refusals leave products, prices and the audit log untouched.
 */

const PRODUCTS = '/v1/admin/plans/products';
const USER_AGENT = 'billing-prices-test/1.0';
type Db = TestApp['db'];

let t: TestApp;
let planner: TestUser;
let reader: TestUser;
let packId: string;
let planId: string;

const priceRow = (id: string) => t.db.selectFrom('billing_prices').selectAll().where('id', '=', id).executeTakeFirst();
const pricesOf = (productId: string) =>
  t.db.selectFrom('billing_prices').selectAll().where('product_id', '=', productId).orderBy('created_at').execute();

/** What a refusal must leave as it was: products, prices, and the audit log's size. */
const catalogState = () => storedState(t.db, { billing_products: ['id'], billing_prices: ['id'] });

const addPrice = (productId: string, payload: unknown, user: TestUser | null = planner, app: TestApp = t) =>
  app.request({
    method: 'POST',
    url: `${PRODUCTS}/${productId}/prices`,
    token: user?.token,
    headers: { 'user-agent': USER_AGENT },
    payload: payload as object,
  });
const patchPrice = (id: string, payload: unknown, user: TestUser | null = planner) =>
  t.request({
    method: 'PATCH',
    url: `/v1/admin/plans/prices/${id}`,
    token: user?.token,
    headers: { 'user-agent': USER_AGENT },
    payload: payload as object,
  });

async function createProduct(app: TestApp, payload: object, user: TestUser = planner): Promise<string> {
  const response = await app.request({ method: 'POST', url: PRODUCTS, token: user.token, payload });
  expect(response.statusCode).toBe(201);
  return response.json().id;
}

async function seedTier(db: Db) {
  const ruleset = await db
    .insertInto('plan_rulesets')
    .values({ key: 'price-rules', name: 'Rules', description: null, limits: '{}', is_active: true, updated_by: null })
    .returning('id')
    .executeTakeFirstOrThrow();
  await db
    .insertInto('plan_tiers')
    .values({ key: 'gold', name: 'Gold', rank: 2, ruleset_id: ruleset.id, description: null, updated_by: null })
    .execute();
}

function auditRow(response: LightMyRequestResponse, action: string, targetId: string, summary: unknown) {
  return {
    id: expect.any(String),
    created_at: expect.any(Date),
    actor_id: planner.id,
    action,
    target_type: 'billing_price',
    target_id: targetId,
    request_id: requestIdOf(response),
    ip: '127.0.0.1',
    user_agent: USER_AGENT,
    reason: null,
    summary,
  };
}

beforeAll(async () => {
  t = await startTestApp();
  planner = await createUser(t.db, ['plans.write']);
  reader = await createUser(t.db, ['plans.read']);
  await seedTier(t.db);
  packId = await createProduct(t, { kind: 'credit_pack', name: 'Pack', credits: 100 });
  planId = await createProduct(t, { kind: 'plan', name: 'Plan', tierKey: 'gold' });
});
afterAll(async () => {
  await t.close();
});

describe('POST /v1/admin/plans/products/{id}/prices', () => {
  it('adds a one-off price to a pack with the given provider id, answers 201 and audits it', async () => {
    const response = await addPrice(packId, { providerPriceId: 'price_pack_USD_1', currency: 'USD', unitAmount: 499 });
    expect(response.statusCode).toBe(201);
    const { id } = response.json();
    expect(response.json()).toEqual({ id: expect.any(String), providerPriceId: 'price_pack_USD_1' });
    expect(await priceRow(id)).toEqual({
      id,
      product_id: packId,
      product_kind: 'credit_pack',
      provider_price_id: 'price_pack_USD_1',
      currency: 'usd',
      unit_amount: 499,
      interval: null,
      is_active: true,
      created_by: planner.id,
      updated_by: planner.id,
      created_at: expect.any(Date),
      updated_at: expect.any(Date),
    });
    expect(await auditOf(t.db, requestIdOf(response))).toEqual([
      auditRow(response, 'plans.price.create', id, {
        productId: packId,
        generated: false,
        after: {
          productId: packId,
          providerPriceId: 'price_pack_USD_1',
          currency: 'usd',
          unitAmount: 499,
          interval: null,
          isActive: true,
        },
      }),
    ]);
  });

  it('makes a local provider id when none is given, and takes a plan price with its interval', async () => {
    const response = await addPrice(planId, { currency: 'eur', unitAmount: 999, interval: 'month' });
    expect(response.statusCode).toBe(201);
    const { id, providerPriceId } = response.json();
    expect(providerPriceId).toMatch(/^local_price_[0-9a-f]{24}$/);
    expect(await priceRow(id)).toMatchObject({
      product_kind: 'plan',
      provider_price_id: providerPriceId,
      currency: 'eur',
      unit_amount: 999,
      interval: 'month',
      is_active: true,
    });
    expect((await auditOf(t.db, requestIdOf(response)))[0]!.summary).toMatchObject({
      generated: true,
      after: { providerPriceId, interval: 'month' },
    });
  });

  it('allows a free price, the largest amount, another currency, and an inactive second price in a taken currency', async () => {
    for (const [payload, stored] of [
      [
        { currency: 'gbp', unitAmount: 0 },
        { currency: 'gbp', unit_amount: 0, is_active: true },
      ],
      [
        { currency: 'jpy', unitAmount: 999_999_999_999 },
        { currency: 'jpy', unit_amount: 999_999_999_999, is_active: true },
      ],
      [
        { currency: 'usd', unitAmount: 599, isActive: false },
        { currency: 'usd', unit_amount: 599, is_active: false },
      ],
    ] as const) {
      const response = await addPrice(packId, payload);
      expect(response.statusCode).toBe(201);
      expect(await priceRow(response.json().id)).toMatchObject(stored);
    }
    expect(
      (await pricesOf(packId)).filter((price) => price.currency === 'usd').map((price) => price.is_active),
    ).toEqual([true, false]);
  });

  it('refuses a second active price in a currency with 409 conflict naming the active one', async () => {
    const [active] = (await pricesOf(packId)).filter((price) => price.currency === 'usd' && price.is_active);
    await expectRefusedUnchanged(catalogState, () => addPrice(packId, { currency: 'usd', unitAmount: 450 }), 409, {
      error: 'conflict',
      details: {
        reason: 'the product already has an active price in this currency; deactivate it first',
        currency: 'usd',
        activePriceId: active!.id,
      },
    });
  });

  it('refuses a providerPriceId already used, on this product or another, with 409 conflict', async () => {
    const taken = {
      error: 'conflict',
      details: { reason: 'providerPriceId is taken', providerPriceId: 'price_pack_USD_1' },
    };
    await expectRefusedUnchanged(
      catalogState,
      () => addPrice(packId, { providerPriceId: 'price_pack_USD_1', currency: 'chf', unitAmount: 1 }),
      409,
      taken,
    );
    await expectRefusedUnchanged(
      catalogState,
      () => addPrice(planId, { providerPriceId: 'price_pack_USD_1', currency: 'chf', unitAmount: 1, interval: 'year' }),
      409,
      taken,
    );
  });

  it('refuses an interval that does not suit the product with 422 invalid_request', async () => {
    await expectRefusedUnchanged(catalogState, () => addPrice(planId, { currency: 'chf', unitAmount: 100 }), 422, {
      error: 'invalid_request',
      details: { reason: 'a plan price needs an interval (month or year)', kind: 'plan' },
    });
    await expectRefusedUnchanged(
      catalogState,
      () => addPrice(planId, { currency: 'chf', unitAmount: 100, interval: null }),
      422,
      {
        error: 'invalid_request',
        details: { reason: 'a plan price needs an interval (month or year)', kind: 'plan' },
      },
    );
    await expectRefusedUnchanged(
      catalogState,
      () => addPrice(packId, { currency: 'chf', unitAmount: 100, interval: 'month' }),
      422,
      {
        error: 'invalid_request',
        details: { reason: 'a credit pack price is paid once and has no interval', kind: 'credit_pack' },
      },
    );
  });

  it('404s an unknown product and 400s a malformed id', async () => {
    await expectRefusedUnchanged(catalogState, () => addPrice(randomUUID(), { currency: 'usd', unitAmount: 1 }), 404, {
      error: 'not_found',
    });
    await expectRefusedUnchanged(
      catalogState,
      () => addPrice('nope', { currency: 'usd', unitAmount: 1 }),
      400,
      schemaError({ path: ['id'] }),
    );
  });

  const valid = { currency: 'chf', unitAmount: 100 };
  it.each([
    {
      name: 'a four-letter currency',
      body: { ...valid, currency: 'usdd' },
      issue: { path: ['currency'], code: 'invalid_format' },
    },
    {
      name: 'a currency with digits',
      body: { ...valid, currency: 'us1' },
      issue: { path: ['currency'], code: 'invalid_format' },
    },
    { name: 'no currency', body: { unitAmount: 100 }, issue: { path: ['currency'], code: 'invalid_type' } },
    {
      name: 'a negative amount',
      body: { ...valid, unitAmount: -1 },
      issue: { path: ['unitAmount'], code: 'too_small', minimum: 0 },
    },
    {
      name: 'a fractional amount',
      body: { ...valid, unitAmount: 9.99 },
      issue: { path: ['unitAmount'], code: 'invalid_type', expected: 'int' },
    },
    {
      name: 'an amount past the cap',
      body: { ...valid, unitAmount: 1_000_000_000_000 },
      issue: { path: ['unitAmount'], code: 'too_big' },
    },
    {
      name: 'an amount as a string',
      body: { ...valid, unitAmount: '100' },
      issue: { path: ['unitAmount'], code: 'invalid_type' },
    },
    {
      name: 'an empty providerPriceId',
      body: { ...valid, providerPriceId: '' },
      issue: { path: ['providerPriceId'], code: 'invalid_format' },
    },
    {
      name: 'a providerPriceId with a space',
      body: { ...valid, providerPriceId: 'price 1' },
      issue: { path: ['providerPriceId'], code: 'invalid_format' },
    },
    {
      name: 'a 256-character providerPriceId',
      body: { ...valid, providerPriceId: 'p'.repeat(256) },
      issue: { path: ['providerPriceId'], code: 'invalid_format' },
    },
    {
      name: 'a weekly interval',
      body: { ...valid, interval: 'week' },
      issue: { path: ['interval'], code: 'invalid_value' },
    },
    {
      name: 'a snake_case field',
      body: { ...valid, unit_amount: 100 },
      issue: { code: 'unrecognized_keys', keys: ['unit_amount'] },
    },
  ])('refuses $name with 400 SchemaError, storing nothing', async ({ body, issue }) => {
    await expectRefusedUnchanged(catalogState, () => addPrice(packId, body), 400, schemaError(issue));
  });

  it('needs plans.write (401 without a token, 403 naming it otherwise)', async () => {
    await expectRefusedUnchanged(catalogState, () => addPrice(packId, valid, null), 401, { error: 'missing_token' });
    await expectRefusedUnchanged(catalogState, () => addPrice(packId, valid, reader), 403, {
      error: 'forbidden',
      details: { perm: 'plans.write' },
    });
  });

  it('lets exactly one of many concurrent active prices in one currency in (the rest 409)', async () => {
    const productId = await createProduct(t, { kind: 'credit_pack', name: 'Raced', credits: 5 });
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        addPrice(productId, { providerPriceId: `price_race_${i}`, currency: 'usd', unitAmount: 100 + i }),
      ),
    );
    expect(responses.map((response) => response.statusCode).sort()).toEqual([201, ...Array(19).fill(409)]);
    for (const response of responses.filter((r) => r.statusCode === 409)) {
      expect(response.json()).toMatchObject({ error: 'conflict', details: { currency: 'usd' } });
      expect(await auditOf(t.db, requestIdOf(response))).toEqual([]);
    }
    const stored = await pricesOf(productId);
    expect(stored).toHaveLength(1);
    expect(stored[0]!.id).toBe(responses.find((r) => r.statusCode === 201)!.json().id);
  });
});

describe('POST …/prices with the Stripe provider', () => {
  let stripe: TestApp;
  let stripePlanner: TestUser;
  let stripePack: string;

  beforeAll(async () => {
    stripe = await startTestApp({
      config: { stripeSecretKey: 'sk_test_catalog', stripeWebhookSecret: 'whsec_catalog' },
    });
    stripePlanner = await createUser(stripe.db, ['plans.write']);
    stripePack = await createProduct(stripe, { kind: 'credit_pack', name: 'Stripe pack', credits: 10 }, stripePlanner);
  });
  afterAll(async () => {
    await stripe.close();
  });

  it("needs the provider's price id (422 invalid_request without it, nothing stored)", async () => {
    const response = await addPrice(stripePack, { currency: 'usd', unitAmount: 100 }, stripePlanner, stripe);
    expect({ status: response.statusCode, body: response.json() }).toEqual({
      status: 422,
      body: {
        error: 'invalid_request',
        details: {
          reason: 'providerPriceId is required: create the price at the payment provider first',
          provider: 'stripe',
        },
      },
    });
    expect(await stripe.db.selectFrom('billing_prices').selectAll().execute()).toEqual([]);
    expect(await auditOf(stripe.db, requestIdOf(response))).toEqual([]);
  });

  it('stores the given provider id as is', async () => {
    const response = await addPrice(
      stripePack,
      { providerPriceId: 'price_1PqRsTuVwXyZ', currency: 'usd', unitAmount: 100 },
      stripePlanner,
      stripe,
    );
    expect(response.statusCode).toBe(201);
    expect(response.json()).toEqual({ id: expect.any(String), providerPriceId: 'price_1PqRsTuVwXyZ' });
    expect(await stripe.db.selectFrom('billing_prices').select('provider_price_id').execute()).toEqual([
      { provider_price_id: 'price_1PqRsTuVwXyZ' },
    ]);
  });
});

describe('PATCH /v1/admin/plans/prices/{id}', () => {
  let productId: string;
  let firstId: string;
  let secondId: string;

  beforeAll(async () => {
    productId = await createProduct(t, { kind: 'plan', name: 'Switching plan', tierKey: 'gold' });
    firstId = (
      await addPrice(productId, {
        providerPriceId: 'price_switch_1',
        currency: 'usd',
        unitAmount: 1000,
        interval: 'month',
      })
    ).json().id;
    secondId = (
      await addPrice(productId, {
        providerPriceId: 'price_switch_2',
        currency: 'usd',
        unitAmount: 1200,
        interval: 'month',
        isActive: false,
      })
    ).json().id;
  });

  it('refuses to activate a second price in the currency with 409 conflict', async () => {
    await expectRefusedUnchanged(catalogState, () => patchPrice(secondId, { isActive: true }), 409, {
      error: 'conflict',
      details: {
        reason: 'the product already has an active price in this currency; deactivate it first',
        currency: 'usd',
        activePriceId: firstId,
      },
    });
  });

  it('deactivates a price (kept, never deleted), answers it and audits the change', async () => {
    const before = (await priceRow(firstId))!;
    const response = await patchPrice(firstId, { isActive: false });
    expect(response.statusCode).toBe(200);
    const row = (await priceRow(firstId))!;
    expect(row).toEqual({ ...before, is_active: false, updated_at: expect.any(Date) });
    expect(response.json()).toEqual({
      id: firstId,
      productId,
      providerPriceId: 'price_switch_1',
      currency: 'usd',
      unitAmount: 1000,
      interval: 'month',
      isActive: false,
      createdAt: before.created_at.toISOString(),
      updatedAt: row.updated_at.toISOString(),
    });
    expect(await auditOf(t.db, requestIdOf(response))).toEqual([
      auditRow(response, 'plans.price.update', firstId, {
        productId,
        providerPriceId: 'price_switch_1',
        currency: 'usd',
        before: { isActive: true },
        after: { isActive: false },
      }),
    ]);
  });

  it('then activates the replacement', async () => {
    const response = await patchPrice(secondId, { isActive: true });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ id: secondId, isActive: true, unitAmount: 1200 });
    expect((await pricesOf(productId)).map((price) => [price.provider_price_id, price.is_active])).toEqual([
      ['price_switch_1', false],
      ['price_switch_2', true],
    ]);
    expect(await auditOf(t.db, requestIdOf(response))).toEqual([
      expect.objectContaining({ action: 'plans.price.update', target_id: secondId }),
    ]);
  });

  it('writes and audits nothing when the price already has that state', async () => {
    const before = await catalogState();
    const response = await patchPrice(secondId, { isActive: true });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ id: secondId, isActive: true });
    expect(await catalogState()).toEqual(before);
  });

  it('404s an unknown price', async () => {
    await expectRefusedUnchanged(catalogState, () => patchPrice(randomUUID(), { isActive: false }), 404, {
      error: 'not_found',
    });
  });

  const fixed = "a price's terms are immutable; create a new price and deactivate this one";
  it.each([
    {
      name: 'an amount change',
      body: { isActive: true, unitAmount: 1 },
      issue: { path: ['unitAmount'], message: fixed },
    },
    {
      name: 'a currency change',
      body: { isActive: true, currency: 'eur' },
      issue: { path: ['currency'], message: fixed },
    },
    {
      name: 'an interval change',
      body: { isActive: true, interval: 'year' },
      issue: { path: ['interval'], message: fixed },
    },
    {
      name: 'a provider id change',
      body: { isActive: true, providerPriceId: 'x' },
      issue: { path: ['providerPriceId'], message: fixed },
    },
    { name: 'no isActive', body: {}, issue: { path: ['isActive'], code: 'invalid_type' } },
  ])('refuses $name with 400 SchemaError', async ({ body, issue }) => {
    await expectRefusedUnchanged(catalogState, () => patchPrice(secondId, body), 400, schemaError(issue));
  });

  it('needs plans.write', async () => {
    await expectRefusedUnchanged(catalogState, () => patchPrice(secondId, { isActive: false }, null), 401, {
      error: 'missing_token',
    });
    await expectRefusedUnchanged(catalogState, () => patchPrice(secondId, { isActive: false }, reader), 403, {
      error: 'forbidden',
      details: { perm: 'plans.write' },
    });
  });
});

describe('the database keeps prices honest whatever writes them', () => {
  it('refuses to change what a stored price charges, but lets it be deactivated', async () => {
    const [price] = await pricesOf(packId);
    for (const change of [{ unit_amount: 1 }, { currency: 'eur' }, { provider_price_id: 'price_other' }] as const) {
      await expect(
        sql`UPDATE billing_prices SET ${sql.raw(Object.keys(change)[0]!)} = ${Object.values(change)[0]} WHERE id = ${price!.id}`.execute(
          t.db,
        ),
      ).rejects.toMatchObject({ code: '23001' });
    }
    await sql`UPDATE billing_prices SET is_active = false WHERE id = ${price!.id}`.execute(t.db);
    expect(await priceRow(price!.id)).toMatchObject({ is_active: false, unit_amount: price!.unit_amount });
  });

  it("refuses a recurring pack price, a one-off plan price, a kind that is not the product's, and deleting a product with prices", async () => {
    const insert = (values: { product_id: string; product_kind: 'plan' | 'credit_pack'; interval: 'month' | null }) =>
      t.db
        .insertInto('billing_prices')
        .values({
          ...values,
          provider_price_id: `raw_${randomUUID()}`,
          currency: 'sek',
          unit_amount: 1,
          is_active: false,
          created_by: null,
          updated_by: null,
        })
        .execute();
    await expect(insert({ product_id: packId, product_kind: 'credit_pack', interval: 'month' })).rejects.toMatchObject({
      code: '23514',
    });
    await expect(insert({ product_id: planId, product_kind: 'plan', interval: null })).rejects.toMatchObject({
      code: '23514',
    });
    await expect(insert({ product_id: packId, product_kind: 'plan', interval: 'month' })).rejects.toMatchObject({
      code: '23503',
    });
    await expect(t.db.deleteFrom('billing_products').where('id', '=', packId).execute()).rejects.toMatchObject({
      code: '23503',
    });
  });
});
