import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../../../src/db/database.js';
import { createUser, startTestApp, type TestApp, type TestUser } from '../../../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../../../helpers/database.js';
import { schemaError } from '../../../helpers/expectations.js';

/**
 * GET /v1/admin/billing/overview. Fixed-date records (January 2026, inserted directly) check
 * the range, the UTC buckets and the per-currency arithmetic exactly; a pack and a plan bought,
 * a refund and a grant made through the real routes check the default range (the last 30 days).
 * The "now" figures (live subscriptions, MRR, outstanding credits) count both. The database's
 * sessions run 14 hours ahead of UTC, so a bucket taken in the session's zone would be a day off.
 */

const SESSION_TIME_ZONE = 'Pacific/Kiritimati';
let testDatabase: TestDatabase;
let t: TestApp;
let reader: TestUser;
let writerOnly: TestUser;
const plans: Record<string, string> = {};
const urls = { successUrl: 'https://game.example/done', cancelUrl: 'https://game.example/cancel' };

const FROM = '2026-01-01T00:00:00.000Z';
const TO = '2026-01-08T00:00:00.000Z';
const jan = (day: number, time = '12:00:00.000') => `2026-01-${String(day).padStart(2, '0')}T${time}Z`;

async function catalog(staff: TestUser) {
  const ruleset = await t.db
    .insertInto('plan_rulesets')
    .values({ key: 'overview', name: 'Rules', description: null, limits: '{}', is_active: true, updated_by: null })
    .returning('id')
    .executeTakeFirstOrThrow();
  for (const [key, rank] of [
    ['gold', 2],
    ['silver', 1],
  ] as const) {
    await t.db
      .insertInto('plan_tiers')
      .values({ key, name: key, rank, ruleset_id: ruleset.id, description: null, updated_by: null })
      .execute();
  }
  const product = async (payload: object, price: object) => {
    const made = await t.request({ method: 'POST', url: '/v1/admin/plans/products', token: staff.token, payload });
    expect(made.statusCode, made.body).toBe(201);
    const priced = await t.request({
      method: 'POST',
      url: `/v1/admin/plans/products/${made.json().id}/prices`,
      token: staff.token,
      payload: price,
    });
    expect(priced.statusCode, priced.body).toBe(201);
    return made.json().id as string;
  };
  plans.monthly = await product(
    { kind: 'plan', name: 'Gold monthly', tierKey: 'gold' },
    { providerPriceId: 'price_ov_month', currency: 'usd', unitAmount: 999, interval: 'month' },
  );
  plans.yearly = await product(
    { kind: 'plan', name: 'Gold yearly', tierKey: 'gold' },
    { providerPriceId: 'price_ov_year', currency: 'usd', unitAmount: 10000, interval: 'year' },
  );
  plans.silver = await product(
    { kind: 'plan', name: 'Silver', tierKey: 'silver' },
    { providerPriceId: 'price_ov_silver', currency: 'eur', unitAmount: 500, interval: 'month' },
  );
  await product(
    { kind: 'credit_pack', name: 'Pack of 100', credits: 100 },
    { providerPriceId: 'price_ov_pack', currency: 'usd', unitAmount: 499 },
  );
}

/** January 2026: payments and refunds around the range's edges, in two currencies. */
async function januaryMoney(user: TestUser) {
  const payment = async (key: string, currency: string, amount: number, created_at: string) =>
    (
      await t.db
        .insertInto('billing_payments')
        .values({
          user_id: user.id,
          provider: 'local',
          provider_payment_id: `pi_ov_${key}`,
          kind: 'credit_pack',
          product_id: null,
          amount,
          currency,
          created_at,
        })
        .returning('id')
        .executeTakeFirstOrThrow()
    ).id;
  const refund = (key: string, paymentId: string, currency: string, amount: number, created_at: string) =>
    t.db
      .insertInto('billing_refunds')
      .values({
        payment_id: paymentId,
        user_id: user.id,
        provider_refund_id: `re_ov_${key}`,
        amount,
        currency,
        reason: 'test',
        credits_clawed_back: 0,
        shortfall: 0,
        actor_id: null,
        created_at,
      })
      .execute();
  const p1 = await payment('p1', 'usd', 1000, jan(1, '10:00:00.000'));
  await payment('p2', 'usd', 500, jan(1, '23:59:59.999'));
  const p3 = await payment('p3', 'eur', 700, jan(3));
  const p4 = await payment('p4', 'usd', 2000, '2025-12-31T23:00:00.000Z');
  await payment('p5', 'usd', 300, TO); // `to` is exclusive
  await payment('p6', 'usd', 400, jan(7, '23:59:59.999'));
  await payment('p7', 'eur', 50, '2026-01-03T01:00:00+02:00'); // 2 January in UTC
  await refund('r1', p4, 'usd', 800, jan(2, '09:00:00.000')); // a December payment refunded in January
  await refund('r2', p1, 'usd', 1000, jan(5)); // refunded in another bucket than its payment
  await refund('r3', p3, 'eur', 200, TO);
  await refund('r4', p4, 'usd', 100, '2025-12-31T23:30:00.000Z');
}

