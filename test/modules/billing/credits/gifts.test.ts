import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, eventually, startTestApp, type TestApp, type TestUser } from '../../../helpers/app.js';
import { auditOf, requestIdOf, schemaError } from '../../../helpers/expectations.js';
import { expectConsistentCredits, expectNoCredits, ledgerOf, lotsOf } from './fixtures.js';

/**
 * Staff gifts of credit packs (`POST /v1/admin/billing/credits/gift-pack`) and the list of what
 * staff can hand out (`GET /v1/admin/billing/giftable-tiers`). Every answer is checked against
 * the stored ledger, lots and audit rows; every refusal is checked to have stored nothing.
 */

let t: TestApp;
let gifter: TestUser;
let reader: TestUser;
let planner: TestUser;
const ids: Record<string, string> = {};
const priceIds: Record<string, string> = {};

const FUTURE = '2099-06-01T00:00:00.000Z';

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

const giftPack = (caller: TestUser | null, payload: unknown, idempotencyKey?: string) =>
  t.request({
    method: 'POST',
    url: '/v1/admin/billing/credits/gift-pack',
    token: caller?.token,
    payload: payload as object,
    ...(idempotencyKey === undefined ? {} : { headers: { 'idempotency-key': idempotencyKey } }),
  });

const giftables = (caller: TestUser | null) =>
  t.request({ method: 'GET', url: '/v1/admin/billing/giftable-tiers', token: caller?.token });

beforeAll(async () => {
  t = await startTestApp();
  gifter = await createUser(t.db, ['billing.write']);
  reader = await createUser(t.db, ['billing.read']);
  planner = await createUser(t.db, ['plans.write']);
  const ruleset = await t.db
    .insertInto('plan_rulesets')
    .values({ key: 'gift-rules', name: 'Rules', description: null, limits: '{}', is_active: true, updated_by: null })
    .returning('id')
    .executeTakeFirstOrThrow();
  await t.db
    .insertInto('plan_tiers')
    .values([
      { key: 'gold', name: 'Gold', rank: 2, ruleset_id: ruleset.id, description: null, updated_by: null },
      { key: 'bronze', name: 'Bronze', rank: 0, ruleset_id: ruleset.id, description: null, updated_by: null },
      { key: 'silver', name: 'Silver', rank: 1, ruleset_id: ruleset.id, description: null, updated_by: null },
    ])
    .execute();

  await product('goldMonthly', { kind: 'plan', name: 'Gold monthly', tierKey: 'gold' });
  await price('goldUsd', 'goldMonthly', {
    providerPriceId: 'price_gift_gold_usd',
    currency: 'usd',
    unitAmount: 999,
    interval: 'month',
  });
  await price('goldEur', 'goldMonthly', {
    providerPriceId: 'price_gift_gold_eur',
    currency: 'eur',
    unitAmount: 899,
    interval: 'month',
  });
  await price('goldOld', 'goldMonthly', {
    providerPriceId: 'price_gift_gold_old',
    currency: 'usd',
    unitAmount: 799,
    interval: 'month',
    isActive: false,
  });
  await product('goldYearly', { kind: 'plan', name: 'Gold yearly', tierKey: 'gold', sortOrder: 5 });
  await product('bronzeRetired', { kind: 'plan', name: 'Bronze retired', tierKey: 'bronze', isActive: false });
  await price('bronzeUsd', 'bronzeRetired', {
    providerPriceId: 'price_gift_bronze_usd',
    currency: 'usd',
    unitAmount: 100,
    interval: 'month',
  });
  await product('bigPack', { kind: 'credit_pack', name: 'Big pack', credits: 500 });
  await price('bigUsd', 'bigPack', { providerPriceId: 'price_gift_big_usd', currency: 'usd', unitAmount: 4999 });
  await product('smallPack', { kind: 'credit_pack', name: 'Small pack', credits: 100, sortOrder: -5 });
  await product('retiredPack', { kind: 'credit_pack', name: 'Retired pack', credits: 7, isActive: false });
});
afterAll(async () => t.close());

