import { randomUUID } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, eventually, startTestApp, type TestApp, type TestUser } from '../../../helpers/app.js';
import { auditOf, expectRefusedUnchanged, requestIdOf, schemaError } from '../../../helpers/expectations.js';
import { storedState } from '../../../helpers/stored-state.js';
import { startStripeServer, stripeError, type StripeServer } from '../../../helpers/stripe-server.js';

/**
 * Staff subscription administration: the list, cancel (at period end or now) and resume. Each
 * change goes to the provider first, then the row, the user's tier, the audit row and the
 * dashboard event land in one transaction; every refusal leaves all of them untouched.
 */

const urls = { successUrl: 'https://game.example/done', cancelUrl: 'https://game.example/cancel' };
const listUrl = '/v1/admin/billing/subscriptions';
const cancelUrl = (id: string) => `${listUrl}/${id}/cancel`;
const resumeUrl = (id: string) => `${listUrl}/${id}/resume`;

let t: TestApp;
let staff: TestUser;
let reader: TestUser;
const products: Record<string, string> = {};

/** Plans give tiers: a ruleset, tiers silver and gold, and a plan of each with a monthly price. */
async function seedPlans(app: TestApp, prices: { silver: string; gold: string }): Promise<Record<string, string>> {
  const ruleset = await app.db
    .insertInto('plan_rulesets')
    .values({ key: 'sub-rules', name: 'Rules', description: null, limits: '{}', is_active: true, updated_by: null })
    .returning('id')
    .executeTakeFirstOrThrow();
  await app.db
    .insertInto('plan_tiers')
    .values([
      { key: 'silver', name: 'Silver', rank: 1, ruleset_id: ruleset.id, description: null, updated_by: null },
      { key: 'gold', name: 'Gold', rank: 2, ruleset_id: ruleset.id, description: null, updated_by: null },
    ])
    .execute();
  const catalog = await createUser(app.db, ['plans.write']);
  const ids: Record<string, string> = {};
  for (const [tier, unitAmount] of [
    ['silver', 500],
    ['gold', 900],
  ] as const) {
    const made = await app.request({
      method: 'POST',
      url: '/v1/admin/plans/products',
      token: catalog.token,
      payload: { kind: 'plan', name: `${tier} plan`, tierKey: tier },
    });
    expect(made.statusCode, made.body).toBe(201);
    ids[tier] = made.json().id;
    const price = await app.request({
      method: 'POST',
      url: `/v1/admin/plans/products/${ids[tier]}/prices`,
      token: catalog.token,
      payload: { providerPriceId: prices[tier], currency: 'usd', unitAmount, interval: 'month' },
    });
    expect(price.statusCode, price.body).toBe(201);
  }
  return ids;
}

beforeAll(async () => {
  t = await startTestApp();
  staff = await createUser(t.db, ['billing.read', 'billing.write']);
  reader = await createUser(t.db, ['billing.read']);
  Object.assign(products, await seedPlans(t, { silver: 'price_sub_silver', gold: 'price_sub_gold' }));
});
afterAll(async () => {
  await t.close();
});

/** A player who bought the plan on the local checkout page; their subscription's id. */
async function subscribe(
  plan: 'silver' | 'gold' = 'silver',
  email?: string,
): Promise<{ player: TestUser; id: string }> {
  const player = await createUser(t.db, [], email === undefined ? {} : { email });
  const started = await t.request({
    method: 'POST',
    url: '/v1/me/billing/checkout-session',
    token: player.token,
    payload: { ...urls, priceId: `price_sub_${plan}` },
  });
  expect(started.statusCode, started.body).toBe(200);
  const paid = await t.request({
    method: 'POST',
    url: `/v1/public/billing/local/checkout/${started.json().id}/pay`,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: '',
  });
  expect(paid.statusCode).toBe(303);
  const row = await t.db
    .selectFrom('billing_subscriptions')
    .select('id')
    .where('user_id', '=', player.id)
    .executeTakeFirstOrThrow();
  return { player, id: row.id };
}

const post = (url: string, payload: unknown, user: TestUser | null = staff, app: TestApp = t) =>
  app.request({ method: 'POST', url, token: user?.token, payload: payload as object });