/** Subscriptions of every kind: live on three plans and on an unknown price, ended, incomplete. */
async function subscriptions(user: TestUser) {
  const rows = [
    ['s1', plans.monthly, 'price_ov_month', 'active', false, jan(3), null],
    ['s2', plans.yearly, 'price_ov_year', 'trialing', false, '2025-06-01T00:00:00Z', null],
    ['s3', plans.yearly, 'price_ov_year', 'past_due', true, '2025-06-01T00:00:00Z', jan(4)],
    ['s4', plans.silver, 'price_ov_silver', 'active', false, '2025-06-01T00:00:00Z', null],
    ['s5', plans.monthly, 'price_ov_month', 'canceled', false, jan(2), jan(6)],
    ['s6', plans.monthly, 'price_ov_month', 'incomplete', false, jan(5), null],
    ['s7', null, 'price_gone', 'active', false, '2025-06-01T00:00:00Z', null],
    ['s8', plans.silver, 'price_ov_silver', 'canceled', false, '2025-06-01T00:00:00Z', TO],
  ] as const;
  for (const [key, product_id, provider_price_id, status, cancel_at_period_end, created_at, canceled_at] of rows) {
    await t.db
      .insertInto('billing_subscriptions')
      .values({
        user_id: user.id,
        provider: 'local',
        provider_subscription_id: `sub_ov_${key}`,
        product_id,
        provider_price_id,
        status,
        cancel_at_period_end,
        created_at,
        canceled_at,
      })
      .execute();
  }
}

/** Ledger entries of every kind; lots are not needed to sum the ledger. */
async function januaryCredits(user: TestUser) {
  const entries = [
    ['purchase', 1000, jan(1)],
    ['grant', 200, jan(2)],
    ['gift', 50, jan(3)],
    ['spend', -300, jan(4)],
    ['expiry', -20, jan(5)],
    ['refund_clawback', -100, jan(6)],
    ['adjustment', 30, jan(6)],
    ['adjustment', -45, jan(7)],
    ['grant', 999, '2025-12-31T23:59:59Z'],
    ['spend', -1, TO],
  ] as const;
  for (const [kind, amount, created_at] of entries) {
    await t.db
      .insertInto('credit_ledger')
      .values({ user_id: user.id, kind, amount, balance_after: 0, created_at })
      .execute();
  }
}

/** Today, through the real routes: a pack of 998 half refunded, a monthly plan of 999, 50 credits granted. */
async function today(staff: TestUser) {
  const buy = async (player: TestUser, payload: object) => {
    const checkout = await t.request({
      method: 'POST',
      url: '/v1/me/billing/checkout-session',
      token: player.token,
      payload: { ...urls, ...payload },
    });
    expect(checkout.statusCode, checkout.body).toBe(200);
    const paid = await t.request({
      method: 'POST',
      url: `/v1/public/billing/local/checkout/${checkout.json().id}/pay`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: '',
    });
    expect(paid.statusCode).toBe(303);
  };
  const player = await createUser(t.db);
  await buy(player, { priceId: 'price_ov_pack', quantity: 2 });
  await buy(player, { priceId: 'price_ov_month' });
  const pack = await t.db
    .selectFrom('billing_payments')
    .select('id')
    .where('user_id', '=', player.id)
    .where('kind', '=', 'credit_pack')
    .executeTakeFirstOrThrow();
  const refunded = await t.request({
    method: 'POST',
    url: `/v1/admin/billing/payments/${pack.id}/refund`,
    token: staff.token,
    payload: { amount: 499, reason: 'Half back' },
  });
  expect(refunded.statusCode, refunded.body).toBe(200);
  const granted = await t.request({
    method: 'POST',
    url: '/v1/admin/billing/credits/grant',
    token: staff.token,
    payload: { user_id: player.id, amount: 50, reason: 'Welcome' },
  });
  expect(granted.statusCode, granted.body).toBe(201);
}

