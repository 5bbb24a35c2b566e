import { randomUUID } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, startTestApp, type TestApp, type TestUser } from '../../../helpers/app.js';
import { auditOf, expectRefusedUnchanged, requestIdOf, schemaError } from '../../../helpers/expectations.js';
import { storedState } from '../../../helpers/stored-state.js';

/**
 * Billing products under the plans group: create, list, get and update, camelCase, with
 * `plans.read` / `plans.write`. Successes are checked in the table and the audit log; refusals
 * are checked to leave products, prices and the audit log untouched.
 */

const URL = '/v1/admin/plans/products';
const USER_AGENT = 'billing-catalog-test/1.0';

let t: TestApp;
let planner: TestUser;
let reader: TestUser;
let outsider: TestUser;

const productRow = (id: string) =>
  t.db.selectFrom('billing_products').selectAll().where('id', '=', id).executeTakeFirst();

/** What a refusal must leave as it was: products, prices, and the audit log's size. */
const catalogState = () => storedState(t.db, { billing_products: ['id'], billing_prices: ['id'] });

const create = (payload: unknown, user: TestUser | null = planner) =>
  t.request({
    method: 'POST',
    url: URL,
    token: user?.token,
    headers: { 'user-agent': USER_AGENT },
    payload: payload as object,
  });
const patch = (id: string, payload: unknown, user: TestUser | null = planner) =>
  t.request({
    method: 'PATCH',
    url: `${URL}/${id}`,
    token: user?.token,
    headers: { 'user-agent': USER_AGENT },
    payload: payload as object,
  });
const get = (id: string, user: TestUser | null = reader) =>
  t.request({ method: 'GET', url: `${URL}/${id}`, token: user?.token });
const list = (query = '', user: TestUser | null = reader) =>
  t.request({ method: 'GET', url: `${URL}${query}`, token: user?.token });

async function createdId(payload: unknown): Promise<string> {
  const response = await create(payload);
  expect(response.statusCode).toBe(201);
  return response.json().id;
}

function auditRow(response: LightMyRequestResponse, action: string, targetId: string, summary: unknown) {
  return {
    id: expect.any(String),
    created_at: expect.any(Date),
    actor_id: planner.id,
    action,
    target_type: 'billing_product',
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
  outsider = await createUser(t.db, ['billing.write', 'billing.read']);
  const ruleset = await t.db
    .insertInto('plan_rulesets')
    .values({ key: 'catalog-rules', name: 'Rules', description: null, limits: '{}', is_active: true, updated_by: null })
    .returning('id')
    .executeTakeFirstOrThrow();
  await t.db
    .insertInto('plan_tiers')
    .values([
      { key: 'gold', name: 'Gold', rank: 2, ruleset_id: ruleset.id, description: null, updated_by: null },
      { key: 'silver', name: 'Silver', rank: 1, ruleset_id: ruleset.id, description: null, updated_by: null },
    ])
    .execute();
});
afterAll(async () => {
  await t.close();
});

