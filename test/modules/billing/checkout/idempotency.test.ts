import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ProviderCheckoutInput } from '../../../../src/adapters/payments/index.js';
import { createUser, startTestApp, type TestApp, type TestUser } from '../../../helpers/app.js';
import { captureLog } from '../../../helpers/captured-log.js';
import { startStripeServer, type StripeServer } from '../../../helpers/stripe-server.js';

/**
 * Operation 6 (`POST /v1/me/billing/checkout-session`) with an `Idempotency-Key`, on the local
 * provider: a repeat answers the first checkout without asking the provider, another body under
 * the key is 409, keys belong to one player and replace the within-minutes provider key, and
 * repeats racing each other make one checkout: 50 at once on one instance, and 50 split over two
 * instances on one database and one (fake) Stripe, where the provider key and the key's unique
 * index decide.
 */

type Started = Awaited<ReturnType<typeof startTestApp>>;
let t: Started;
let planner: TestUser;

const url = '/v1/me/billing/checkout-session';
const urls = { successUrl: 'https://game.example/billing/done', cancelUrl: 'https://game.example/billing' };
const pack = { priceId: 'price_idem_pack', quantity: 2, ...urls };

beforeAll(async () => {
  t = await startTestApp();
  planner = await createUser(t.db, ['plans.write']);
  const product = await t.request({
    method: 'POST',
    url: '/v1/admin/plans/products',
    token: planner.token,
    payload: { kind: 'credit_pack', name: 'Pack of 100', credits: 100 },
  });
  expect(product.statusCode, product.body).toBe(201);
  const price = await t.request({
    method: 'POST',
    url: `/v1/admin/plans/products/${product.json().id}/prices`,
    token: planner.token,
    payload: { providerPriceId: 'price_idem_pack', currency: 'usd', unitAmount: 499 },
  });
  expect(price.statusCode, price.body).toBe(201);
});
afterAll(async () => {
  await t.close();
});
afterEach(() => {
  vi.restoreAllMocks();
});

const checkout = (app: TestApp, player: TestUser, payload: object, key?: string) =>
  app.request({
    method: 'POST',
    url,
    token: player.token,
    payload,
    ...(key === undefined ? {} : { headers: { 'idempotency-key': key } }),
  });

/** Watches the provider's createCheckout on `app`: the input of each call so far. */
function providerCalls(app: TestApp): () => ProviderCheckoutInput[] {
  const spy = vi.spyOn(app.kernel.payments, 'createCheckout');
  return () => spy.mock.calls.map(([input]) => input);
}

const sessionsOf = (userId: string) =>
  t.db
    .selectFrom('billing_checkout_sessions')
    .select(['provider_checkout_id', 'url', 'request_key', 'quantity', 'status'])
    .where('user_id', '=', userId)
    .orderBy('created_at')
    .execute();