const list = (query: string, user: TestUser | null = staff) =>
  t.request({ method: 'GET', url: `${listUrl}?${query}`, token: user?.token });
const rowOf = (id: string, app: TestApp = t) =>
  app.db.selectFrom('billing_subscriptions').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
const tierOf = async (userId: string, app: TestApp = t) =>
  (await app.db.selectFrom('users').select('tier').where('id', '=', userId).executeTakeFirstOrThrow()).tier;
const eventOf = (app: TestApp, response: LightMyRequestResponse) =>
  eventually(() => {
    const found = app.events.filter((event) => event.requestId === requestIdOf(response));
    expect(found).toHaveLength(1);
    return found[0]!;
  });

/** What a refusal must leave as it was: subscriptions, players' tiers, and the audit log's and outbox's sizes. */
const subscriptionState = async (app: TestApp) => ({
  ...(await storedState(app.db, { billing_subscriptions: ['id'] }, ['audit_log', 'event_outbox'])),
  tiers: await app.db.selectFrom('users').select(['id', 'tier']).orderBy('id').execute(),
});

const ended = (status: string, cancelAtPeriodEnd = false) => ({
  error: 'invalid_state',
  details: { reason: 'the subscription has ended', status, cancel_at_period_end: cancelAtPeriodEnd },
});

