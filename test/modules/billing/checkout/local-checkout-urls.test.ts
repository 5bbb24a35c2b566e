import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalPaymentProvider } from '../../../../src/adapters/payments/local.js';
import { createUser, startTestApp, type TestApp, type TestUser } from '../../../helpers/app.js';

/**
 * The local provider's pay page and the URLs it sends players to, over real HTTP. URLs are checked
 * when a checkout is made (test/security/url-fields.test.ts); a checkout stored before that check
 * may still hold one no Location header can carry. The page answered `500 See Other` with
 * Fastify's own body and no `x-request-id`, after the credits were granted: now it refuses such a
 * checkout before paying it, and nothing changes.
 */

let t: TestApp;
let base: string;
let player: TestUser;
const urls = { successUrl: 'https://game.example/done', cancelUrl: 'https://game.example/cancel' };

beforeAll(async () => {
  t = await startTestApp();
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  const staff = await createUser(t.db, ['plans.write']);
  const product = await t.request({
    method: 'POST',
    url: '/v1/admin/plans/products',
    token: staff.token,
    payload: { kind: 'credit_pack', name: 'Pack', credits: 100 },
  });
  const price = await t.request({
    method: 'POST',
    url: `/v1/admin/plans/products/${product.json().id}/prices`,
    token: staff.token,
    payload: { providerPriceId: 'price_page_urls', currency: 'usd', unitAmount: 100 },
  });
  expect(price.statusCode, price.body).toBe(201);
  player = await createUser(t.db);
});
afterAll(async () => {
  await t.close();
});

const provider = () => t.kernel.payments as LocalPaymentProvider;

/** A new player's checkout, then given the URL it would have kept before URLs were checked. */
async function checkoutStoredWith(
  field: 'successUrl' | 'cancelUrl',
  url: string,
): Promise<{ id: string; buyer: TestUser }> {
  const buyer = await createUser(t.db);
  const made = await t.request({
    method: 'POST',
    url: '/v1/me/billing/checkout-session',
    token: buyer.token,
    payload: { priceId: 'price_page_urls', ...urls },
  });
  expect(made.statusCode, made.body).toBe(200);
  const id: string = made.json().id;
  provider().checkout(id)![field] = url;
  await t.db
    .updateTable('billing_checkout_sessions')
    .set(field === 'successUrl' ? { success_url: url } : { cancel_url: url })
    .where('provider_checkout_id', '=', id)
    .execute();
  return { id, buyer };
}

/** The page's form post, as a browser sends it. */
const post = (path: string) =>
  fetch(`${base}${path}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: '',
  });

async function heldBy(buyer: TestUser, id: string) {
  return {
    ledger: await t.db.selectFrom('credit_ledger').select('amount').where('user_id', '=', buyer.id).execute(),
    payments: await t.db.selectFrom('billing_payments').select('id').where('user_id', '=', buyer.id).execute(),
    checkout: (
      await t.db
        .selectFrom('billing_checkout_sessions')
        .select('status')
        .where('provider_checkout_id', '=', id)
        .executeTakeFirstOrThrow()
    ).status,
    atProvider: provider().checkout(id)!.status,
  };
}

describe('a checkout stored with a URL no Location header can carry', () => {
  it.each([
    ['CR LF in the success URL', 'successUrl', 'https://game.example/done\r\nSet-Cookie: a=b'],
    ['U+2028 in the success URL', 'successUrl', 'https://game.example/done\u2028'],
    ['LF in the cancel URL', 'cancelUrl', 'https://game.example/cancel\n'],
  ] as const)(
    '%s: paying and cancelling answer 422 `invalid_state` through the error handler; nothing is paid or granted',
    async (_name, field, url) => {
      const { id, buyer } = await checkoutStoredWith(field, url);
      const before = await heldBy(buyer, id);
      expect(before).toEqual({ ledger: [], payments: [], checkout: 'open', atProvider: 'open' });
      for (const action of ['pay', 'cancel']) {
        const answer = await post(`/v1/public/billing/local/checkout/${id}/${action}`);
        expect({
          status: answer.status,
          statusText: answer.statusText,
          location: answer.headers.get('location'),
        }).toEqual({ status: 422, statusText: 'Unprocessable Entity', location: null });
        expect(answer.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
        expect(answer.headers.get('content-type')).toContain('application/json');
        expect(await answer.json()).toEqual({
          error: 'invalid_state',
          details: { field, reason: expect.stringContaining('start a new checkout') },
        });
      }
      expect(await heldBy(buyer, id)).toEqual(before);
    },
  );

  it('a checkout with good URLs is paid on the same page: 303 to its success URL, the credits granted once', async () => {
    const made = await t.request({
      method: 'POST',
      url: '/v1/me/billing/checkout-session',
      token: player.token,
      payload: { priceId: 'price_page_urls', quantity: 2, ...urls },
    });
    const id: string = made.json().id;
    const answer = await post(`/v1/public/billing/local/checkout/${id}/pay`);
    expect({ status: answer.status, location: answer.headers.get('location') }).toEqual({
      status: 303,
      location: urls.successUrl,
    });
    expect(answer.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(await heldBy(player, id)).toEqual({
      ledger: [{ amount: 200 }],
      payments: [expect.anything()],
      checkout: 'completed',
      atProvider: 'complete',
    });
  });
});

describe('the local provider itself', () => {
  it('refuses to make a checkout or a portal link to a URL it could not redirect to, as Stripe does (`url_invalid`)', async () => {
    const customer = (await provider().createCustomer({ userId: player.id, email: null, name: null })).id;
    const input = {
      customerId: customer,
      mode: 'payment' as const,
      providerPriceId: 'price_page_urls',
      quantity: 1,
      metadata: {},
      idempotencyKey: 'k-url-invalid',
      ...urls,
    };
    for (const bad of [
      { successUrl: 'https://game.example/\r\nx' },
      { cancelUrl: 'https://game.example/\u2028' },
      { successUrl: 'javascript:alert(1)' },
    ]) {
      await expect(provider().createCheckout({ ...input, ...bad })).rejects.toMatchObject({
        name: 'PaymentProviderError',
        kind: 'refused',
        code: 'url_invalid',
        status: 400,
      });
    }
    await expect(provider().createPortalSession(customer, 'https://game.example/\n')).rejects.toMatchObject({
      code: 'url_invalid',
    });
  });
});