describe('POST /v1/admin/billing/credits/gift-pack', () => {
  it('adds credits × quantity as one gift entry and lot referencing the product, audits it and emits an event', async () => {
    const player = await createUser(t.db);
    const response = await giftPack(gifter, {
      user_id: player.id,
      product_id: ids.bigPack,
      quantity: 3,
      reason: 'Sorry for the outage',
      expires_at: FUTURE,
    });
    expect(response.statusCode).toBe(201);
    const body = response.json();
    expect(body).toEqual({ entry_id: expect.any(Number), balance: 1500, credits: 1500 });

    const [entry, ...more] = await ledgerOf(t.db, player.id);
    expect(more).toEqual([]);
    expect(entry).toMatchObject({
      id: body.entry_id,
      user_id: player.id,
      amount: 1500,
      kind: 'gift',
      balance_after: 1500,
      actor_id: gifter.id,
      reason: 'Sorry for the outage',
      reference_type: 'product',
      reference_id: ids.bigPack,
      idempotency_key: null,
    });
    const [lot, ...moreLots] = await lotsOf(t.db, player.id);
    expect(moreLots).toEqual([]);
    expect(lot).toMatchObject({ entry_id: body.entry_id, amount: 1500, remaining: 1500, expires_at: new Date(FUTURE) });

    const [audit, ...moreAudit] = await auditOf(t.db, requestIdOf(response));
    expect(moreAudit).toEqual([]);
    expect(audit).toMatchObject({
      action: 'billing.credits.gift_pack',
      actor_id: gifter.id,
      target_type: 'user',
      target_id: player.id,
      reason: 'Sorry for the outage',
      summary: {
        after: {
          product_id: ids.bigPack,
          product_name: 'Big pack',
          quantity: 3,
          credits_per_pack: 500,
          credits: 1500,
          expires_at: FUTURE,
          entry_id: body.entry_id,
          lot_id: lot!.id,
          balance: 1500,
        },
      },
    });
    await eventually(() =>
      expect(t.events).toContainEqual(
        expect.objectContaining({
          kind: 'dashboard',
          name: 'billing.credits_gifted',
          actorId: gifter.id,
          payload: { user_id: player.id, product_id: ids.bigPack, quantity: 3, credits: 1500, entry_id: body.entry_id },
        }),
      ),
    );

    // Quantity defaults to 1; a pack without a price can be gifted; no expiry: a never-lapsing lot.
    const second = await giftPack(gifter, { user_id: player.id, product_id: ids.smallPack, reason: 'Loyalty' });
    expect(second.statusCode).toBe(201);
    expect(second.json()).toEqual({ entry_id: expect.any(Number), balance: 1600, credits: 100 });
    expect((await lotsOf(t.db, player.id))[1]).toMatchObject({ amount: 100, remaining: 100, expires_at: null });
    expect(await expectConsistentCredits(t.db, player.id)).toBe(1600);
  });

  it('with the same Idempotency-Key and body answers the first gift again and writes once', async () => {
    const player = await createUser(t.db);
    const payload = { user_id: player.id, product_id: ids.bigPack, quantity: 2, reason: 'Ticket 88' };
    const key = `ticket-88-${randomUUID()}`;
    const first = await giftPack(gifter, payload, key);
    expect(first.statusCode).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    await giftPack(gifter, { user_id: player.id, product_id: ids.smallPack, reason: 'Other' });

    const again = await giftPack(gifter, payload, key);
    expect(again.statusCode).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json()).toEqual(first.json());
    expect(again.json()).toEqual({ entry_id: expect.any(Number), balance: 1000, credits: 1000 });
    expect(await auditOf(t.db, requestIdOf(again))).toEqual([]);
    expect(await auditOf(t.db, requestIdOf(first))).toHaveLength(1);

    // Even once the pack is off sale, the retry answers the gift that was made.
    await t.db.updateTable('billing_products').set({ is_active: false }).where('id', '=', ids.bigPack!).execute();
    try {
      const late = await giftPack(gifter, payload, key);
      expect(late.statusCode).toBe(201);
      expect(late.json()).toEqual(first.json());
    } finally {
      await t.db.updateTable('billing_products').set({ is_active: true }).where('id', '=', ids.bigPack!).execute();
    }

    const entries = await ledgerOf(t.db, player.id);
    expect(entries.map((entry) => [entry.amount, entry.idempotency_key])).toEqual([
      [1000, `gift-pack:${key}`],
      [100, null],
    ]);
    expect(await expectConsistentCredits(t.db, player.id)).toBe(1100);
  });

  it('refuses the same Idempotency-Key with a different body (409) and stores nothing', async () => {
    const player = await createUser(t.db);
    const other = await createUser(t.db);
    const key = randomUUID();
    const payload = { user_id: player.id, product_id: ids.bigPack, quantity: 1, reason: 'First use' };
    expect((await giftPack(gifter, payload, key)).statusCode).toBe(201);

    for (const changed of [
      { ...payload, quantity: 2 },
      { ...payload, product_id: ids.smallPack },
      { ...payload, reason: 'Other reason' },
      { ...payload, expires_at: FUTURE },
      { ...payload, user_id: other.id },
    ]) {
      const response = await giftPack(gifter, changed, key);
      expect(response.statusCode).toBe(409);
      expect(response.json()).toEqual({
        error: 'conflict',
        details: { reason: 'this idempotency key was already used for a different request' },
      });
      expect(await auditOf(t.db, requestIdOf(response))).toEqual([]);
    }
    expect((await ledgerOf(t.db, player.id)).map((entry) => entry.amount)).toEqual([500]);
    await expectNoCredits(t.db, other.id);
  });

  it('50 gifts at once under one Idempotency-Key gift once (one entry, one lot, one audit row, one event) and answer alike', async () => {
    // On PostgreSQL the requests really overlap: the user's credit lock and the key's unique index decide.
    const player = await createUser(t.db);
    const key = randomUUID();
    const payload = { user_id: player.id, product_id: ids.bigPack, quantity: 2, reason: 'Outage, at once' };
    const answers = await Promise.all(Array.from({ length: 50 }, () => giftPack(gifter, payload, key)));
    expect(answers.map((answer) => answer.statusCode)).toEqual(Array(50).fill(201));
    expect(new Set(answers.map((answer) => answer.body))).toEqual(
      new Set([JSON.stringify({ ...answers[0]!.json(), balance: 1000, credits: 1000 })]),
    );
    expect(answers.filter((answer) => answer.headers['idempotent-replayed'] === undefined)).toHaveLength(1);
    expect((await ledgerOf(t.db, player.id)).map((entry) => entry.amount)).toEqual([1000]);
    expect(await lotsOf(t.db, player.id)).toHaveLength(1);
    expect(
      await t.db
        .selectFrom('audit_log')
        .select('id')
        .where('action', '=', 'billing.credits.gift_pack')
        .where('target_id', '=', player.id)
        .execute(),
    ).toHaveLength(1);
    expect(
      await t.db
        .selectFrom('event_outbox')
        .select('id')
        .where('name', '=', 'billing.credits_gifted')
        .where(sql<string>`payload->>'user_id'`, '=', player.id)
        .execute(),
    ).toHaveLength(1);
    expect(await expectConsistentCredits(t.db, player.id)).toBe(1000);
  });

  it('keeps its keys apart from grant keys', async () => {
    const player = await createUser(t.db);
    const key = randomUUID();
    const granted = await t.request({
      method: 'POST',
      url: '/v1/admin/billing/credits/grant',
      token: gifter.token,
      headers: { 'idempotency-key': key },
      payload: { user_id: player.id, amount: 5, reason: 'Grant' },
    });
    expect(granted.statusCode).toBe(201);
    const gifted = await giftPack(gifter, { user_id: player.id, product_id: ids.smallPack, reason: 'Gift' }, key);
    expect(gifted.statusCode).toBe(201);
    expect(gifted.json()).toMatchObject({ balance: 105, credits: 100 });
    expect(await expectConsistentCredits(t.db, player.id)).toBe(105);
  });

  it('404s an unknown user or product, storing nothing', async () => {
    const ghost = randomUUID();
    const unknownUser = await giftPack(gifter, { user_id: ghost, product_id: ids.bigPack, reason: 'Nobody' });
    expect(unknownUser.statusCode).toBe(404);
    expect(unknownUser.json()).toEqual({ error: 'not_found' });
    expect(await auditOf(t.db, requestIdOf(unknownUser))).toEqual([]);
    await expectNoCredits(t.db, ghost);

    const player = await createUser(t.db);
    const missing = randomUUID();
    const unknownProduct = await giftPack(gifter, { user_id: player.id, product_id: missing, reason: 'No such pack' });
    expect(unknownProduct.statusCode).toBe(404);
    expect(unknownProduct.json()).toEqual({
      error: 'not_found',
      details: { reason: 'no such product', product_id: missing },
    });
    expect(await auditOf(t.db, requestIdOf(unknownProduct))).toEqual([]);
    await expectNoCredits(t.db, player.id);
  });

  it('422s a deleted user, a plan, an inactive pack and a past expiry, storing nothing', async () => {
    const gone = await createUser(t.db, [], { status: 'deleted' });
    const deleted = await giftPack(
      gifter,
      { user_id: gone.id, product_id: ids.bigPack, reason: 'Too late' },
      randomUUID(),
    );
    expect(deleted.statusCode).toBe(422);
    expect(deleted.json()).toEqual({
      error: 'invalid_state',
      details: { reason: 'a deleted user cannot be gifted credits', status: 'deleted' },
    });
    expect(await auditOf(t.db, requestIdOf(deleted))).toEqual([]);
    await expectNoCredits(t.db, gone.id);

    const player = await createUser(t.db);
    const refusals: Array<[object, unknown]> = [
      [
        { product_id: ids.goldMonthly },
        { reason: 'only a credit pack can be gifted', product_id: ids.goldMonthly, kind: 'plan' },
      ],
      [{ product_id: ids.retiredPack }, { reason: 'this credit pack is inactive', product_id: ids.retiredPack }],
      [{ expires_at: '2020-01-01T00:00:00Z' }, { reason: 'expires_at must be in the future' }],
      [{ expires_at: new Date(Date.now() - 1_000).toISOString() }, { reason: 'expires_at must be in the future' }],
    ];
    for (const [change, details] of refusals) {
      const response = await giftPack(
        gifter,
        { user_id: player.id, product_id: ids.bigPack, reason: 'Refused', ...change },
        randomUUID(),
      );
      expect(response.statusCode).toBe(422);
      expect(response.json()).toEqual({ error: 'invalid_request', details });
      expect(await auditOf(t.db, requestIdOf(response))).toEqual([]);
    }
    await expectNoCredits(t.db, player.id);
  });

  it.each([
    ['quantity 0', { quantity: 0 }, ['quantity']],
    ['quantity 100', { quantity: 100 }, ['quantity']],
    ['a fractional quantity', { quantity: 1.5 }, ['quantity']],
    ['a short reason', { reason: 'no' }, ['reason']],
    ['a long reason', { reason: 'x'.repeat(501) }, ['reason']],
    ['a malformed user id', { user_id: 'someone' }, ['user_id']],
    ['a malformed product id', { product_id: 'big-pack' }, ['product_id']],
    ['a malformed expiry', { expires_at: 'tomorrow' }, ['expires_at']],
    ['an unknown field', { amount: 5 }, []],
  ])('400s %s and stores nothing', async (_name, change, path) => {
    const player = await createUser(t.db);
    const response = await giftPack(gifter, {
      user_id: player.id,
      product_id: ids.bigPack,
      reason: 'Valid reason',
      ...change,
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual(schemaError({ path }));
    await expectNoCredits(t.db, player.id);
  });

  it('400s an Idempotency-Key longer than 200 characters, or empty', async () => {
    const player = await createUser(t.db);
    for (const key of ['k'.repeat(201), '']) {
      const response = await giftPack(
        gifter,
        { user_id: player.id, product_id: ids.smallPack, reason: 'Valid reason' },
        key,
      );
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual(schemaError({ path: ['idempotency-key'] }));
    }
    await expectNoCredits(t.db, player.id);
  });

  it('401s without a token and 403s without billing.write, storing nothing', async () => {
    const player = await createUser(t.db);
    const payload = { user_id: player.id, product_id: ids.bigPack, reason: 'Valid reason' };
    const anonymous = await giftPack(null, payload);
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.json()).toEqual({ error: 'missing_token' });
    const refused = await giftPack(reader, payload);
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toEqual({ error: 'forbidden', details: { perm: 'billing.write' } });
    expect(await auditOf(t.db, requestIdOf(refused))).toEqual([]);
    await expectNoCredits(t.db, player.id);
  });
});