describe('POST /v1/admin/plans/products', () => {
  it('creates a credit pack, answers 201 { id } and audits it', async () => {
    const response = await create({
      kind: 'credit_pack',
      name: '500 credits',
      description: 'A handful',
      credits: 500,
      sortOrder: 3,
      metadata: { badge: 'popular' },
    });
    expect(response.statusCode).toBe(201);
    const { id } = response.json();
    expect(response.json()).toEqual({ id: expect.any(String) });
    expect(await productRow(id)).toEqual({
      id,
      kind: 'credit_pack',
      name: '500 credits',
      description: 'A handful',
      credits: 500,
      tier_key: null,
      is_active: true,
      sort_order: 3,
      metadata: { badge: 'popular' },
      created_by: planner.id,
      updated_by: planner.id,
      created_at: expect.any(Date),
      updated_at: expect.any(Date),
    });
    expect(await auditOf(t.db, requestIdOf(response))).toEqual([
      auditRow(response, 'plans.product.create', id, {
        after: {
          kind: 'credit_pack',
          name: '500 credits',
          description: 'A handful',
          credits: 500,
          tierKey: null,
          isActive: true,
          sortOrder: 3,
          metadata: { keys: ['badge'] },
        },
      }),
    ]);
  });

  it('creates a plan linked to its tier, with the defaults for omitted fields', async () => {
    const response = await create({ kind: 'plan', name: 'Gold monthly', tierKey: 'gold' });
    expect(response.statusCode).toBe(201);
    const { id } = response.json();
    expect(await productRow(id)).toMatchObject({
      kind: 'plan',
      name: 'Gold monthly',
      description: null,
      credits: null,
      tier_key: 'gold',
      is_active: true,
      sort_order: 0,
      metadata: {},
    });
    expect(await auditOf(t.db, requestIdOf(response))).toEqual([
      auditRow(response, 'plans.product.create', id, {
        after: {
          kind: 'plan',
          name: 'Gold monthly',
          description: null,
          credits: null,
          tierKey: 'gold',
          isActive: true,
          sortOrder: 0,
          metadata: { keys: [] },
        },
      }),
    ]);
  });

  it('keeps a long description whole in the row but cut in the audit row', async () => {
    const description = 'd'.repeat(500);
    const response = await create({ kind: 'credit_pack', name: 'Long', credits: 1, description, isActive: false });
    const { id } = response.json();
    expect(await productRow(id)).toMatchObject({ description, is_active: false });
    const [audit] = await auditOf(t.db, requestIdOf(response));
    expect((audit!.summary as { after: { description: string } }).after.description).toBe(`${'d'.repeat(200)}…`);
  });

  it('refuses an unknown tierKey with 422 invalid_request naming it', async () => {
    await expectRefusedUnchanged(catalogState, () => create({ kind: 'plan', name: 'Nope', tierKey: 'platinum' }), 422, {
      error: 'invalid_request',
      details: { reason: 'unknown tier', tierKey: 'platinum' },
    });
  });

  const pack = { kind: 'credit_pack', name: 'Pack', credits: 10 };
  const plan = { kind: 'plan', name: 'Plan', tierKey: 'gold' };
  it.each([
    {
      name: 'credits on a plan',
      body: { ...plan, credits: 10 },
      issue: { code: 'unrecognized_keys', keys: ['credits'] },
    },
    {
      name: 'tierKey on a credit pack',
      body: { ...pack, tierKey: 'gold' },
      issue: { code: 'unrecognized_keys', keys: ['tierKey'] },
    },
    {
      name: 'a pack without credits',
      body: { kind: 'credit_pack', name: 'Pack' },
      issue: { path: ['credits'], code: 'invalid_type' },
    },
    {
      name: 'a plan without tierKey',
      body: { kind: 'plan', name: 'Plan' },
      issue: { path: ['tierKey'], code: 'invalid_type' },
    },
    {
      name: 'an unknown kind',
      body: { ...pack, kind: 'bundle' },
      issue: { path: ['kind'], code: 'invalid_union' },
    },
    {
      name: 'no kind',
      body: { name: 'Pack', credits: 10 },
      issue: { path: ['kind'], code: 'invalid_union' },
    },
    { name: 'an empty name', body: { ...pack, name: '  ' }, issue: { path: ['name'], code: 'too_small', minimum: 1 } },
    {
      name: 'a 101-character name',
      body: { ...pack, name: 'n'.repeat(101) },
      issue: { path: ['name'], code: 'too_big', maximum: 100 },
    },
    {
      name: 'a 501-character description',
      body: { ...pack, description: 'd'.repeat(501) },
      issue: { path: ['description'], code: 'too_big', maximum: 500 },
    },
    {
      name: 'zero credits',
      body: { ...pack, credits: 0 },
      issue: { path: ['credits'], code: 'too_small', minimum: 1 },
    },
    {
      name: 'fractional credits',
      body: { ...pack, credits: 1.5 },
      issue: { path: ['credits'], code: 'invalid_type', expected: 'int' },
    },
    {
      name: 'credits past the cap',
      body: { ...pack, credits: 10_000_001 },
      issue: { path: ['credits'], code: 'too_big', maximum: 10_000_000 },
    },
    {
      name: 'sortOrder past 10000',
      body: { ...pack, sortOrder: 10_001 },
      issue: { path: ['sortOrder'], code: 'too_big' },
    },
    { name: 'an empty tierKey', body: { ...plan, tierKey: '' }, issue: { path: ['tierKey'], code: 'too_small' } },
    {
      name: 'metadata that is an array',
      body: { ...pack, metadata: [1] },
      issue: { path: ['metadata'], code: 'invalid_type' },
    },
    {
      name: 'oversized metadata',
      body: { ...pack, metadata: { blob: 'x'.repeat(16_000) } },
      issue: { path: ['metadata'], code: 'custom' },
    },
    {
      name: 'snake_case sort_order',
      body: { ...pack, sort_order: 1 },
      issue: { code: 'unrecognized_keys', keys: ['sort_order'] },
    },
  ])('refuses $name with 400 SchemaError, storing nothing', async ({ body, issue }) => {
    await expectRefusedUnchanged(catalogState, () => create(body), 400, schemaError(issue));
  });

  it('accepts every field at its bound', async () => {
    const id = await createdId({
      kind: 'credit_pack',
      name: 'n'.repeat(100),
      credits: 10_000_000,
      sortOrder: -10_000,
      description: '',
    });
    expect(await productRow(id)).toMatchObject({
      name: 'n'.repeat(100),
      credits: 10_000_000,
      sort_order: -10_000,
      description: '',
    });
  });

  it('needs plans.write (401 without a token, 403 naming it otherwise)', async () => {
    await expectRefusedUnchanged(catalogState, () => create(pack, null), 401, { error: 'missing_token' });
    await expectRefusedUnchanged(catalogState, () => create(pack, reader), 403, {
      error: 'forbidden',
      details: { perm: 'plans.write' },
    });
    await expectRefusedUnchanged(catalogState, () => create(pack, outsider), 403, {
      error: 'forbidden',
      details: { perm: 'plans.write' },
    });
  });
});