describe('GET /v1/admin/billing/subscriptions', () => {
  const tag = `list${randomUUID().slice(0, 6)}`;
  const mine: Record<string, { player: TestUser; id: string }> = {};

  beforeAll(async () => {
    mine.a = await subscribe('silver', `${tag}-a@example.test`);
    mine.b = await subscribe('gold', `${tag}-b@example.test`);
    mine.c = await subscribe('silver', `${tag}-c@example.test`);
    mine.d = await subscribe('gold', `${tag}-d@example.test`);
    expect((await post(cancelUrl(mine.b!.id), { reason: 'Asked to stop' })).statusCode).toBe(200);
    expect((await post(cancelUrl(mine.c!.id), { when: 'now', reason: 'Fraud' })).statusCode).toBe(200);
    // Known periods (d none) and a known creation order a < b < c < d.
    const at = (day: number) => new Date(Date.UTC(2031, 0, day));
    for (const [key, end, created] of [
      ['a', at(20), at(1)],
      ['b', at(10), at(2)],
      ['c', at(30), at(3)],
      ['d', null, at(4)],
    ] as const) {
      await t.db
        .updateTable('billing_subscriptions')
        .set({ current_period_end: end, created_at: created })
        .where('id', '=', mine[key]!.id)
        .execute();
    }
  });

  const ids = (response: LightMyRequestResponse) => response.json().data.map((row: { id: string }) => row.id);

  it('answers each row with the subscriber email and plan name, newest first, with the total', async () => {
    const response = await list(`q=${tag}`);
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json();
    expect(body.meta).toEqual({ page: 1, per_page: 25, total: 4 });
    expect(ids(response)).toEqual([mine.d!.id, mine.c!.id, mine.b!.id, mine.a!.id]);
    const stored = await rowOf(mine.a!.id);
    expect(body.data[3]).toEqual({
      id: mine.a!.id,
      user_id: mine.a!.player.id,
      user_email: `${tag}-a@example.test`,
      provider: 'local',
      provider_subscription_id: stored.provider_subscription_id,
      provider_customer_id: stored.provider_customer_id,
      product_id: products.silver,
      product_name: 'silver plan',
      provider_price_id: 'price_sub_silver',
      status: 'active',
      cancel_at_period_end: false,
      current_period_end: '2031-01-20T00:00:00.000Z',
      canceled_at: null,
      created_at: '2031-01-01T00:00:00.000Z',
      updated_at: stored.updated_at.toISOString(),
    });
    expect(stored.provider_subscription_id).toMatch(/^sub_local_/);
    expect(body.data[1]).toMatchObject({ id: mine.c!.id, status: 'canceled', canceled_at: expect.any(String) });
  });

  it('filters by status, product, user and cancel_at_period_end, each combined with q', async () => {
    expect(ids(await list(`q=${tag}&status=active`))).toEqual([mine.d!.id, mine.b!.id, mine.a!.id]);
    expect(ids(await list(`q=${tag}&status=canceled`))).toEqual([mine.c!.id]);
    expect(ids(await list(`q=${tag}&status=past_due`))).toEqual([]);
    expect(ids(await list(`q=${tag}&product_id=${products.gold}`))).toEqual([mine.d!.id, mine.b!.id]);
    expect(ids(await list(`user_id=${mine.a!.player.id}`))).toEqual([mine.a!.id]);
    expect(ids(await list(`q=${tag}&cancel_at_period_end=true`))).toEqual([mine.b!.id]);
    expect(ids(await list(`q=${tag}&cancel_at_period_end=false`))).toEqual([mine.d!.id, mine.c!.id, mine.a!.id]);
    expect(ids(await list(`q=${tag.toUpperCase()}-B`))).toEqual([mine.b!.id]);
    // ILIKE wildcards in q match only themselves.
    expect((await list(`q=${tag}%25a`)).json().meta.total).toBe(0);
    expect((await list(`q=${tag}_a`)).json().meta.total).toBe(0);
  });

  it('sorts by current_period_end either way with unknown periods last, and pages with the total', async () => {
    expect(ids(await list(`q=${tag}&sort=current_period_end:asc`))).toEqual([
      mine.b!.id,
      mine.a!.id,
      mine.c!.id,
      mine.d!.id,
    ]);
    expect(ids(await list(`q=${tag}&sort=current_period_end:desc`))).toEqual([
      mine.c!.id,
      mine.a!.id,
      mine.b!.id,
      mine.d!.id,
    ]);
    expect(ids(await list(`q=${tag}&sort=created_at:asc`))).toEqual([mine.a!.id, mine.b!.id, mine.c!.id, mine.d!.id]);
    const second = await list(`q=${tag}&sort=created_at:asc&per_page=3&page=2`);
    expect(second.json()).toMatchObject({ meta: { page: 2, per_page: 3, total: 4 } });
    expect(ids(second)).toEqual([mine.d!.id]);
  });

  it('answers null email and product name when the user has no email and the price matches no product', async () => {
    const player = await createUser(t.db);
    await t.db.updateTable('users').set({ email: null }).where('id', '=', player.id).execute();
    await t.db
      .insertInto('billing_subscriptions')
      .values({
        user_id: player.id,
        provider: 'local',
        provider_subscription_id: `sub_orphan_${tag}`,
        product_id: null,
        provider_price_id: 'price_elsewhere',
        status: 'incomplete',
      })
      .execute();
    const response = await list(`user_id=${player.id}`);
    expect(response.json().data).toEqual([
      expect.objectContaining({
        user_email: null,
        product_id: null,
        product_name: null,
        status: 'incomplete',
        current_period_end: null,
        canceled_at: null,
      }),
    ]);
  });

  it('400 for an unknown sort, status or boolean; 401 without a token; 403 without billing.read', async () => {
    for (const query of [
      'sort=amount:asc',
      'status=ended',
      'cancel_at_period_end=yes',
      'product_id=1',
      'per_page=101',
    ]) {
      const response = await list(query);
      expect(response.statusCode, query).toBe(400);
      expect(response.json().error.name).toBe('SchemaError');
    }
    expect((await list('', null)).json()).toEqual({ error: 'missing_token' });
    const writer = await createUser(t.db, ['plans.write']);
    const forbidden = await list('', writer);
    expect({ status: forbidden.statusCode, body: forbidden.json() }).toEqual({
      status: 403,
      body: { error: 'forbidden', details: { perm: 'billing.read' } },
    });
  });
});

