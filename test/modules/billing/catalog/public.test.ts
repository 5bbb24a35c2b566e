import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveCheckoutPrice, type CheckoutRefusal } from '../../../../src/modules/billing/catalog/queries.js';
import { checkoutRefusalError } from '../../../../src/modules/billing/catalog/service.js';
import { createUser, startTestApp, type TestApp, type TestUser } from '../../../helpers/app.js';

/**
 * What the catalog offers outside staff: the public list (`GET /v1/public/products`, a bare
 * array of what can be bought) and `resolveCheckoutPrice`, operation 6's choice of product and
 * price with its error table (404 `product`, 422 `price_mismatch`, 422 `product_has_no_price`).
 */

let t: TestApp;
let planner: TestUser;
const ids: Record<string, string> = {};
const priceIds: Record<string, string> = {};

async function product(key: string, payload: object) {
  const response = await t.request({ method: 'POST', url: '/v1/admin/plans/products', token: planner.token, payload });
  expect(response.statusCode).toBe(201);
  ids[key] = response.json().id;
}

async function price(key: string, productKey: string, payload: object) {
  const response = await t.request({
    method: 'POST',
    url: `/v1/admin/plans/products/${ids[productKey]}/prices`,
    token: planner.token,
    payload,
  });
  expect(response.statusCode).toBe(201);
  priceIds[key] = response.json().id;
}

const publicList = (headers: Record<string, string> = {}) =>
  t.request({ method: 'GET', url: '/v1/public/products', headers });

beforeAll(async () => {
  t = await startTestApp();
  planner = await createUser(t.db, ['plans.write']);
  const ruleset = await t.db
    .insertInto('plan_rulesets')
    .values({ key: 'public-rules', name: 'Rules', description: null, limits: '{}', is_active: true, updated_by: null })
    .returning('id')
    .executeTakeFirstOrThrow();
  await t.db
    .insertInto('plan_tiers')
    .values({ key: 'gold', name: 'Gold', rank: 2, ruleset_id: ruleset.id, description: null, updated_by: null })
    .execute();

  await product('goldPlan', {
    kind: 'plan',
    name: 'Gold plan',
    tierKey: 'gold',
    description: 'All games',
    metadata: { internal: 'note' },
  });
  await price('goldUsd', 'goldPlan', {
    providerPriceId: 'price_gold_usd',
    currency: 'usd',
    unitAmount: 999,
    interval: 'month',
  });
  await price('goldEur', 'goldPlan', {
    providerPriceId: 'price_gold_eur',
    currency: 'eur',
    unitAmount: 899,
    interval: 'month',
  });
  await price('goldOld', 'goldPlan', {
    providerPriceId: 'price_gold_usd_old',
    currency: 'usd',
    unitAmount: 799,
    interval: 'month',
    isActive: false,
  });
  await product('bigPack', { kind: 'credit_pack', name: 'Big pack', credits: 5000 });
  await price('bigUsd', 'bigPack', { providerPriceId: 'price_big_usd', currency: 'usd', unitAmount: 4999 });
  await product('smallPack', { kind: 'credit_pack', name: 'Small pack', credits: 100, sortOrder: -5 });
  await price('smallUsd', 'smallPack', { providerPriceId: 'price_small_usd', currency: 'usd', unitAmount: 99 });
  await product('silverPlan', { kind: 'plan', name: 'Silver plan', tierKey: 'gold', sortOrder: 9 });
  await price('silverYear', 'silverPlan', {
    providerPriceId: 'price_silver_year',
    currency: 'usd',
    unitAmount: 9900,
    interval: 'year',
  });
  // Not for sale: an inactive product with an active price, a product whose prices are all inactive, a product with none.
  await product('retired', { kind: 'credit_pack', name: 'Retired pack', credits: 1, isActive: false });
  await price('retiredUsd', 'retired', { providerPriceId: 'price_retired_usd', currency: 'usd', unitAmount: 1 });
  await product('unpriced', { kind: 'credit_pack', name: 'Unpriced pack', credits: 1 });
  await price('unpricedOld', 'unpriced', {
    providerPriceId: 'price_unpriced_old',
    currency: 'usd',
    unitAmount: 1,
    isActive: false,
  });
  await product('bare', { kind: 'plan', name: 'Bare plan', tierKey: 'gold' });
});
afterAll(async () => {
  await t.close();
});