describe('PATCH /v1/admin/plans/products/{id}', () => {
  let packId: string;
  let planId: string;

  beforeAll(async () => {
    packId = await createdId({
      kind: 'credit_pack',
      name: 'Editable pack',
      credits: 100,
      description: 'Before',
      metadata: { a: 1, b: { c: 2 } },
    });
    planId = await createdId({ kind: 'plan', name: 'Editable plan', tierKey: 'silver' });
  });

  it('changes the given fields, answers the product and audits only what changed', async () => {
    const before = (await productRow(packId))!;
    const response = await patch(packId, { name: 'Renamed pack', credits: 120, description: 'Before', sortOrder: 7 });
    expect(response.statusCode).toBe(200);
    const row = (await productRow(packId))!;
    expect(row).toEqual({ ...before, name: 'Renamed pack', credits: 120, sort_order: 7, updated_at: expect.any(Date) });
    expect(row.updated_at.getTime()).toBeGreaterThanOrEqual(before.updated_at.getTime());
    expect(response.json()).toEqual({
      id: packId,
      kind: 'credit_pack',
      name: 'Renamed pack',
      description: 'Before',
      credits: 120,
      tierKey: null,
      isActive: true,
      sortOrder: 7,
      metadata: { a: 1, b: { c: 2 } },
      prices: [],
      updatedBy: planner.id,
      createdAt: before.created_at.toISOString(),
      updatedAt: row.updated_at.toISOString(),
    });
    expect(await auditOf(t.db, requestIdOf(response))).toEqual([
      auditRow(response, 'plans.product.update', packId, {
        kind: 'credit_pack',
        before: { name: 'Editable pack', credits: 100, sortOrder: 0 },
        after: { name: 'Renamed pack', credits: 120, sortOrder: 7 },
      }),
    ]);
  });

  it('clears the description with null, replaces metadata whole, and takes a product off sale', async () => {
    const response = await patch(packId, { description: null, metadata: { z: true }, isActive: false });
    expect(response.statusCode).toBe(200);
    expect(await productRow(packId)).toMatchObject({ description: null, metadata: { z: true }, is_active: false });
    expect((await auditOf(t.db, requestIdOf(response)))[0]!.summary).toEqual({
      kind: 'credit_pack',
      before: { description: 'Before', metadata: { keys: ['a', 'b'] }, isActive: true },
      after: { description: null, metadata: { keys: ['z'] }, isActive: false },
    });
  });

  it('moves a plan to another tier', async () => {
    const response = await patch(planId, { tierKey: 'gold' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ tierKey: 'gold', kind: 'plan' });
    expect(await productRow(planId)).toMatchObject({ tier_key: 'gold' });
    expect((await auditOf(t.db, requestIdOf(response)))[0]!.summary).toEqual({
      kind: 'plan',
      before: { tierKey: 'silver' },
      after: { tierKey: 'gold' },
    });
  });

  it('writes and audits nothing when nothing changes (metadata compared by content)', async () => {
    await patch(packId, { metadata: { a: 1, b: { c: 2, d: [1, 2] } } });
    const before = await catalogState();
    const response = await patch(packId, { name: 'Renamed pack', metadata: { b: { d: [1, 2], c: 2 }, a: 1 } });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ id: packId, name: 'Renamed pack' });
    expect(await catalogState()).toEqual(before);
  });

  it('404s an unknown product', async () => {
    await expectRefusedUnchanged(catalogState, () => patch(randomUUID(), { name: 'Ghost' }), 404, {
      error: 'not_found',
    });
  });

  it('refuses a field of the other kind, or an unknown tier, with 422 invalid_request', async () => {
    await expectRefusedUnchanged(catalogState, () => patch(planId, { credits: 5 }), 422, {
      error: 'invalid_request',
      details: { reason: 'credits apply to credit packs only', kind: 'plan' },
    });
    await expectRefusedUnchanged(catalogState, () => patch(packId, { tierKey: 'gold' }), 422, {
      error: 'invalid_request',
      details: { reason: 'tierKey applies to plans only', kind: 'credit_pack' },
    });
    await expectRefusedUnchanged(catalogState, () => patch(planId, { name: 'Changed', tierKey: 'platinum' }), 422, {
      error: 'invalid_request',
      details: { reason: 'unknown tier', tierKey: 'platinum' },
    });
  });

  it.each([
    {
      name: 'a kind change',
      body: { kind: 'plan' },
      issue: { path: ['kind'], message: 'kind is immutable after creation' },
    },
    {
      name: 'an empty body',
      body: {},
      issue: { code: 'custom', message: expect.stringContaining('provide at least one of') },
    },
    { name: 'null credits', body: { credits: null }, issue: { path: ['credits'], code: 'invalid_type' } },
    { name: 'null tierKey', body: { tierKey: null }, issue: { path: ['tierKey'], code: 'invalid_type' } },
    { name: 'null name', body: { name: null }, issue: { path: ['name'], code: 'invalid_type' } },
    { name: 'an unknown field', body: { name: 'x', price: 5 }, issue: { code: 'unrecognized_keys', keys: ['price'] } },
  ])('refuses $name with 400 SchemaError', async ({ body, issue }) => {
    await expectRefusedUnchanged(catalogState, () => patch(packId, body), 400, schemaError(issue));
  });

  it('400s a malformed id', async () => {
    await expectRefusedUnchanged(catalogState, () => patch('nope', { name: 'x' }), 400, schemaError({ path: ['id'] }));
  });

  it('needs plans.write', async () => {
    await expectRefusedUnchanged(catalogState, () => patch(packId, { name: 'x' }, null), 401, {
      error: 'missing_token',
    });
    await expectRefusedUnchanged(catalogState, () => patch(packId, { name: 'x' }, reader), 403, {
      error: 'forbidden',
      details: { perm: 'plans.write' },
    });
  });
});