describe('POST /v1/admin/billing/subscriptions/{id}/cancel', () => {
  it('200 period_end (the default): still active with its tier, set to cancel; audited; dashboard event', async () => {
    const { player, id } = await subscribe();
    const before = await rowOf(id);
    const response = await post(cancelUrl(id), { reason: '  Customer asked by email  ' });
    expect(response.statusCode, response.body).toBe(200);
    const stored = await rowOf(id);
    expect(stored).toMatchObject({
      status: 'active',
      cancel_at_period_end: true,
      canceled_at: null,
      current_period_end: before.current_period_end,
    });
    expect(await tierOf(player.id)).toBe('silver');
    expect(response.json()).toEqual({
      id,
      user_id: player.id,
      user_email: player.email,
      provider: 'local',
      provider_subscription_id: before.provider_subscription_id,
      provider_customer_id: before.provider_customer_id,
      product_id: products.silver,
      product_name: 'silver plan',
      provider_price_id: 'price_sub_silver',
      status: 'active',
      cancel_at_period_end: true,
      current_period_end: before.current_period_end!.toISOString(),
      canceled_at: null,
      created_at: before.created_at.toISOString(),
      updated_at: stored.updated_at.toISOString(),
    });
    const audit = await auditOf(t.db, requestIdOf(response));
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({
      actor_id: staff.id,
      action: 'billing.subscription.cancel',
      target_type: 'billing_subscription',
      target_id: id,
      reason: 'Customer asked by email',
    });
    expect(audit[0]!.summary).toEqual({
      before: { status: 'active', cancel_at_period_end: false },
      after: { status: 'active', cancel_at_period_end: true },
      when: 'period_end',
      user_id: player.id,
      provider_subscription_id: before.provider_subscription_id,
    });
    expect(await eventOf(t, response)).toMatchObject({
      kind: 'dashboard',
      name: 'billing.subscription_canceled',
      actorId: staff.id,
      payload: {
        subscription_id: id,
        user_id: player.id,
        provider_subscription_id: before.provider_subscription_id,
        product_id: products.silver,
        when: 'period_end',
        status: 'active',
        cancel_at_period_end: true,
        current_period_end: before.current_period_end!.toISOString(),
      },
    });
  });

  it('200 now: canceled at once, the tier goes; also after a cancel at period end', async () => {
    const { player, id } = await subscribe('gold');
    expect(await tierOf(player.id)).toBe('gold');
    const response = await post(cancelUrl(id), { when: 'now', reason: 'Chargeback' });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toMatchObject({
      id,
      status: 'canceled',
      cancel_at_period_end: false,
      canceled_at: expect.any(String),
    });
    expect(await rowOf(id)).toMatchObject({ status: 'canceled', canceled_at: expect.any(Date) });
    expect(await tierOf(player.id)).toBeNull();
    expect((await auditOf(t.db, requestIdOf(response)))[0]!.summary).toMatchObject({
      before: { status: 'active', cancel_at_period_end: false },
      after: { status: 'canceled', cancel_at_period_end: false },
      when: 'now',
    });
    expect((await eventOf(t, response)).payload).toMatchObject({ when: 'now', status: 'canceled' });

    const other = await subscribe();
    expect((await post(cancelUrl(other.id), { reason: 'At period end first' })).statusCode).toBe(200);
    const now = await post(cancelUrl(other.id), { when: 'now', reason: 'Then at once' });
    expect(now.json()).toMatchObject({ status: 'canceled', cancel_at_period_end: true });
    expect(await tierOf(other.player.id)).toBeNull();
  });

  it('keeps the tier of another live plan the user still holds', async () => {
    const { player, id } = await subscribe('gold');
    const started = await t.request({
      method: 'POST',
      url: '/v1/me/billing/checkout-session',
      token: player.token,
      payload: { ...urls, priceId: 'price_sub_silver' },
    });
    await t.request({
      method: 'POST',
      url: `/v1/public/billing/local/checkout/${started.json().id}/pay`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: '',
    });
    expect((await post(cancelUrl(id), { when: 'now', reason: 'Downgrade' })).statusCode).toBe(200);
    expect(await tierOf(player.id)).toBe('silver');
  });

  it('two cancels at period end at once: one is applied, the other waits for it and is refused', async () => {
    // Without the row lock both would read "not set to cancel" on PostgreSQL (PGlite runs one transaction at a time anyway).
    const { id } = await subscribe();
    const answers = await Promise.all([
      post(cancelUrl(id), { reason: 'First click' }),
      post(cancelUrl(id), { reason: 'Second click' }),
    ]);
    expect(answers.map((answer) => answer.statusCode).sort()).toEqual([200, 422]);
    const audits = await t.db.selectFrom('audit_log').select('id').where('target_id', '=', id).execute();
    expect(audits).toHaveLength(1);
  });

  it('422 invalid_state for an ended subscription or a repeated cancel at period end; nothing changes', async () => {
    const { id } = await subscribe();
    expect((await post(cancelUrl(id), { reason: 'At period end' })).statusCode).toBe(200);
    await expectRefusedUnchanged(
      () => subscriptionState(t),
      () => post(cancelUrl(id), { when: 'period_end', reason: 'Again' }),
      422,
      {
        error: 'invalid_state',
        details: {
          reason: 'the subscription is already set to cancel at the end of its period',
          status: 'active',
          cancel_at_period_end: true,
        },
      },
    );
    expect((await post(cancelUrl(id), { when: 'now', reason: 'At once' })).statusCode).toBe(200);
    await expectRefusedUnchanged(
      () => subscriptionState(t),
      () => post(cancelUrl(id), { when: 'now', reason: 'Again' }),
      422,
      ended('canceled', true),
    );
    await expectRefusedUnchanged(
      () => subscriptionState(t),
      () => post(cancelUrl(id), { reason: 'Again' }),
      422,
      ended('canceled', true),
    );
    const expired = await subscribe();
    await t.db
      .updateTable('billing_subscriptions')
      .set({ status: 'incomplete_expired' })
      .where('id', '=', expired.id)
      .execute();
    await expectRefusedUnchanged(
      () => subscriptionState(t),
      () => post(cancelUrl(expired.id), { when: 'now', reason: 'Expired' }),
      422,
      ended('incomplete_expired'),
    );
  });

  it('422 invalid_state for a subscription of another payment provider; 422 invalid_request when the provider refuses; nothing changes', async () => {
    const { id } = await subscribe();
    await t.db.updateTable('billing_subscriptions').set({ provider: 'stripe' }).where('id', '=', id).execute();
    await expectRefusedUnchanged(
      () => subscriptionState(t),
      () => post(cancelUrl(id), { reason: 'Wrong provider' }),
      422,
      {
        error: 'invalid_state',
        details: {
          reason: 'the subscription belongs to the stripe payment provider, not the configured local one',
          provider: 'stripe',
        },
      },
    );
    const gone = await subscribe();
    await t.db
      .updateTable('billing_subscriptions')
      .set({ provider_subscription_id: 'sub_local_gone' })
      .where('id', '=', gone.id)
      .execute();
    await expectRefusedUnchanged(
      () => subscriptionState(t),
      () => post(cancelUrl(gone.id), { reason: 'Unknown there' }),
      422,
      {
        error: 'invalid_request',
        details: {
          reason: 'the payment provider refused the request',
          provider_code: 'resource_missing',
          provider_message: "No such subscription: 'sub_local_gone'",
        },
      },
    );
  });

  it('404, 400, 401 and 403 change nothing', async () => {
    const { id } = await subscribe();
    await expectRefusedUnchanged(
      () => subscriptionState(t),
      () => post(cancelUrl(randomUUID()), { reason: 'Nobody' }),
      404,
      { error: 'not_found' },
    );
    for (const [payload, issue] of [
      [{}, { path: ['reason'] }],
      [{ reason: ' ab ' }, { path: ['reason'] }],
      [{ reason: 'x'.repeat(501) }, { path: ['reason'] }],
      [{ reason: 'Later', when: 'tomorrow' }, { path: ['when'] }],
      [{ reason: 'Extra', refund: true }, { code: 'unrecognized_keys' }],
    ] as const) {
      await expectRefusedUnchanged(
        () => subscriptionState(t),
        () => post(cancelUrl(id), payload),
        400,
        schemaError(issue),
      );
    }
    await expectRefusedUnchanged(
      () => subscriptionState(t),
      () => post(cancelUrl('not-a-uuid'), { reason: 'Bad id' }),
      400,
      schemaError({ path: ['id'] }),
    );
    await expectRefusedUnchanged(
      () => subscriptionState(t),
      () => post(cancelUrl(id), { reason: 'Nope' }, null),
      401,
      { error: 'missing_token' },
    );
    await expectRefusedUnchanged(
      () => subscriptionState(t),
      () => post(cancelUrl(id), { reason: 'Nope' }, reader),
      403,
      {
        error: 'forbidden',
        details: { perm: 'billing.write' },
      },
    );
  });
});