/** This file's database with every session in SESSION_TIME_ZONE (PGlite: its one session; PostgreSQL: new connections). */
async function databaseAheadOfUtc(): Promise<Database> {
  testDatabase = await createTestDatabase();
  const { db } = testDatabase.database;
  if (testDatabase.url === null) {
    await sql`set time zone ${sql.lit(SESSION_TIME_ZONE)}`.execute(db);
    return testDatabase.database;
  }
  const {
    rows: [current],
  } = await sql<{ name: string }>`select current_database() as name`.execute(db);
  await sql`alter database ${sql.id(current!.name)} set timezone to ${sql.lit(SESSION_TIME_ZONE)}`.execute(db);
  return testDatabase.openAnother();
}

beforeAll(async () => {
  t = await startTestApp({ database: await databaseAheadOfUtc() });
  const {
    rows: [zone],
  } = await sql<{ TimeZone: string }>`show timezone`.execute(t.db);
  expect(zone!.TimeZone).toBe(SESSION_TIME_ZONE);
  reader = await createUser(t.db, ['billing.read']);
  writerOnly = await createUser(t.db, ['billing.write']);
  const staff = await createUser(t.db, ['billing.read', 'billing.write', 'plans.write']);
  const player = await createUser(t.db);
  await catalog(staff);
  await januaryMoney(player);
  await subscriptions(player);
  await januaryCredits(player);
  await today(staff);
});
afterAll(async () => {
  await t.close();
  await testDatabase.drop();
});

const overview = (query = '', user: TestUser | null = reader) =>
  t.request({ method: 'GET', url: `/v1/admin/billing/overview${query}`, token: user?.token });
const money = (currency: string, gross: number, refunded: number, payments: number, refunds: number) => ({
  currency,
  gross,
  refunded,
  net: gross - refunded,
  payments,
  refunds,
});
const bucket = (period_start: string, ...figures: Parameters<typeof money>) => ({ period_start, ...money(...figures) });

/** The "now" figures: fixed subscriptions plus the plan bought today. */
const subscriptionsNow = {
  live: 6,
  past_due: 1,
  cancel_at_period_end: 1,
  active_by_plan: [
    {
      product_id: expect.any(String),
      name: 'Gold monthly',
      tier_key: 'gold',
      live: 2,
      past_due: 0,
      cancel_at_period_end: 0,
    },
    {
      product_id: expect.any(String),
      name: 'Gold yearly',
      tier_key: 'gold',
      live: 2,
      past_due: 1,
      cancel_at_period_end: 1,
    },
    {
      product_id: expect.any(String),
      name: 'Silver',
      tier_key: 'silver',
      live: 1,
      past_due: 0,
      cancel_at_period_end: 0,
    },
    { product_id: null, name: null, tier_key: null, live: 1, past_due: 0, cancel_at_period_end: 0 },
  ],
  // usd: 999 × 2 + 10000 / 12 × 2 = 3664.67, rounded once (rounding each yearly share would give 3664).
  mrr: [
    { currency: 'eur', amount: 500 },
    { currency: 'usd', amount: 3665 },
  ],
  mrr_unpriced: 1,
};
// 1813 from January and the grant before it, + 200 bought − 100 clawed back + 50 granted today.
const OUTSTANDING = 1963;