describe('GET /v1/admin/plans/products and /{id}', () => {
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    await t.db.deleteFrom('billing_products').execute();
    ids.b = await createdId({ kind: 'credit_pack', name: 'B pack', credits: 10, sortOrder: 1 });
    ids.a = await createdId({ kind: 'credit_pack', name: 'A pack', credits: 20, sortOrder: 1, isActive: false });
    ids.plan = await createdId({ kind: 'plan', name: 'Z plan', tierKey: 'gold', sortOrder: -1 });
    ids.last = await createdId({ kind: 'credit_pack', name: 'C pack', credits: 30, sortOrder: 5 });
    const price = (id: string, providerPriceId: string, currency: string, interval: string | null, isActive = true) =>
      t.request({
        method: 'POST',
        url: `${URL}/${id}/prices`,
        token: planner.token,
        payload: { providerPriceId, currency, unitAmount: 999, interval, isActive },
      });
    for (const response of [
      await price(ids.plan!, 'price_plan_usd_old', 'usd', 'month', false),
      await price(ids.plan!, 'price_plan_usd', 'usd', 'month'),
      await price(ids.plan!, 'price_plan_eur', 'eur', 'year'),
      await price(ids.b!, 'price_b_usd', 'usd', null),
    ])
      expect(response.statusCode).toBe(201);
  });

  it('lists every product by sortOrder then name, each with all its prices (active first, by currency)', async () => {
    const response = await list();
    expect(response.statusCode).toBe(200);
    const data = response.json().data as Array<{ id: string; prices: Array<{ providerPriceId: string }> }>;
    expect(data.map((product) => product.id)).toEqual([ids.plan, ids.a, ids.b, ids.last]);
    expect(data[0]!.prices.map((price) => price.providerPriceId)).toEqual([
      'price_plan_eur',
      'price_plan_usd',
      'price_plan_usd_old',
    ]);
    expect(data[1]!.prices).toEqual([]);
  });

  it('filters by kind and isActive', async () => {
    const ofList = async (query: string) =>
      ((await list(query)).json().data as Array<{ id: string }>).map((product) => product.id);
    expect(await ofList('?kind=plan')).toEqual([ids.plan]);
    expect(await ofList('?kind=credit_pack&isActive=true')).toEqual([ids.b, ids.last]);
    expect(await ofList('?isActive=false')).toEqual([ids.a]);
  });

  it('shows one product with its prices, in camelCase', async () => {
    const response = await get(ids.plan!);
    expect(response.statusCode).toBe(200);
    const row = (await productRow(ids.plan!))!;
    const price = await t.db
      .selectFrom('billing_prices')
      .selectAll()
      .where('provider_price_id', '=', 'price_plan_eur')
      .executeTakeFirstOrThrow();
    expect(response.json()).toEqual({
      id: ids.plan,
      kind: 'plan',
      name: 'Z plan',
      description: null,
      credits: null,
      tierKey: 'gold',
      isActive: true,
      sortOrder: -1,
      metadata: {},
      updatedBy: planner.id,
      createdAt: row.created_at.toISOString(),
      updatedAt: row.updated_at.toISOString(),
      prices: [
        {
          id: price.id,
          productId: ids.plan,
          providerPriceId: 'price_plan_eur',
          currency: 'eur',
          unitAmount: 999,
          interval: 'year',
          isActive: true,
          createdAt: price.created_at.toISOString(),
          updatedAt: price.updated_at.toISOString(),
        },
        expect.objectContaining({ providerPriceId: 'price_plan_usd', isActive: true }),
        expect.objectContaining({ providerPriceId: 'price_plan_usd_old', isActive: false }),
      ],
    });
  });

  it('404s an unknown product, 400s a malformed id or filter', async () => {
    const unknown = await get(randomUUID());
    expect({ status: unknown.statusCode, body: unknown.json() }).toEqual({ status: 404, body: { error: 'not_found' } });
    const malformed = await get('nope');
    expect({ status: malformed.statusCode, body: malformed.json() }).toEqual({
      status: 400,
      body: schemaError({ path: ['id'] }),
    });
    const badKind = await list('?kind=bundle');
    expect({ status: badKind.statusCode, body: badKind.json() }).toEqual({
      status: 400,
      body: schemaError({ path: ['kind'] }),
    });
  });

  it('needs plans.read (401 without a token, 403 naming it otherwise)', async () => {
    for (const send of [() => list('', null), () => get(ids.b!, null)]) {
      const response = await send();
      expect({ status: response.statusCode, body: response.json() }).toEqual({
        status: 401,
        body: { error: 'missing_token' },
      });
    }
    for (const send of [() => list('', planner), () => get(ids.b!, outsider)]) {
      const response = await send();
      expect({ status: response.statusCode, body: response.json() }).toEqual({
        status: 403,
        body: { error: 'forbidden', details: { perm: 'plans.read' } },
      });
    }
  });
});

