import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, startTestApp, type TestApp, type TestUser } from '../../../helpers/app.js';
import { schemaError } from '../../../helpers/expectations.js';

/** Staff lists of payments and invoices: paged with total, every filter alone and combined, players by email. */

let t: TestApp;
let reader: TestUser;
let writerOnly: TestUser;
let alice: TestUser;
let bob: TestUser;
let productId: string;
const ids: Record<string, string> = {};

const at = (day: number) => new Date(Date.UTC(2026, 0, day, 12)).toISOString();

beforeAll(async () => {
  t = await startTestApp();
  reader = await createUser(t.db, ['billing.read']);
  writerOnly = await createUser(t.db, ['billing.write']);
  alice = await createUser(t.db);
  bob = await createUser(t.db);
  const catalog = await createUser(t.db, ['plans.write']);
  const product = await t.request({
    method: 'POST',
    url: '/v1/admin/plans/products',
    token: catalog.token,
    payload: { kind: 'credit_pack', name: 'Pack', credits: 10 },
  });
  productId = product.json().id;
  const payments = [
    ['a1', alice.id, 'credit_pack', productId, 500, 'succeeded', 1],
    ['a2', alice.id, 'subscription', null, 900, 'refunded', 5],
    ['b1', bob.id, 'credit_pack', productId, 300, 'partially_refunded', 10],
    ['b2', bob.id, 'credit_pack', null, 700, 'succeeded', 20],
  ] as const;
  for (const [key, userId, kind, product_id, amount, status, day] of payments) {
    const row = await t.db
      .insertInto('billing_payments')
      .values({
        user_id: userId,
        provider: 'local',
        provider_payment_id: `pi_list_${key}`,
        kind,
        product_id,
        amount,
        currency: 'usd',
        status,
        amount_refunded: status === 'refunded' ? amount : status === 'partially_refunded' ? 100 : 0,
        created_at: at(day),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    ids[key] = row.id;
  }
  const invoices = [
    ['i1', alice.id, 'paid', 900, 2],
    ['i2', alice.id, 'open', 900, 8],
    ['i3', bob.id, 'paid', 1900, 15],
  ] as const;
  for (const [key, userId, status, amount, day] of invoices) {
    const row = await t.db
      .insertInto('billing_invoices')
      .values({
        user_id: userId,
        provider: 'local',
        provider_invoice_id: `in_list_${key}`,
        status,
        amount_due: amount,
        amount_paid: status === 'paid' ? amount : 0,
        currency: 'usd',
        created_at: at(day),
        last_event_at: at(day),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    ids[key] = row.id;
  }
});
afterAll(async () => {
  await t.close();
});

const get = (url: string, user: TestUser | null = reader) => t.request({ method: 'GET', url, token: user?.token });
const idsOf = (body: { data: { id: string }[] }) => body.data.map((row) => row.id);

describe('GET /v1/admin/billing/payments', () => {
  it('pages newest first with total, amounts as numbers', async () => {
    const first = await get('/v1/admin/billing/payments?per_page=3');
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json().meta).toEqual({ page: 1, per_page: 3, total: 4 });
    expect(idsOf(first.json())).toEqual([ids.b2, ids.b1, ids.a2]);
    expect(first.json().data[1]).toMatchObject({
      id: ids.b1,
      user_id: bob.id,
      kind: 'credit_pack',
      product_id: productId,
      amount: 300,
      amount_refunded: 100,
      currency: 'usd',
      status: 'partially_refunded',
      created_at: at(10),
    });
    const second = await get('/v1/admin/billing/payments?per_page=3&page=2');
    expect(second.json()).toMatchObject({ meta: { page: 2, per_page: 3, total: 4 } });
    expect(idsOf(second.json())).toEqual([ids.a1]);
    expect(idsOf((await get('/v1/admin/billing/payments?sort=amount:asc')).json())).toEqual([
      ids.b1,
      ids.a1,
      ids.b2,
      ids.a2,
    ]);
  });

  it('finds a payment by its id, the provider id or part of the email, each matched literally', async () => {
    const find = async (q: string) => {
      const response = await get(`/v1/admin/billing/payments?q=${encodeURIComponent(q)}`);
      expect(response.statusCode, q).toBe(200);
      return idsOf(response.json());
    };
    expect(await find(ids.b1 ?? '')).toEqual([ids.b1]);
    expect(await find((ids.b1 ?? '').toUpperCase())).toEqual([ids.b1]);
    expect(await find('pi_list_a2')).toEqual([ids.a2]);
    // Part of a provider id is not a match: only the whole id is.
    expect(await find('pi_list_')).toEqual([]);
    const alicesEmail = (
      await t.db.selectFrom('users').select('email').where('id', '=', alice.id).executeTakeFirstOrThrow()
    ).email as string;
    expect(await find(alicesEmail.slice(0, -3))).toEqual([ids.a2, ids.a1]);
    // LIKE's wildcards match themselves.
    expect(await find('%')).toEqual([]);
    // With the other filters: alice's refunded payment only.
    const both = await get(`/v1/admin/billing/payments?q=${encodeURIComponent(alicesEmail)}&status=refunded`);
    expect(idsOf(both.json())).toEqual([ids.a2]);
  });

  it("names each payment's player by email (null for a player without one)", async () => {
    const noEmail = await createUser(t.db);
    await t.db.updateTable('users').set({ email: null }).where('id', '=', noEmail.id).execute();
    const row = await t.db
      .insertInto('billing_payments')
      .values({
        user_id: noEmail.id,
        provider: 'local',
        provider_payment_id: 'pi_list_no_email',
        kind: 'credit_pack',
        amount: 100,
        currency: 'usd',
        status: 'succeeded',
        amount_refunded: 0,
        created_at: at(3),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    try {
      const alices = await get(`/v1/admin/billing/payments?user_id=${alice.id}`);
      expect(alices.json().data.map((each: { user_email: string }) => each.user_email)).toEqual([
        alice.email,
        alice.email,
      ]);
      const none = await get(`/v1/admin/billing/payments?user_id=${noEmail.id}`);
      expect(none.json().data).toMatchObject([{ id: row.id, user_email: null }]);
    } finally {
      await t.db.deleteFrom('billing_payments').where('id', '=', row.id).execute();
    }
  });

  it.each([
    ['user_id', () => `user_id=${alice.id}`, () => [ids.a2, ids.a1]],
    ['status', () => 'status=succeeded', () => [ids.b2, ids.a1]],
    ['kind', () => 'kind=subscription', () => [ids.a2]],
    ['product_id', () => `product_id=${productId}`, () => [ids.b1, ids.a1]],
    ['created_from (inclusive)', () => `created_from=${at(10)}`, () => [ids.b2, ids.b1]],
    ['created_to (exclusive)', () => `created_to=${at(10)}`, () => [ids.a2, ids.a1]],
    ['combined', () => `user_id=${bob.id}&kind=credit_pack&status=succeeded&created_from=${at(2)}`, () => [ids.b2]],
  ])('filters by %s, total follows', async (_case, query, expected) => {
    const response = await get(`/v1/admin/billing/payments?${query()}`);
    expect(response.statusCode, response.body).toBe(200);
    expect(idsOf(response.json())).toEqual(expected());
    expect(response.json().meta.total).toBe(expected().length);
  });

  it('400 on a bad filter, 401 without a token, 403 without billing.read', async () => {
    for (const query of [
      'status=paid',
      'kind=gift',
      'user_id=nope',
      'product_id=1',
      'created_from=yesterday',
      'sort=user_id:asc',
      'per_page=101',
      `q=${'x'.repeat(201)}`,
    ]) {
      const response = await get(`/v1/admin/billing/payments?${query}`);
      expect(response.statusCode, query).toBe(400);
      expect(response.json()).toEqual(schemaError({ path: [query.split('=')[0]] }));
    }
    expect((await get('/v1/admin/billing/payments', null)).statusCode).toBe(401);
    expect((await get('/v1/admin/billing/payments', writerOnly)).statusCode).toBe(403);
  });
});

describe('GET /v1/admin/billing/invoices', () => {
  it('pages newest first with total, amounts as numbers', async () => {
    const response = await get('/v1/admin/billing/invoices?per_page=2');
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json().meta).toEqual({ page: 1, per_page: 2, total: 3 });
    expect(idsOf(response.json())).toEqual([ids.i3, ids.i2]);
    expect(response.json().data[0]).toMatchObject({
      id: ids.i3,
      user_id: bob.id,
      user_email: bob.email,
      provider_invoice_id: 'in_list_i3',
      status: 'paid',
      amount_due: 1900,
      amount_paid: 1900,
      currency: 'usd',
      created_at: at(15),
    });
    expect(idsOf((await get('/v1/admin/billing/invoices?sort=amount_due:desc&per_page=1')).json())).toEqual([ids.i3]);
  });

  it.each([
    ['user_id', () => `user_id=${alice.id}`, () => [ids.i2, ids.i1]],
    ['status', () => 'status=paid', () => [ids.i3, ids.i1]],
    ['created_from (inclusive)', () => `created_from=${at(8)}`, () => [ids.i3, ids.i2]],
    ['created_to (exclusive)', () => `created_to=${at(8)}`, () => [ids.i1]],
    ['combined', () => `user_id=${alice.id}&status=paid&created_to=${at(15)}`, () => [ids.i1]],
  ])('filters by %s, total follows', async (_case, query, expected) => {
    const response = await get(`/v1/admin/billing/invoices?${query()}`);
    expect(response.statusCode, response.body).toBe(200);
    expect(idsOf(response.json())).toEqual(expected());
    expect(response.json().meta.total).toBe(expected().length);
  });

  it('400 on a bad filter, 401 without a token, 403 without billing.read', async () => {
    for (const query of ['status=refunded', 'user_id=nope', 'created_to=soon', 'sort=amount:asc']) {
      const response = await get(`/v1/admin/billing/invoices?${query}`);
      expect(response.statusCode, query).toBe(400);
      expect(response.json()).toEqual(schemaError({ path: [query.split('=')[0]] }));
    }
    expect((await get('/v1/admin/billing/invoices', null)).statusCode).toBe(401);
    expect((await get('/v1/admin/billing/invoices', writerOnly)).statusCode).toBe(403);
  });
});