describe('GET /v1/public/products', () => {
  it('answers a bare array of active products with active prices, by sortOrder then name, without a token', async () => {
    const response = await publicList();
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual([
      {
        id: ids.smallPack,
        kind: 'credit_pack',
        name: 'Small pack',
        description: null,
        credits: 100,
        tier: null,
        prices: [{ priceId: 'price_small_usd', currency: 'usd', unitAmount: 99, interval: null }],
      },
      {
        id: ids.bigPack,
        kind: 'credit_pack',
        name: 'Big pack',
        description: null,
        credits: 5000,
        tier: null,
        prices: [{ priceId: 'price_big_usd', currency: 'usd', unitAmount: 4999, interval: null }],
      },
      {
        id: ids.goldPlan,
        kind: 'plan',
        name: 'Gold plan',
        description: 'All games',
        credits: null,
        tier: { key: 'gold', name: 'Gold', rank: 2 },
        prices: [
          { priceId: 'price_gold_eur', currency: 'eur', unitAmount: 899, interval: 'month' },
          { priceId: 'price_gold_usd', currency: 'usd', unitAmount: 999, interval: 'month' },
        ],
      },
      {
        id: ids.silverPlan,
        kind: 'plan',
        name: 'Silver plan',
        description: null,
        credits: null,
        tier: { key: 'gold', name: 'Gold', rank: 2 },
        prices: [{ priceId: 'price_silver_year', currency: 'usd', unitAmount: 9900, interval: 'year' }],
      },
    ]);
  });

  it('carries an ETag: the same list revalidates to 304, any change to what it shows makes a new one', async () => {
    const first = await publicList();
    const etag = first.headers.etag as string;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{32}"$/);
    expect(first.headers['cache-control']).toBe('public, max-age=0, must-revalidate');

    const revalidated = await publicList({ 'if-none-match': etag });
    expect(revalidated.statusCode).toBe(304);
    expect(revalidated.body).toBe('');
    expect(revalidated.headers.etag).toBe(etag);

    // A tier rename shows in the list too (the ETag is computed from what is served).
    await t.db.updateTable('plan_tiers').set({ name: 'Golden' }).where('key', '=', 'gold').execute();
    const renamed = await publicList({ 'if-none-match': etag });
    expect(renamed.statusCode).toBe(200);
    expect(renamed.headers.etag).not.toBe(etag);
    expect(renamed.json()[2].tier).toEqual({ key: 'gold', name: 'Golden', rank: 2 });
    await t.db.updateTable('plan_tiers').set({ name: 'Gold' }).where('key', '=', 'gold').execute();
    expect((await publicList({ 'if-none-match': etag })).statusCode).toBe(304);
  });

  it('drops a product taken off sale and a price deactivated, at once', async () => {
    const off = await t.request({
      method: 'PATCH',
      url: `/v1/admin/plans/products/${ids.bigPack}`,
      token: planner.token,
      payload: { isActive: false },
    });
    expect(off.statusCode).toBe(200);
    const deactivated = await t.request({
      method: 'PATCH',
      url: `/v1/admin/plans/prices/${priceIds.goldEur}`,
      token: planner.token,
      payload: { isActive: false },
    });
    expect(deactivated.statusCode).toBe(200);
    const listed = (await publicList()).json() as Array<{ id: string; prices: Array<{ priceId: string }> }>;
    expect(listed.map((item) => item.id)).toEqual([ids.smallPack, ids.goldPlan, ids.silverPlan]);
    expect(listed[1]!.prices.map((item) => item.priceId)).toEqual(['price_gold_usd']);
    for (const [url, payload] of [
      [`/v1/admin/plans/products/${ids.bigPack}`, { isActive: true }],
      [`/v1/admin/plans/prices/${priceIds.goldEur}`, { isActive: true }],
    ] as const) {
      expect((await t.request({ method: 'PATCH', url, token: planner.token, payload })).statusCode).toBe(200);
    }
  });
});