describe('GET /v1/admin/billing/overview', () => {
  it('200 by day: per-currency revenue, every bucket of [from, to) in UTC, subscriptions and credits', async () => {
    const response = await overview(`?from=${FROM}&to=${TO}`);
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json();
    expect(body.range).toEqual({ from: FROM, to: TO, interval: 'day' });
    expect(body.revenue.by_currency).toEqual([money('eur', 750, 0, 2, 0), money('usd', 1900, 1800, 3, 2)]);
    expect(body.revenue.by_period).toEqual([
      bucket(jan(1, '00:00:00.000'), 'eur', 0, 0, 0, 0),
      bucket(jan(1, '00:00:00.000'), 'usd', 1500, 0, 2, 0),
      bucket(jan(2, '00:00:00.000'), 'eur', 50, 0, 1, 0),
      bucket(jan(2, '00:00:00.000'), 'usd', 0, 800, 0, 1),
      bucket(jan(3, '00:00:00.000'), 'eur', 700, 0, 1, 0),
      bucket(jan(3, '00:00:00.000'), 'usd', 0, 0, 0, 0),
      bucket(jan(4, '00:00:00.000'), 'eur', 0, 0, 0, 0),
      bucket(jan(4, '00:00:00.000'), 'usd', 0, 0, 0, 0),
      bucket(jan(5, '00:00:00.000'), 'eur', 0, 0, 0, 0),
      bucket(jan(5, '00:00:00.000'), 'usd', 0, 1000, 0, 1),
      bucket(jan(6, '00:00:00.000'), 'eur', 0, 0, 0, 0),
      bucket(jan(6, '00:00:00.000'), 'usd', 0, 0, 0, 0),
      bucket(jan(7, '00:00:00.000'), 'eur', 0, 0, 0, 0),
      bucket(jan(7, '00:00:00.000'), 'usd', 400, 0, 1, 0),
    ]);
    expect(body.revenue.by_period.find((row: { net: number }) => row.net < 0)).toMatchObject({
      currency: 'usd',
      net: -800,
    });
    expect(body.subscriptions).toEqual({ ...subscriptionsNow, started: 3, canceled: 2 });
    expect(body.subscriptions.active_by_plan.map((plan: { product_id: string | null }) => plan.product_id)).toEqual([
      plans.monthly,
      plans.yearly,
      plans.silver,
      null,
    ]);
    expect(body.credits).toEqual({
      issued: 1250,
      purchased: 1000,
      granted: 200,
      gifted: 50,
      spent: 300,
      expired: 20,
      clawed_back: 100,
      adjusted: -15,
      outstanding: OUTSTANDING,
    });
  });

  it('200 by week: ISO weeks (Monday) in UTC, the first one cut by `from`', async () => {
    const response = await overview(`?from=${FROM}&to=${TO}&interval=week`);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json().range).toEqual({ from: FROM, to: TO, interval: 'week' });
    expect(response.json().revenue.by_period).toEqual([
      bucket('2025-12-29T00:00:00.000Z', 'eur', 750, 0, 2, 0),
      bucket('2025-12-29T00:00:00.000Z', 'usd', 1500, 800, 2, 1),
      bucket('2026-01-05T00:00:00.000Z', 'eur', 0, 0, 0, 0),
      bucket('2026-01-05T00:00:00.000Z', 'usd', 400, 1000, 1, 1),
    ]);
  });

  it('200 by month: December holds the payment, January its refund', async () => {
    const response = await overview(`?from=2025-12-15T00:00:00Z&to=${TO}&interval=month`);
    expect(response.statusCode, response.body).toBe(200);
    const { revenue } = response.json();
    expect(revenue.by_currency).toEqual([money('eur', 750, 0, 2, 0), money('usd', 3900, 1900, 4, 3)]);
    expect(revenue.by_period).toEqual([
      bucket('2025-12-01T00:00:00.000Z', 'eur', 0, 0, 0, 0),
      bucket('2025-12-01T00:00:00.000Z', 'usd', 2000, 100, 1, 1),
      bucket(jan(1, '00:00:00.000'), 'eur', 750, 0, 2, 0),
      bucket(jan(1, '00:00:00.000'), 'usd', 1900, 1800, 3, 2),
    ]);
    expect(response.json().credits).toMatchObject({ granted: 1199, issued: 2249 });
  });

  it('200 with defaults: the last 30 days to now by day, holding what was bought, refunded and granted today', async () => {
    const before = Date.now();
    const response = await overview();
    const after = Date.now();
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json();
    const to = Date.parse(body.range.to);
    expect(to).toBeGreaterThanOrEqual(before);
    expect(to).toBeLessThanOrEqual(after);
    expect(Date.parse(body.range.from)).toBe(to - 30 * 86_400_000);
    expect(body.range.interval).toBe('day');
    // A pack of 998 (half refunded) and a plan's first invoice of 999.
    expect(body.revenue.by_currency).toEqual([money('usd', 1997, 499, 2, 1)]);
    // 31 days touched, the first and the last in part; only today's holds anything.
    expect(body.revenue.by_period).toHaveLength(31);
    const todayStart = new Date(Math.floor(to / 86_400_000) * 86_400_000).toISOString();
    expect(
      body.revenue.by_period.filter(
        (row: { gross: number; refunded: number }) => row.gross !== 0 || row.refunded !== 0,
      ),
    ).toEqual([bucket(todayStart, 'usd', 1997, 499, 2, 1)]);
    expect(body.subscriptions).toEqual({ ...subscriptionsNow, started: 1, canceled: 0 });
    expect(body.credits).toEqual({
      issued: 250,
      purchased: 200,
      granted: 50,
      gifted: 0,
      spent: 0,
      expired: 0,
      clawed_back: 100,
      adjusted: 0,
      outstanding: OUTSTANDING,
    });
  });

  it('200 with only `to`: from is 30 days earlier; an empty range answers empty lists and zeros', async () => {
    const response = await overview('?to=2020-03-01T00:00:00Z&interval=month');
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json();
    expect(body.range).toEqual({ from: '2020-01-31T00:00:00.000Z', to: '2020-03-01T00:00:00.000Z', interval: 'month' });
    expect(body.revenue).toEqual({ by_currency: [], by_period: [] });
    expect(body.subscriptions).toEqual({ ...subscriptionsNow, started: 0, canceled: 0 });
    expect(body.credits).toEqual({
      issued: 0,
      purchased: 0,
      granted: 0,
      gifted: 0,
      spent: 0,
      expired: 0,
      clawed_back: 0,
      adjusted: 0,
      outstanding: OUTSTANDING,
    });
  });

  it('200 at the limits: 400 days by day, 731 days by month', async () => {
    expect(
      (await overview('?from=2025-01-01T00:00:00Z&to=2026-02-05T00:00:00Z')).json().revenue.by_period,
    ).toHaveLength(400 * 2);
    const twoYears = await overview('?from=2024-01-01T00:00:00Z&to=2026-01-01T00:00:00Z&interval=month');
    expect(twoYears.statusCode, twoYears.body).toBe(200);
    expect(twoYears.json().revenue.by_currency).toEqual([money('usd', 2000, 100, 1, 1)]);
  });

  it.each([
    ['from equal to to', `?from=${FROM}&to=${FROM}`, { reason: '`from` must be before `to`', from: FROM, to: FROM }],
    ['from after to', `?from=${TO}&to=${FROM}`, { reason: '`from` must be before `to`', from: TO, to: FROM }],
    [
      'only from, in the future',
      '?from=2999-01-01T00:00:00Z',
      expect.objectContaining({ reason: '`from` must be before `to`', from: '2999-01-01T00:00:00.000Z' }),
    ],
    [
      'a range over 731 days',
      '?from=2024-01-01T00:00:00Z&to=2026-01-01T00:00:00.001Z&interval=month',
      {
        reason: 'the range may span at most 731 days',
        from: '2024-01-01T00:00:00.000Z',
        to: '2026-01-01T00:00:00.001Z',
        max_days: 731,
      },
    ],
    [
      '401 days by day',
      '?from=2025-01-01T00:00:00Z&to=2026-02-05T00:00:00.001Z',
      {
        reason: 'the range holds more than 400 periods of a day; pick a wider interval or a shorter range',
        interval: 'day',
        periods: 401,
        max_periods: 400,
      },
    ],
  ])('422 invalid_request: %s', async (_case, query, details) => {
    const response = await overview(query);
    expect({ status: response.statusCode, body: response.json() }).toEqual({
      status: 422,
      body: { error: 'invalid_request', details },
    });
  });

  it.each([
    ['interval', '?interval=hour'],
    ['from', '?from=yesterday'],
    ['to', '?to=2026-01-08'],
  ])('400 SchemaError on a bad %s', async (field, query) => {
    const response = await overview(query);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual(schemaError({ path: [field] }));
  });

  it('401 without a token, 403 without billing.read', async () => {
    const anonymous = await overview('', null);
    expect({ status: anonymous.statusCode, body: anonymous.json() }).toEqual({
      status: 401,
      body: { error: 'missing_token' },
    });
    for (const user of [writerOnly, await createUser(t.db)]) {
      const refused = await overview('', user);
      expect({ status: refused.statusCode, body: refused.json() }).toEqual({
        status: 403,
        body: { error: 'forbidden', details: { perm: 'billing.read' } },
      });
    }
  });
});