describe('POST /v1/admin/billing/subscriptions/{id}/resume', () => {
  it('200: undoes a cancel at period end; audited; dashboard event', async () => {
    const { player, id } = await subscribe();
    expect((await post(cancelUrl(id), { reason: 'Leaving' })).statusCode).toBe(200);
    const response = await post(resumeUrl(id), { reason: 'Changed their mind' });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toMatchObject({
      id,
      user_id: player.id,
      status: 'active',
      cancel_at_period_end: false,
      product_name: 'silver plan',
    });
    expect(await rowOf(id)).toMatchObject({ status: 'active', cancel_at_period_end: false });
    expect(await tierOf(player.id)).toBe('silver');
    const audit = await auditOf(t.db, requestIdOf(response));
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({
      actor_id: staff.id,
      action: 'billing.subscription.resume',
      target_type: 'billing_subscription',
      target_id: id,
      reason: 'Changed their mind',
    });
    expect(audit[0]!.summary).toEqual({
      before: { status: 'active', cancel_at_period_end: true },
      after: { status: 'active', cancel_at_period_end: false },
      user_id: player.id,
      provider_subscription_id: (await rowOf(id)).provider_subscription_id,
    });
    expect(await eventOf(t, response)).toMatchObject({
      kind: 'dashboard',
      name: 'billing.subscription_resumed',
      actorId: staff.id,
      payload: { subscription_id: id, user_id: player.id, status: 'active', cancel_at_period_end: false },
    });
    // Resumed, it can be set to cancel again.
    expect((await post(cancelUrl(id), { reason: 'Leaving after all' })).statusCode).toBe(200);
  });

  it('422 invalid_state unless live and set to cancel at period end; nothing changes', async () => {
    const { id } = await subscribe();
    await expectRefusedUnchanged(
      () => subscriptionState(t),
      () => post(resumeUrl(id), { reason: 'Not canceling' }),
      422,
      {
        error: 'invalid_state',
        details: {
          reason: 'the subscription is not set to cancel at the end of its period',
          status: 'active',
          cancel_at_period_end: false,
        },
      },
    );
    await t.db
      .updateTable('billing_subscriptions')
      .set({ status: 'unpaid', cancel_at_period_end: true })
      .where('id', '=', id)
      .execute();
    await expectRefusedUnchanged(
      () => subscriptionState(t),
      () => post(resumeUrl(id), { reason: 'Unpaid' }),
      422,
      {
        error: 'invalid_state',
        details: {
          reason: 'only a trialing, active or past_due subscription can be resumed',
          status: 'unpaid',
          cancel_at_period_end: true,
        },
      },
    );
    const gone = await subscribe();
    expect((await post(cancelUrl(gone.id), { when: 'now', reason: 'At once' })).statusCode).toBe(200);
    await expectRefusedUnchanged(
      () => subscriptionState(t),
      () => post(resumeUrl(gone.id), { reason: 'Too late' }),
      422,
      {
        error: 'invalid_state',
        details: {
          reason: 'only a trialing, active or past_due subscription can be resumed',
          status: 'canceled',
          cancel_at_period_end: false,
        },
      },
    );
  });

  it('404, 400, 401 and 403 change nothing', async () => {
    const { id } = await subscribe();
    expect((await post(cancelUrl(id), { reason: 'Leaving' })).statusCode).toBe(200);
    await expectRefusedUnchanged(
      () => subscriptionState(t),
      () => post(resumeUrl(randomUUID()), { reason: 'Nobody' }),
      404,
      { error: 'not_found' },
    );
    await expectRefusedUnchanged(
      () => subscriptionState(t),
      () => post(resumeUrl(id), {}),
      400,
      schemaError({ path: ['reason'] }),
    );
    await expectRefusedUnchanged(
      () => subscriptionState(t),
      () => post(resumeUrl(id), { reason: 'No' }),
      400,
      schemaError({ path: ['reason'] }),
    );
    await expectRefusedUnchanged(
      () => subscriptionState(t),
      () => post(resumeUrl(id), { reason: 'Resume', when: 'now' }),
      400,
      schemaError({ code: 'unrecognized_keys' }),
    );
    await expectRefusedUnchanged(
      () => subscriptionState(t),
      () => post(resumeUrl(id), { reason: 'Nope' }, null),
      401,
      { error: 'missing_token' },
    );
    await expectRefusedUnchanged(
      () => subscriptionState(t),
      () => post(resumeUrl(id), { reason: 'Nope' }, reader),
      403,
      {
        error: 'forbidden',
        details: { perm: 'billing.write' },
      },
    );
  });
});