describe('resolveCheckoutPrice (operation 6)', () => {
  const resolve = (request: { productId?: string; priceId?: string }) => resolveCheckoutPrice(t.db, request);

  it('sells a pack by productId alone: its one active price, paid once', async () => {
    expect(await resolve({ productId: ids.smallPack })).toEqual({
      ok: true,
      mode: 'payment',
      product: { id: ids.smallPack, kind: 'credit_pack', name: 'Small pack', credits: 100, tierKey: null },
      price: {
        id: priceIds.smallUsd,
        providerPriceId: 'price_small_usd',
        currency: 'usd',
        unitAmount: 99,
        interval: null,
      },
    });
  });

  it('sells a plan by priceId alone, or by both when they agree: a subscription', async () => {
    const expected = {
      ok: true,
      mode: 'subscription',
      product: { id: ids.goldPlan, kind: 'plan', name: 'Gold plan', credits: null, tierKey: 'gold' },
      price: {
        id: priceIds.goldEur,
        providerPriceId: 'price_gold_eur',
        currency: 'eur',
        unitAmount: 899,
        interval: 'month',
      },
    };
    expect(await resolve({ priceId: 'price_gold_eur' })).toEqual(expected);
    expect(await resolve({ productId: ids.goldPlan, priceId: 'price_gold_eur' })).toEqual(expected);
    expect(await resolve({ productId: ids.silverPlan })).toMatchObject({
      ok: true,
      mode: 'subscription',
      price: { providerPriceId: 'price_silver_year', interval: 'year' },
    });
  });

  it.each([
    { name: 'nothing named', request: () => ({}) },
    { name: 'an unknown productId', request: () => ({ productId: randomUUID() }) },
    { name: 'an unknown priceId', request: () => ({ priceId: 'price_nobody' }) },
    { name: 'an inactive product by id', request: () => ({ productId: ids.retired }) },
    { name: 'an active price of an inactive product', request: () => ({ priceId: 'price_retired_usd' }) },
    {
      name: 'an inactive product with its own active price',
      request: () => ({ productId: ids.retired, priceId: 'price_retired_usd' }),
    },
    { name: 'an inactive price alone', request: () => ({ priceId: 'price_gold_usd_old' }) },
    {
      name: 'an unknown product with a real price',
      request: () => ({ productId: randomUUID(), priceId: 'price_gold_usd' }),
    },
  ])('refuses $name as 404 product', async ({ request }) => {
    expect(await resolve(request())).toEqual({ ok: false, reason: 'product' });
  });

  it.each([
    { name: "another product's price", priceId: 'price_big_usd' },
    { name: 'an unknown price', priceId: 'price_nobody' },
    { name: 'its own retired price', priceId: 'price_gold_usd_old' },
  ])('refuses a product with $name as 422 price_mismatch', async ({ priceId }) => {
    expect(await resolve({ productId: ids.goldPlan, priceId })).toEqual({
      ok: false,
      reason: 'price_mismatch',
      productId: ids.goldPlan,
      priceId,
    });
  });

  it('refuses a product without an active price as 422 product_has_no_price, with or without a priceId', async () => {
    for (const key of ['unpriced', 'bare']) {
      expect(await resolve({ productId: ids[key] })).toEqual({
        ok: false,
        reason: 'product_has_no_price',
        productId: ids[key],
      });
    }
    expect(await resolve({ productId: ids.unpriced, priceId: 'price_unpriced_old' })).toEqual({
      ok: false,
      reason: 'product_has_no_price',
      productId: ids.unpriced,
    });
  });

  it('asks for a priceId when only productId is given and the product sells in several currencies', async () => {
    expect(await resolve({ productId: ids.goldPlan })).toEqual({
      ok: false,
      reason: 'price_required',
      productId: ids.goldPlan,
      priceIds: ['price_gold_eur', 'price_gold_usd'],
    });
  });

  it('runs inside a transaction too', async () => {
    const resolved = await t.db.transaction().execute((trx) => resolveCheckoutPrice(trx, { priceId: 'price_big_usd' }));
    expect(resolved).toMatchObject({ ok: true, product: { id: ids.bigPack, credits: 5000 } });
  });

  it("turns each refusal into the spec's error", () => {
    const productId = randomUUID();
    const cases: Array<[CheckoutRefusal, number, unknown]> = [
      [{ ok: false, reason: 'product' }, 404, { error: 'product' }],
      [
        { ok: false, reason: 'price_mismatch', productId, priceId: 'price_x' },
        422,
        { error: 'price_mismatch', details: { productId, priceId: 'price_x' } },
      ],
      [
        { ok: false, reason: 'product_has_no_price', productId },
        422,
        { error: 'product_has_no_price', details: { productId } },
      ],
      [
        { ok: false, reason: 'price_required', productId, priceIds: ['a', 'b'] },
        422,
        {
          error: 'invalid_request',
          details: {
            reason: 'the product has active prices in several currencies: pass priceId',
            productId,
            priceIds: ['a', 'b'],
          },
        },
      ],
    ];
    for (const [refusal, status, body] of cases) {
      const error = checkoutRefusalError(refusal);
      expect({ status: error.status, body: error.toBody() }).toEqual({ status, body });
    }
  });
});
