import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, startTestApp, type TestApp, type TestUser } from '../../helpers/app.js';

/**
 * The embedded default end to end, over real HTTP: a player buys a credit pack and a plan on the
 * local provider's checkout page (read as a browser would: the page's form posts), sees both in
 * GET /v1/me/billing, and staff refund the pack, cancel and resume the plan.
 */

let t: TestApp;
let base: string;
let staff: TestUser;
const urls = { successUrl: 'https://play.example.test/billing/done', cancelUrl: 'https://play.example.test/billing' };

beforeAll(async () => {
  t = await startTestApp();
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  staff = await createUser(t.db, ['plans.write', 'billing.read', 'billing.write']);
  const ruleset = await t.db
    .insertInto('plan_rulesets')
    .values({ key: 'e2e-rules', name: 'Rules', description: null, limits: '{}', is_active: true, updated_by: null })
    .returning('id')
    .executeTakeFirstOrThrow();
  await t.db
    .insertInto('plan_tiers')
    .values({ key: 'plus', name: 'Plus', rank: 1, ruleset_id: ruleset.id, description: null, updated_by: null })
    .execute();
  for (const [product, price] of [
    [
      { kind: 'credit_pack', name: 'Pack of 500', credits: 500 },
      { providerPriceId: 'price_e2e_pack', currency: 'usd', unitAmount: 999 },
    ],
    [
      { kind: 'plan', name: 'Plus', tierKey: 'plus' },
      { providerPriceId: 'price_e2e_plus', currency: 'usd', unitAmount: 1299, interval: 'month' },
    ],
  ] as const) {
    const made = await call('POST', '/v1/admin/plans/products', staff, product);
    expect(made.status).toBe(201);
    expect((await call('POST', `/v1/admin/plans/products/${(await json(made)).id}/prices`, staff, price)).status).toBe(
      201,
    );
  }
});
afterAll(async () => {
  await t.close();
});

/** A JSON body, loosely typed: the assertions say what it must hold. */
const json = async (response: Response | Promise<Response>): Promise<any> => (await response).json();

function call(method: string, path: string, user: TestUser | null, body?: unknown) {
  return fetch(`${base}${path}`, {
    method,
    headers: {
      ...(user ? { authorization: `Bearer ${user.token}` } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

/** Opens the checkout URL as a browser would and presses its Pay button; answers where the player is sent. */
async function payOnPage(checkoutUrl: string): Promise<string | null> {
  const page = await fetch(`${base}${new URL(checkoutUrl).pathname}`);
  expect(page.status).toBe(200);
  const html = await page.text();
  const action = /<form method="post" action="([^"]+\/pay)">/.exec(html)?.[1];
  expect(action).toBeDefined();
  const paid = await fetch(`${base}${action!}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: '',
    redirect: 'manual',
  });
  expect(paid.status).toBe(303);
  return paid.headers.get('location');
}

describe('a player on the embedded default', () => {
  it('buys a pack and a plan on the checkout page, sees both in /v1/me/billing; staff refund, cancel and resume', async () => {
    const player = await createUser(t.db);
    const pack = await call('POST', '/v1/me/billing/checkout-session', player, {
      ...urls,
      priceId: 'price_e2e_pack',
      quantity: 2,
    });
    expect(pack.status).toBe(200);
    expect(await payOnPage((await json(pack)).url)).toBe(urls.successUrl);
    const plan = await call('POST', '/v1/me/billing/checkout-session', player, { ...urls, priceId: 'price_e2e_plus' });
    expect(await payOnPage((await json(plan)).url)).toBe(urls.successUrl);

    const billing = await json(call('GET', '/v1/me/billing', player));
    expect(billing).toMatchObject({
      provider: 'local',
      customer_id: expect.stringMatching(/^cus_local_/),
      tier: 'plus',
      credit_balance: 1000,
      subscription: { status: 'active', product_name: 'Plus', tier_key: 'plus', cancel_at_period_end: false },
    });
    const invoices = await json(call('GET', '/v1/me/billing/invoices', player));
    expect(invoices.data).toMatchObject([{ status: 'paid', amount_paid: 1299, currency: 'usd' }]);

    const payments = await json(call('GET', `/v1/admin/billing/payments?user_id=${player.id}&kind=credit_pack`, staff));
    const refunded = await call('POST', `/v1/admin/billing/payments/${payments.data[0].id}/refund`, staff, {
      reason: 'Bought twice by mistake',
    });
    expect(await json(refunded)).toMatchObject({
      amount: 1998,
      credits_clawed_back: 1000,
      payment: { status: 'refunded' },
    });

    const subscription = (await json(call('GET', `/v1/admin/billing/subscriptions?user_id=${player.id}`, staff)))
      .data[0];
    expect(
      await json(
        call('POST', `/v1/admin/billing/subscriptions/${subscription.id}/cancel`, staff, {
          reason: 'Asked by the player',
        }),
      ),
    ).toMatchObject({ status: 'active', cancel_at_period_end: true });
    expect(
      await json(
        call('POST', `/v1/admin/billing/subscriptions/${subscription.id}/resume`, staff, {
          reason: 'Changed their mind',
        }),
      ),
    ).toMatchObject({ cancel_at_period_end: false });

    expect(await json(call('GET', '/v1/me/billing', player))).toMatchObject({
      tier: 'plus',
      credit_balance: 0,
      subscription: { status: 'active', cancel_at_period_end: false },
    });
  });
});