describe('the database keeps a product consistent whatever writes it', () => {
  it('refuses a plan with credits, a pack with a tier, and either without its own field', async () => {
    const insert = (values: { kind: 'plan' | 'credit_pack'; credits: number | null; tier_key: string | null }) =>
      t.db
        .insertInto('billing_products')
        .values({ ...values, name: 'Raw', description: null, created_by: null, updated_by: null })
        .execute();
    await expect(insert({ kind: 'plan', credits: 5, tier_key: 'gold' })).rejects.toMatchObject({
      code: '23514',
      constraint: 'billing_products_kind_fields',
    });
    await expect(insert({ kind: 'credit_pack', credits: 5, tier_key: 'gold' })).rejects.toMatchObject({
      code: '23514',
    });
    await expect(insert({ kind: 'plan', credits: null, tier_key: null })).rejects.toMatchObject({ code: '23514' });
    await expect(insert({ kind: 'credit_pack', credits: null, tier_key: null })).rejects.toMatchObject({
      code: '23514',
    });
  });

  it('keeps a tier that a product sells from being deleted', async () => {
    await createdId({ kind: 'plan', name: 'Silver plan', tierKey: 'silver' });
    await expect(t.db.deleteFrom('plan_tiers').where('key', '=', 'silver').execute()).rejects.toMatchObject({
      code: '23503',
    });
  });
});
