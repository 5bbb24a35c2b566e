import { randomUUID } from 'node:crypto';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PaymentEvent } from '../../../../src/adapters/payments/index.js';
import type { LocalPaymentProvider } from '../../../../src/adapters/payments/local.js';
import { Fulfilment } from '../../../../src/modules/billing/checkout/fulfilment.js';
import { createUser, startTestApp, type TestApp, type TestUser } from '../../../helpers/app.js';
import { recordCheckout } from '../../../helpers/checkouts.js';

/**
 * Fulfilment of provider events: the local checkout page paid over HTTP (pack → credits, plan →
 * subscription and tier), exactly once under replays, out-of-order subscription events, the
 * Stripe webhook's signature checks, and the player's own billing views.
 */

let t: TestApp;
const ids: Record<string, string> = {};
const urls = { successUrl: 'https://game.example/done', cancelUrl: 'https://game.example/cancel' };

beforeAll(async () => {
  t = await startTestApp();
  const staff = await createUser(t.db, ['plans.write']);
  const ruleset = await t.db
    .insertInto('plan_rulesets')
    .values({ key: 'ful-rules', name: 'Rules', description: null, limits: '{}', is_active: true, updated_by: null })
    .returning('id')
    .executeTakeFirstOrThrow();
  await t.db
    .insertInto('plan_tiers')
    .values({ key: 'gold', name: 'Gold', rank: 2, ruleset_id: ruleset.id, description: null, updated_by: null })
    .execute();
  for (const [key, product, price] of [
    [
      'pack',
      { kind: 'credit_pack', name: 'Pack <of> 100', credits: 100 },
      { providerPriceId: 'price_pack', currency: 'usd', unitAmount: 499 },
    ],
    [
      'plan',
      { kind: 'plan', name: 'Gold plan', tierKey: 'gold' },
      { providerPriceId: 'price_plan', currency: 'usd', unitAmount: 999, interval: 'month' },
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

const local = () => t.kernel.payments as LocalPaymentProvider;

async function startCheckout(player: TestUser, payload: object): Promise<string> {
  const response = await t.request({
    method: 'POST',
    url: '/v1/me/billing/checkout-session',
    token: player.token,
    payload: { ...urls, ...payload },
  });
  expect(response.statusCode, response.body).toBe(200);
  return response.json().id;
}

const pay = (id: string) =>
  t.request({
    method: 'POST',
    url: `/v1/public/billing/local/checkout/${id}/pay`,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: '',
  });
const billing = (player: TestUser) => t.request({ method: 'GET', url: '/v1/me/billing', token: player.token });
const ledgerOf = (userId: string) =>
  t.db
    .selectFrom('credit_ledger')
    .select(['amount', 'kind', 'reference_type', 'reference_id'])
    .where('user_id', '=', userId)
    .execute();

describe('the local checkout page', () => {
  it('shows the product and amount with Pay and Cancel forms; an unknown id is 404', async () => {
    const player = await createUser(t.db);
    const id = await startCheckout(player, { priceId: 'price_pack', quantity: 2 });
    const page = await t.request({ method: 'GET', url: `/v1/public/billing/local/checkout/${id}` });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toContain('text/html');
    expect(page.body).toContain('2 × Pack &lt;of&gt; 100');
    expect(page.body).toContain('$9.98');
    expect(page.body).toContain(`action="/v1/public/billing/local/checkout/${id}/pay"`);
    expect(page.body).toContain(`action="/v1/public/billing/local/checkout/${id}/cancel"`);
    expect((await t.request({ method: 'GET', url: '/v1/public/billing/local/checkout/cs_nope' })).statusCode).toBe(404);
  });

  it('paying a pack (quantity 3) adds 300 credits once, records the payment, and sends the player to the success URL; paying again adds nothing', async () => {
    const player = await createUser(t.db);
    const id = await startCheckout(player, { priceId: 'price_pack', quantity: 3 });
    const paid = await pay(id);
    expect(paid.statusCode).toBe(303);
    expect(paid.headers.location).toBe(urls.successUrl);
    const again = await pay(id);
    expect(again.statusCode).toBe(303);
    expect(again.headers.location).toBe(urls.successUrl);
    const payments = await t.db.selectFrom('billing_payments').selectAll().where('user_id', '=', player.id).execute();
    expect(payments).toMatchObject([
      {
        kind: 'credit_pack',
        quantity: 3,
        credits: 300,
        currency: 'usd',
        product_id: ids.pack,
        amount_refunded: 0,
        status: 'succeeded',
      },
    ]);
    expect(Number(payments[0]!.amount)).toBe(1497);
    expect(await ledgerOf(player.id)).toEqual([
      { amount: 300, kind: 'purchase', reference_type: 'payment', reference_id: payments[0]!.id },
    ]);
    expect(
      await t.db
        .selectFrom('billing_checkout_sessions')
        .select('status')
        .where('provider_checkout_id', '=', id)
        .executeTakeFirst(),
    ).toEqual({ status: 'completed' });
    expect((await billing(player)).json()).toMatchObject({ credit_balance: 300, subscription: null, tier: null });
    expect(
      t.events.filter((e) => e.name === 'billing.credits_purchased' && e.payload.user_id === player.id),
    ).toHaveLength(1);
  });

  it('paying a plan makes an active subscription and gives its tier; /v1/me/billing shows both; the invoice is listed', async () => {
    const player = await createUser(t.db);
    const id = await startCheckout(player, { productId: ids.plan });
    expect((await pay(id)).headers.location).toBe(urls.successUrl);
    const view = (await billing(player)).json();
    const customer = await t.db
      .selectFrom('billing_customers')
      .select('provider_customer_id')
      .where('user_id', '=', player.id)
      .executeTakeFirstOrThrow();
    expect(view).toMatchObject({
      provider: 'local',
      customer_id: customer.provider_customer_id,
      tier: 'gold',
      credit_balance: 0,
      subscription: {
        status: 'active',
        product_id: ids.plan,
        product_name: 'Gold plan',
        tier_key: 'gold',
        provider_price_id: 'price_plan',
        cancel_at_period_end: false,
      },
    });
    expect(view.subscription.current_period_end).not.toBeNull();
    const invoices = (await t.request({ method: 'GET', url: '/v1/me/billing/invoices', token: player.token })).json();
    expect(invoices.data).toMatchObject([{ status: 'paid', amount_paid: 999, currency: 'usd' }]);
    expect(invoices.meta).toEqual({ page: 1, per_page: 25, total: 1 });
    expect(
      await t.db.selectFrom('billing_payments').select(['kind', 'amount']).where('user_id', '=', player.id).execute(),
    ).toEqual([{ kind: 'subscription', amount: expect.anything() }]);
  });

  it('cancelling expires the checkout, sends the player to the cancel URL, and fulfils nothing', async () => {
    const player = await createUser(t.db);
    const id = await startCheckout(player, { priceId: 'price_pack' });
    const cancelled = await t.request({
      method: 'POST',
      url: `/v1/public/billing/local/checkout/${id}/cancel`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: '',
    });
    expect(cancelled.statusCode).toBe(303);
    expect(cancelled.headers.location).toBe(urls.cancelUrl);
    expect((await pay(id)).headers.location).toBe(urls.cancelUrl);
    expect(await ledgerOf(player.id)).toEqual([]);
    expect(
      await t.db
        .selectFrom('billing_checkout_sessions')
        .select('status')
        .where('provider_checkout_id', '=', id)
        .executeTakeFirst(),
    ).toEqual({ status: 'expired' });
  });
});

describe('processPaymentEvent', () => {
  const fulfilment = () => new Fulfilment(t.kernel.write, 'local', t.kernel.log);

  it('a replayed event id is a no-op: credits added once', async () => {
    const player = await createUser(t.db);
    const id = await startCheckout(player, { priceId: 'price_pack', quantity: 2 });
    const events = local().payCheckout(id);
    for (const event of events) expect(await fulfilment().process(event)).toBe('processed');
    for (const event of events) expect(await fulfilment().process(event)).toBe('duplicate');
    // The same payment under a new event id (Stripe's async_payment_succeeded after completed) adds nothing either.
    const completed = events.find((e) => e.type === 'checkout.completed')!;
    expect(await fulfilment().process({ ...completed, eventId: `evt_${randomUUID()}` })).toBe('processed');
    expect(await ledgerOf(player.id)).toMatchObject([{ amount: 200 }]);
  });

  it('out-of-order subscription events never roll state back; deleted clears the tier', async () => {
    const player = await createUser(t.db);
    const id = await startCheckout(player, { productId: ids.plan });
    for (const event of local().payCheckout(id)) await fulfilment().process(event);
    const row = await t.db
      .selectFrom('billing_subscriptions')
      .selectAll()
      .where('user_id', '=', player.id)
      .executeTakeFirstOrThrow();
    const base = {
      id: row.provider_subscription_id,
      customerId: row.provider_customer_id!,
      providerPriceId: 'price_plan',
      currentPeriodEnd: '2031-01-01T00:00:00.000Z',
      canceledAt: null,
      metadata: { user_id: player.id },
    };
    const at = (iso: string) => ({ eventId: `evt_${randomUUID()}`, occurredAt: iso });
    const later = new Date(Date.now() + 60_000).toISOString();
    const earlier = new Date(Date.now() - 60 * 60_000).toISOString();
    await fulfilment().process({
      type: 'subscription.updated',
      ...at(later),
      subscription: { ...base, status: 'active', cancelAtPeriodEnd: true },
    });
    await fulfilment().process({
      type: 'subscription.updated',
      ...at(earlier),
      subscription: { ...base, status: 'past_due', cancelAtPeriodEnd: false },
    });
    expect(
      await t.db
        .selectFrom('billing_subscriptions')
        .select(['status', 'cancel_at_period_end'])
        .where('id', '=', row.id)
        .executeTakeFirst(),
    ).toEqual({ status: 'active', cancel_at_period_end: true });
    const end = new Date(Date.now() + 120_000).toISOString();
    await fulfilment().process({
      type: 'subscription.deleted',
      ...at(end),
      subscription: { ...base, status: 'canceled', cancelAtPeriodEnd: true },
    });
    // A late update stamped the same second as the deletion does not revive it.
    await fulfilment().process({
      type: 'subscription.updated',
      ...at(end),
      subscription: { ...base, status: 'active', cancelAtPeriodEnd: false },
    });
    expect(
      await t.db.selectFrom('billing_subscriptions').select('status').where('id', '=', row.id).executeTakeFirst(),
    ).toEqual({ status: 'canceled' });
    expect((await billing(player)).json()).toMatchObject({ tier: null, subscription: null });
  });

  it("an update naming a price the catalog does not know keeps the subscription's product and the tier", async () => {
    const player = await createUser(t.db);
    const id = await startCheckout(player, { productId: ids.plan });
    for (const event of local().payCheckout(id)) await fulfilment().process(event);
    const row = await t.db
      .selectFrom('billing_subscriptions')
      .selectAll()
      .where('user_id', '=', player.id)
      .executeTakeFirstOrThrow();
    await fulfilment().process({
      type: 'subscription.updated',
      eventId: `evt_${randomUUID()}`,
      occurredAt: new Date(Date.now() + 60_000).toISOString(),
      subscription: {
        id: row.provider_subscription_id,
        customerId: row.provider_customer_id!,
        providerPriceId: 'price_made_by_hand',
        status: 'active',
        cancelAtPeriodEnd: false,
        currentPeriodEnd: null,
        canceledAt: null,
        metadata: {},
      },
    });
    expect(
      await t.db
        .selectFrom('billing_subscriptions')
        .select(['product_id', 'provider_price_id'])
        .where('id', '=', row.id)
        .executeTakeFirst(),
    ).toEqual({ product_id: ids.plan, provider_price_id: 'price_made_by_hand' });
    expect((await billing(player)).json()).toMatchObject({ tier: 'gold' });
  });

  it('charge.refunded records the refunded amount, never lowering it on an older event', async () => {
    const player = await createUser(t.db);
    const id = await startCheckout(player, { priceId: 'price_pack' });
    for (const event of local().payCheckout(id)) await fulfilment().process(event);
    const payment = await t.db
      .selectFrom('billing_payments')
      .select(['id', 'provider_payment_id'])
      .where('user_id', '=', player.id)
      .executeTakeFirstOrThrow();
    const refund = (amount: number): PaymentEvent => ({
      type: 'charge.refunded',
      eventId: `evt_${randomUUID()}`,
      occurredAt: new Date().toISOString(),
      paymentId: payment.provider_payment_id,
      amountRefunded: amount,
      currency: 'usd',
    });
    await fulfilment().process(refund(200));
    await fulfilment().process(refund(100));
    expect(
      await t.db
        .selectFrom('billing_payments')
        .select(['amount_refunded', 'status'])
        .where('id', '=', payment.id)
        .executeTakeFirst(),
    ).toEqual({ amount_refunded: expect.anything(), status: 'partially_refunded' });
    expect(
      Number(
        (
          await t.db
            .selectFrom('billing_payments')
            .select('amount_refunded')
            .where('id', '=', payment.id)
            .executeTakeFirstOrThrow()
        ).amount_refunded,
      ),
    ).toBe(200);
    await fulfilment().process(refund(499));
    expect(
      await t.db.selectFrom('billing_payments').select('status').where('id', '=', payment.id).executeTakeFirst(),
    ).toEqual({ status: 'refunded' });
  });
});

describe('a user only sees their own billing', () => {
  it("another player's purchase, subscription and invoices stay out of my views", async () => {
    const buyer = await createUser(t.db);
    const other = await createUser(t.db);
    await pay(await startCheckout(buyer, { productId: ids.plan }));
    await pay(await startCheckout(buyer, { priceId: 'price_pack' }));
    expect((await billing(other)).json()).toEqual({
      provider: 'local',
      customer_id: null,
      subscription: null,
      tier: null,
      credit_balance: 0,
    });
    expect(
      (await t.request({ method: 'GET', url: '/v1/me/billing/invoices', token: other.token })).json().data,
    ).toEqual([]);
    expect(
      (await t.request({ method: 'GET', url: '/v1/me/billing/invoices', token: buyer.token })).json().data,
    ).toHaveLength(1);
  });
});

describe('POST /v1/me/billing/portal-session', () => {
  it('makes the customer when missing, reuses it after, and answers the portal URL; a bad return_url is 400 with nothing stored', async () => {
    const player = await createUser(t.db);
    const bad = await t.request({
      method: 'POST',
      url: '/v1/me/billing/portal-session',
      token: player.token,
      payload: { return_url: 'javascript:alert(1)' },
    });
    expect({ status: bad.statusCode, name: bad.json().error.name }).toEqual({ status: 400, name: 'SchemaError' });
    expect(await t.db.selectFrom('billing_customers').selectAll().where('user_id', '=', player.id).execute()).toEqual(
      [],
    );
    const first = await t.request({
      method: 'POST',
      url: '/v1/me/billing/portal-session',
      token: player.token,
      payload: { return_url: 'https://game.example/account' },
    });
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json().url).toBe(
      'http://platform.test/v1/public/billing/local/portal?return_url=https%3A%2F%2Fgame.example%2Faccount',
    );
    await t.request({
      method: 'POST',
      url: '/v1/me/billing/portal-session',
      token: player.token,
      payload: { return_url: 'https://game.example/account' },
    });
    expect(
      await t.db.selectFrom('billing_customers').selectAll().where('user_id', '=', player.id).execute(),
    ).toHaveLength(1);
  });
});

describe('POST /v1/webhooks/stripe', () => {
  const secret = 'whsec_billing_fulfilment';
  let s: TestApp;
  let player: TestUser;
  beforeAll(async () => {
    // The webhook path makes no outbound call: the API base is a closed port.
    s = await startTestApp({
      config: {
        stripeSecretKey: 'sk_test_fulfilment',
        stripeWebhookSecret: secret,
        stripeApiBase: 'http://127.0.0.1:9',
      },
    });
    const staff = await createUser(s.db, ['plans.write']);
    const made = await s.request({
      method: 'POST',
      url: '/v1/admin/plans/products',
      token: staff.token,
      payload: { kind: 'credit_pack', name: 'Pack', credits: 50 },
    });
    ids.stripePack = made.json().id;
    await s.request({
      method: 'POST',
      url: `/v1/admin/plans/products/${ids.stripePack}/prices`,
      token: staff.token,
      payload: { providerPriceId: 'price_s_pack', currency: 'usd', unitAmount: 300 },
    });
    player = await createUser(s.db);
  });
  afterAll(async () => {
    await s.close();
  });

  const completed = (checkoutId = `cs_${randomUUID().replaceAll('-', '')}`) =>
    JSON.stringify({
      id: `evt_${randomUUID().replaceAll('-', '')}`,
      object: 'event',
      type: 'checkout.session.completed',
      created: Math.floor(Date.now() / 1000),
      api_version: '2026-10-28.endive',
      data: {
        object: {
          id: checkoutId,
          object: 'checkout.session',
          mode: 'payment',
          payment_status: 'paid',
          customer: 'cus_s1',
          payment_intent: 'pi_s1',
          subscription: null,
          amount_total: 600,
          currency: 'usd',
          metadata: {
            user_id: player.id,
            product_id: ids.stripePack,
            price_id: 'price_s_pack',
            quantity: '2',
            credits: '50',
          },
        },
      },
    });
  const deliver = (payload: string, header: string | undefined) =>
    s.request({
      method: 'POST',
      url: '/v1/webhooks/stripe',
      payload,
      headers: {
        'content-type': 'application/json; charset=utf-8',
        ...(header === undefined ? {} : { 'stripe-signature': header }),
      },
    });
  const sign = (payload: string, options: { secret?: string; timestamp?: number } = {}) =>
    Stripe.webhooks.generateTestHeaderString({
      payload,
      secret: options.secret ?? secret,
      ...(options.timestamp === undefined ? {} : { timestamp: options.timestamp }),
    });
  const stored = async () => ({
    events: await s.db.selectFrom('billing_webhook_events').select('event_id').execute(),
    ledger: await s.db.selectFrom('credit_ledger').select('amount').where('user_id', '=', player.id).execute(),
  });

  it.each([
    [
      'a tampered body',
      (p: string) => ({
        payload: p.replace('"amount_total": 600', '"amount_total":6').replace('600', '6000'),
        header: sign(p),
      }),
    ],
    ['the wrong secret', (p: string) => ({ payload: p, header: sign(p, { secret: 'whsec_other' }) })],
    ['no signature header', (p: string) => ({ payload: p, header: undefined })],
    [
      'a signature older than 5 minutes',
      (p: string) => ({ payload: p, header: sign(p, { timestamp: Math.floor(Date.now() / 1000) - 301 }) }),
    ],
  ])('%s → 400 invalid_signature, nothing stored', async (_name, make) => {
    const { payload, header } = make(completed());
    const response = await deliver(payload, header);
    expect(response.statusCode, response.body).toBe(400);
    expect(response.json()).toMatchObject({ error: 'invalid_signature' });
    expect(response.body).not.toContain(secret);
    expect(await stored()).toEqual({ events: [], ledger: [] });
  });

  it('a signed delivery fulfils once; its redelivery answers 200 and changes nothing', async () => {
    const payload = completed(
      await recordCheckout(s.db, {
        userId: player.id,
        provider: 'stripe',
        providerPriceId: 'price_s_pack',
        quantity: 2,
      }),
    );
    const first = await deliver(payload, sign(payload));
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json()).toEqual({ received: true });
    const again = await deliver(payload, sign(payload));
    expect(again.statusCode).toBe(200);
    const after = await stored();
    expect(after.events).toHaveLength(1);
    expect(after.ledger).toEqual([{ amount: 100 }]);
    expect(
      await s.db
        .selectFrom('billing_payments')
        .select(['provider', 'provider_payment_id', 'credits'])
        .where('user_id', '=', player.id)
        .execute(),
    ).toEqual([{ provider: 'stripe', provider_payment_id: 'pi_s1', credits: 100 }]);
  });
});