describe('POST /v1/me/billing/checkout-session with an Idempotency-Key', () => {
  it('a repeat answers the first checkout (idempotent-replayed) without asking the provider; so does one after the checkout completed', async () => {
    const player = await createUser(t.db);
    const calls = providerCalls(t);
    const key = randomUUID();
    const first = await checkout(t, player, pack, key);
    expect(first.statusCode, first.body).toBe(200);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const { id, url: checkoutUrl } = first.json();
    expect(checkoutUrl).toBe(`http://platform.test/v1/public/billing/local/checkout/${id}`);
    expect(calls()).toHaveLength(1);
    // The provider's key names the player and the request (the key hashed, never as sent).
    expect(calls()[0]!.idempotencyKey).toMatch(new RegExp(`^checkout:${player.id}:request:[0-9a-f]{40}$`));
    expect(calls()[0]!.idempotencyKey).not.toContain(key);
    expect(await sessionsOf(player.id)).toEqual([
      { provider_checkout_id: id, url: checkoutUrl, request_key: key, quantity: 2, status: 'open' },
    ]);

    // The same body, its fields in another order.
    const repeat = await checkout(
      t,
      player,
      { cancelUrl: urls.cancelUrl, quantity: 2, successUrl: urls.successUrl, priceId: 'price_idem_pack' },
      key,
    );
    expect(repeat.statusCode).toBe(200);
    expect(repeat.headers['idempotent-replayed']).toBe('true');
    expect(repeat.json()).toEqual(first.json());
    expect(calls()).toHaveLength(1);
    expect(await sessionsOf(player.id)).toHaveLength(1);

    // The first answer stands even once the checkout is finished, and even if the price is withdrawn: a new purchase takes a new key.
    await t.db
      .updateTable('billing_checkout_sessions')
      .set({ status: 'completed', completed_at: new Date() })
      .where('provider_checkout_id', '=', id)
      .execute();
    await t.db
      .updateTable('billing_prices')
      .set({ is_active: false })
      .where('provider_price_id', '=', 'price_idem_pack')
      .execute();
    try {
      const late = await checkout(t, player, pack, key);
      expect({ status: late.statusCode, replayed: late.headers['idempotent-replayed'], body: late.json() }).toEqual({
        status: 200,
        replayed: 'true',
        body: first.json(),
      });
    } finally {
      await t.db
        .updateTable('billing_prices')
        .set({ is_active: true })
        .where('provider_price_id', '=', 'price_idem_pack')
        .execute();
    }
    expect(calls()).toHaveLength(1);
    expect(await sessionsOf(player.id)).toHaveLength(1);
  });

  it('409 conflict for another body under the same key; nothing stored, nothing asked of the provider', async () => {
    const player = await createUser(t.db);
    const key = randomUUID();
    const first = await checkout(t, player, pack, key);
    expect(first.statusCode).toBe(200);
    const calls = providerCalls(t);
    for (const changed of [
      { ...pack, quantity: 3 },
      { ...pack, successUrl: 'https://game.example/other' },
      { ...pack, promotionCode: 'SPRING' },
    ]) {
      const response = await checkout(t, player, changed, key);
      expect({ status: response.statusCode, body: response.json() }).toEqual({
        status: 409,
        body: {
          error: 'conflict',
          details: { reason: 'this idempotency key was already used for a different request' },
        },
      });
    }
    expect(calls()).toHaveLength(0);
    expect((await sessionsOf(player.id)).map((row) => row.provider_checkout_id)).toEqual([first.json().id]);
  });

  it("a key is one player's, and different keys are different checkouts (the key replaces the within-minutes rule)", async () => {
    const player = await createUser(t.db);
    const other = await createUser(t.db);
    const key = randomUUID();
    const mine = await checkout(t, player, pack, key);
    const theirs = await checkout(t, other, pack, key);
    expect(theirs.statusCode).toBe(200);
    expect(theirs.headers['idempotent-replayed']).toBeUndefined();
    expect(theirs.json().id).not.toBe(mine.json().id);

    const again = await checkout(t, player, pack, randomUUID());
    expect(again.statusCode).toBe(200);
    expect(again.headers['idempotent-replayed']).toBeUndefined();
    expect(again.json().id).not.toBe(mine.json().id);
    expect(await sessionsOf(player.id)).toHaveLength(2);
    expect(await sessionsOf(other.id)).toHaveLength(1);
  });

  it('50 repeats at once make one checkout: one provider call, one row, all answer alike', async () => {
    const player = await createUser(t.db);
    const calls = providerCalls(t);
    const key = randomUUID();
    const answers = await Promise.all(Array.from({ length: 50 }, () => checkout(t, player, pack, key)));
    expect(answers.map((answer) => answer.statusCode)).toEqual(Array(50).fill(200));
    expect(new Set(answers.map((answer) => answer.body)).size).toBe(1);
    expect(answers.filter((answer) => answer.headers['idempotent-replayed'] === undefined)).toHaveLength(1);
    expect(calls()).toHaveLength(1);
    expect((await sessionsOf(player.id)).map((row) => row.provider_checkout_id)).toEqual([answers[0]!.json().id]);
    expect(
      await t.db.selectFrom('billing_customers').select('user_id').where('user_id', '=', player.id).execute(),
    ).toHaveLength(1);
  });

  it('400 SchemaError for an empty or over-long key; nothing stored', async () => {
    const player = await createUser(t.db);
    for (const key of ['', 'k'.repeat(201)]) {
      const response = await checkout(t, player, pack, key);
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({
        success: false,
        error: { name: 'SchemaError', issues: [expect.objectContaining({ path: ['idempotency-key'] })] },
      });
    }
    expect(await sessionsOf(player.id)).toEqual([]);
  });
});

