import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, startTestApp, type TestApp, type TestUser } from '../../../helpers/app.js';
import { auditOf, requestIdOf } from '../../../helpers/expectations.js';

/** Operation 21: bulk-moving a plan's live subscribers to a new price, with per-subscription failures counted. */

let t: TestApp;
let staff: TestUser;
const ids: Record<string, string> = {};
const urls = { successUrl: 'https://game.example/done', cancelUrl: 'https://game.example/cancel' };
const url = '/v1/admin/plans/subscribers/migrate';

beforeAll(async () => {
  t = await startTestApp();
  staff = await createUser(t.db, ['plans.write']);
  const ruleset = await t.db
    .insertInto('plan_rulesets')
    .values({ key: 'mig-rules', name: 'Rules', description: null, limits: '{}', is_active: true, updated_by: null })
    .returning('id')
    .executeTakeFirstOrThrow();
  await t.db
    .insertInto('plan_tiers')
    .values([
      { key: 'silver', name: 'Silver', rank: 1, ruleset_id: ruleset.id, description: null, updated_by: null },
      { key: 'gold', name: 'Gold', rank: 2, ruleset_id: ruleset.id, description: null, updated_by: null },
    ])
    .execute();
  for (const [key, product, price] of [
    [
      'old',
      { kind: 'plan', name: 'Silver plan', tierKey: 'silver' },
      { providerPriceId: 'price_old', currency: 'usd', unitAmount: 500, interval: 'month' },
    ],
    [
      'new',
      { kind: 'plan', name: 'Gold plan', tierKey: 'gold' },
      { providerPriceId: 'price_new', currency: 'usd', unitAmount: 900, interval: 'month' },
    ],
    [
      'pack',
      { kind: 'credit_pack', name: 'Pack', credits: 10 },
      { providerPriceId: 'price_pack', currency: 'usd', unitAmount: 100 },
    ],
  ] as const) {
    const made = await t.request({
      method: 'POST',
      url: '/v1/admin/plans/products',
      token: staff.token,
      payload: product,
    });
    ids[key] = made.json().id;
    expect(
      (
        await t.request({
          method: 'POST',
          url: `/v1/admin/plans/products/${ids[key]}/prices`,
          token: staff.token,
          payload: price,
        })
      ).statusCode,
    ).toBe(201);
  }
});
afterAll(async () => {
  await t.close();
});

async function subscribe(): Promise<TestUser> {
  const player = await createUser(t.db);
  const started = await t.request({
    method: 'POST',
    url: '/v1/me/billing/checkout-session',
    token: player.token,
    payload: { ...urls, priceId: 'price_old' },
  });
  expect(started.statusCode, started.body).toBe(200);
  const paid = await t.request({
    method: 'POST',
    url: `/v1/public/billing/local/checkout/${started.json().id}/pay`,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: '',
  });
  expect(paid.statusCode).toBe(303);
  return player;
}

const subscriptionOf = (userId: string) =>
  t.db
    .selectFrom('billing_subscriptions')
    .select(['id', 'product_id', 'provider_price_id', 'status'])
    .where('user_id', '=', userId)
    .executeTakeFirstOrThrow();
const tierOf = async (userId: string) =>
  (await t.db.selectFrom('users').select('tier').where('id', '=', userId).executeTakeFirstOrThrow()).tier;
const migrate = (payload: object, token = staff.token) => t.request({ method: 'POST', url, token, payload });
const body = (over: object = {}) => ({
  fromProductId: ids.old,
  toProductId: ids.new,
  newProviderPriceId: 'price_new',
  confirm: true,
  ...over,
});

describe('POST /v1/admin/plans/subscribers/migrate', () => {
  it('refuses bad requests (400 schema, 400 validation_failed, 404, 422, 403) and moves nothing', async () => {
    const player = await subscribe();
    const before = await subscriptionOf(player.id);
    expect(before).toMatchObject({ product_id: ids.old, provider_price_id: 'price_old', status: 'active' });
    const cases: [object, number, string][] = [
      [{ fromProductId: ids.old, toProductId: ids.new, confirm: true }, 400, 'schema'],
      [body({ confirm: 'yes' }), 400, 'schema'],
      [body({ confirm: false }), 400, 'validation_failed'],
      [body({ toProductId: randomUUID() }), 404, 'not_found'],
      [body({ fromProductId: randomUUID() }), 404, 'not_found'],
      [body({ toProductId: ids.pack, newProviderPriceId: 'price_pack' }), 422, 'invalid_request'],
      [body({ newProviderPriceId: 'price_old' }), 422, 'invalid_request'],
      [body({ newProviderPriceId: 'price_nowhere' }), 422, 'invalid_request'],
    ];
    for (const [payload, status, code] of cases) {
      const response = await migrate(payload);
      expect(response.statusCode, JSON.stringify(payload)).toBe(status);
      expect(code === 'schema' ? response.json().error.name : response.json().error).toBe(
        code === 'schema' ? 'SchemaError' : code,
      );
      expect(await auditOf(t.db, requestIdOf(response))).toEqual([]);
    }
    const reader = await createUser(t.db, ['plans.read']);
    expect((await migrate(body(), reader.token)).statusCode).toBe(403);
    expect(await subscriptionOf(player.id)).toEqual(before);
    expect(await tierOf(player.id)).toBe('silver');
  });

  it('moves every live subscriber to the new price and tier, counts a provider failure, and audits once', async () => {
    const moved = [await subscribe(), await subscribe(), await subscribe(), await subscribe(), await subscribe()];
    const broken = await subscribe();
    await t.db
      .updateTable('billing_subscriptions')
      .set({ provider_subscription_id: 'sub_gone' })
      .where('user_id', '=', broken.id)
      .execute();
    const canceled = await subscribe();
    await t.db
      .updateTable('billing_subscriptions')
      .set({ status: 'canceled' })
      .where('user_id', '=', canceled.id)
      .execute();
    const live = await t.db
      .selectFrom('billing_subscriptions')
      .select('id')
      .where('product_id', '=', ids.old!)
      .where('status', 'in', ['trialing', 'active', 'past_due'])
      .execute();

    const response = await migrate(body());
    expect(response.statusCode, response.body).toBe(200);
    const brokenId = (await subscriptionOf(broken.id)).id;
    expect(response.json()).toEqual({
      migrated: live.length - 1,
      failed: 1,
      total: live.length,
      failures: [
        { subscriptionId: brokenId, userId: broken.id, reason: 'resource_missing', message: expect.any(String) },
      ],
    });
    for (const player of moved) {
      expect(await subscriptionOf(player.id)).toMatchObject({
        product_id: ids.new,
        provider_price_id: 'price_new',
        status: 'active',
      });
      expect(await tierOf(player.id)).toBe('gold');
    }
    const brokenRow = await subscriptionOf(broken.id);
    expect(brokenRow).toMatchObject({ product_id: ids.old, provider_price_id: 'price_old' });
    expect(await tierOf(broken.id)).toBe('silver');
    expect(await subscriptionOf(canceled.id)).toMatchObject({ product_id: ids.old, status: 'canceled' });

    const audit = await auditOf(t.db, requestIdOf(response));
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ action: 'plans.subscribers.migrate', actor_id: staff.id, target_id: ids.old });
    expect(audit[0]!.summary).toMatchObject({
      migrated: live.length - 1,
      failed: 1,
      total: live.length,
      to_product_id: ids.new,
      new_provider_price_id: 'price_new',
      failures: [{ subscription_id: brokenRow.id, provider_code: 'resource_missing' }],
    });
  });
});