describe('GET /v1/admin/billing/giftable-tiers', () => {
  it('lists every tier by rank with the active plans selling it and their active prices, and the active packs', async () => {
    const response = await giftables(reader);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      tiers: [
        { key: 'bronze', name: 'Bronze', rank: 0, products: [] },
        { key: 'silver', name: 'Silver', rank: 1, products: [] },
        {
          key: 'gold',
          name: 'Gold',
          rank: 2,
          products: [
            {
              id: ids.goldMonthly,
              name: 'Gold monthly',
              prices: [
                {
                  id: priceIds.goldEur,
                  provider_price_id: 'price_gift_gold_eur',
                  currency: 'eur',
                  unit_amount: 899,
                  interval: 'month',
                },
                {
                  id: priceIds.goldUsd,
                  provider_price_id: 'price_gift_gold_usd',
                  currency: 'usd',
                  unit_amount: 999,
                  interval: 'month',
                },
              ],
            },
            { id: ids.goldYearly, name: 'Gold yearly', prices: [] },
          ],
        },
      ],
      packs: [
        { id: ids.smallPack, name: 'Small pack', credits: 100 },
        { id: ids.bigPack, name: 'Big pack', credits: 500 },
      ],
    });
  });

  it('401s without a token and 403s without billing.read', async () => {
    const anonymous = await giftables(null);
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.json()).toEqual({ error: 'missing_token' });
    const refused = await giftables(planner);
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toEqual({ error: 'forbidden', details: { perm: 'billing.read' } });
  });
});