describe('on Stripe: cancel and resume are made there; refusals are 422, outages 503', () => {
  const secretKey = 'sk_test_billingsubscriptions';
  let stripe: StripeServer;
  let s: TestApp;
  let stripeStaff: TestUser;
  let silverPrice: string;

  beforeAll(async () => {
    stripe = await startStripeServer({ secretKey });
    s = await startTestApp({
      config: {
        stripeSecretKey: secretKey,
        stripeWebhookSecret: 'whsec_billingsubscriptions',
        stripeApiBase: stripe.url,
      },
    });
    stripeStaff = await createUser(s.db, ['billing.read', 'billing.write']);
    silverPrice = String(stripe.addPrice({ currency: 'usd', unitAmount: 500, interval: 'month' }).id);
    const gold = String(stripe.addPrice({ currency: 'usd', unitAmount: 900, interval: 'month' }).id);
    await seedPlans(s, { silver: silverPrice, gold });
  });
  afterAll(async () => {
    await s.close();
    await stripe.close().catch(() => {});
  });

  /** A Stripe subscription and its row as fulfilment would have stored it, with the user's tier. */
  async function stripeSubscription(): Promise<{ player: TestUser; id: string; stripeId: string }> {
    const player = await createUser(s.db);
    const customer = String(stripe.addCustomer().id);
    const stripeId = String(
      stripe.addSubscription({ customer, price: silverPrice, metadata: { user_id: player.id } }).id,
    );
    const productId = (
      await s.db
        .selectFrom('billing_prices')
        .select('product_id')
        .where('provider_price_id', '=', silverPrice)
        .executeTakeFirstOrThrow()
    ).product_id;
    const row = await s.db
      .insertInto('billing_subscriptions')
      .values({
        user_id: player.id,
        provider: 'stripe',
        provider_subscription_id: stripeId,
        provider_customer_id: customer,
        product_id: productId,
        provider_price_id: silverPrice,
        status: 'active',
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await s.db.updateTable('users').set({ tier: 'silver' }).where('id', '=', player.id).execute();
    return { player, id: row.id, stripeId };
  }
  const sent = (from: number) =>
    stripe.requests.slice(from).map((request) => ({ method: request.method, path: request.path, form: request.form }));

  it('cancel at period end and resume update cancel_at_period_end at Stripe and store its answer', async () => {
    const { player, id, stripeId } = await stripeSubscription();
    const mark = stripe.requests.length;
    const canceled = await post(cancelUrl(id), { reason: 'Leaving' }, stripeStaff, s);
    expect(canceled.statusCode, canceled.body).toBe(200);
    const periodEnd = new Date(
      Number(
        (stripe.subscriptions.get(stripeId)!.items as { data: { current_period_end: number }[] }).data[0]!
          .current_period_end,
      ) * 1000,
    ).toISOString();
    expect(canceled.json()).toMatchObject({
      id,
      provider: 'stripe',
      status: 'active',
      cancel_at_period_end: true,
      canceled_at: expect.any(String),
      current_period_end: periodEnd,
      product_name: 'silver plan',
    });
    expect(await tierOf(player.id, s)).toBe('silver');
    const resumed = await post(resumeUrl(id), { reason: 'Staying' }, stripeStaff, s);
    expect(resumed.statusCode, resumed.body).toBe(200);
    expect(resumed.json()).toMatchObject({ status: 'active', cancel_at_period_end: false, canceled_at: null });
    expect(sent(mark)).toEqual([
      { method: 'POST', path: `/v1/subscriptions/${stripeId}`, form: { cancel_at_period_end: 'true' } },
      { method: 'POST', path: `/v1/subscriptions/${stripeId}`, form: { cancel_at_period_end: 'false' } },
    ]);
    expect(await rowOf(id, s)).toMatchObject({ status: 'active', cancel_at_period_end: false });
    expect((await auditOf(s.db, requestIdOf(resumed)))[0]).toMatchObject({
      action: 'billing.subscription.resume',
      target_id: id,
    });
  });

  it('cancel now deletes the subscription at Stripe; the tier goes', async () => {
    const { player, id, stripeId } = await stripeSubscription();
    const mark = stripe.requests.length;
    const response = await post(cancelUrl(id), { when: 'now', reason: 'Fraud' }, stripeStaff, s);
    expect(response.statusCode, response.body).toBe(200);
    expect(sent(mark)).toEqual([{ method: 'DELETE', path: `/v1/subscriptions/${stripeId}`, form: {} }]);
    expect(await rowOf(id, s)).toMatchObject({ status: 'canceled', canceled_at: expect.any(Date) });
    expect(await tierOf(player.id, s)).toBeNull();
    expect(stripe.subscriptions.get(stripeId)).toMatchObject({ status: 'canceled' });
  });

  it('422 invalid_request with the provider code when Stripe refuses; nothing changes', async () => {
    const { id } = await stripeSubscription();
    stripe.behave({
      kind: 'answer',
      status: 400,
      body: stripeError(
        'invalid_request_error',
        'A canceled subscription can only update its cancellation_details and metadata.',
        { code: 'subscription_canceled' },
      ),
      times: 1,
    });
    await expectRefusedUnchanged(
      () => subscriptionState(s),
      () => post(cancelUrl(id), { reason: 'Refused' }, stripeStaff, s),
      422,
      {
        error: 'invalid_request',
        details: {
          reason: 'the payment provider refused the request',
          provider_code: 'subscription_canceled',
          provider_message: 'A canceled subscription can only update its cancellation_details and metadata.',
        },
      },
    );
    await post(cancelUrl(id), { reason: 'Leaving' }, stripeStaff, s);
    stripe.behave({
      kind: 'answer',
      status: 404,
      body: stripeError('invalid_request_error', "No such subscription: 'sub_x'", {
        code: 'resource_missing',
        param: 'id',
      }),
      times: 1,
    });
    await expectRefusedUnchanged(
      () => subscriptionState(s),
      () => post(resumeUrl(id), { reason: 'Refused' }, stripeStaff, s),
      422,
      {
        error: 'invalid_request',
        details: {
          reason: 'the payment provider refused the request',
          provider_code: 'resource_missing',
          provider_message: "No such subscription: 'sub_x'",
        },
      },
    );
  });

  it('simulate-renewal is not served with Stripe', async () => {
    const { id } = await stripeSubscription();
    await expectRefusedUnchanged(
      () => subscriptionState(s),
      () => post(`${listUrl}/${id}/simulate-renewal`, { outcome: 'paid' }, stripeStaff, s),
      404,
      {
        error: 'not_found',
      },
    );
  });

  it('503 unavailable when Stripe fails or cannot be reached; nothing changes', async () => {
    const { id } = await stripeSubscription();
    const unavailable = { error: 'unavailable', details: { reason: 'the payment provider is unavailable' } };
    stripe.behave({ kind: 'answer', status: 500, body: stripeError('api_error', 'Something went wrong on our end.') });
    try {
      await expectRefusedUnchanged(
        () => subscriptionState(s),
        () => post(cancelUrl(id), { when: 'now', reason: 'Outage' }, stripeStaff, s),
        503,
        unavailable,
      );
    } finally {
      stripe.behave({ kind: 'normal' });
    }
    // Last in this block: the server goes away for good.
    await stripe.close();
    await expectRefusedUnchanged(
      () => subscriptionState(s),
      () => post(cancelUrl(id), { reason: 'Unreachable' }, stripeStaff, s),
      503,
      unavailable,
    );
  });
});