describe('two instances on one database and one Stripe', () => {
  const secretKey = 'sk_test_checkoutidempotency';
  const errors = captureLog();
  let stripe: StripeServer;
  let a: Started;
  let b: TestApp;
  let priceId: string;
  beforeAll(async () => {
    stripe = await startStripeServer({ secretKey });
    const config = {
      stripeSecretKey: secretKey,
      stripeWebhookSecret: 'whsec_checkoutidempotency',
      stripeApiBase: stripe.url,
    };
    // Errors are kept, so a rare failure under load says what it was.
    a = await startTestApp({ config, log: errors.log });
    b = await startTestApp({ config, database: await a.testDatabase!.openAnother(), log: errors.log });
    priceId = String(stripe.addPrice({ currency: 'usd', unitAmount: 499 }).id);
    const staff = await createUser(a.db, ['plans.write']);
    const product = await a.request({
      method: 'POST',
      url: '/v1/admin/plans/products',
      token: staff.token,
      payload: { kind: 'credit_pack', name: 'Pack', credits: 100 },
    });
    expect(product.statusCode, product.body).toBe(201);
    expect(
      (
        await a.request({
          method: 'POST',
          url: `/v1/admin/plans/products/${product.json().id}/prices`,
          token: staff.token,
          payload: { providerPriceId: priceId, currency: 'usd', unitAmount: 499 },
        })
      ).statusCode,
    ).toBe(201);
  });
  afterAll(async () => {
    await b.close();
    await a.close();
    await stripe.close();
  });

  it('50 repeats at once split over both: one checkout at Stripe, one row, every answer that checkout', async () => {
    // Each instance lets one of its repeats through; the other instance's (if it got that far)
    // reaches Stripe with the same key, then waits on the key's unique index and replays.
    const player = await createUser(a.db);
    const key = randomUUID();
    const payload = { priceId, ...urls };
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) => checkout(i % 2 === 0 ? a : b, player, payload, key)),
    );
    const logged = () =>
      errors
        .lines()
        .filter((line) => (JSON.parse(line) as { level: number }).level >= 40)
        .join('\n');
    expect(
      answers.map((answer) => answer.statusCode),
      logged(),
    ).toEqual(Array(50).fill(200));
    const rows = await a.db
      .selectFrom('billing_checkout_sessions')
      .select(['provider_checkout_id', 'url'])
      .where('user_id', '=', player.id)
      .execute();
    expect(rows).toHaveLength(1);
    expect(new Set(answers.map((answer) => answer.body))).toEqual(
      new Set([JSON.stringify({ url: rows[0]!.url, id: rows[0]!.provider_checkout_id })]),
    );
    expect(answers.filter((answer) => answer.headers['idempotent-replayed'] === undefined)).toHaveLength(1);
    const creates = stripe.requests.filter(
      (r) => r.method === 'POST' && r.path === '/v1/checkout/sessions' && r.form['metadata[user_id]'] === player.id,
    );
    expect(creates.length).toBeGreaterThanOrEqual(1);
    expect(creates.length).toBeLessThanOrEqual(2);
    expect(new Set(creates.map((r) => r.idempotencyKey))).toEqual(
      new Set([expect.stringMatching(new RegExp(`^checkout:${player.id}:request:`))]),
    );
    expect(
      [...stripe.checkoutSessions.values()].filter(
        (session) => (session.metadata as Record<string, string>).user_id === player.id,
      ),
    ).toHaveLength(1);
  });
});
