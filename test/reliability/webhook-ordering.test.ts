import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalPaymentProvider } from '../../src/adapters/payments/local.js';
import { balanceOf } from '../../src/modules/billing/credits/ledger.js';
import { createUser, startTestApp, type TestApp, type TestUser } from '../helpers/app.js';
import { deliverStripeEvent, stripeEvent, type StripeTestEvent } from '../helpers/stripe-events.js';
import { recordCheckout } from '../helpers/checkouts.js';
import { expectConsistentCredits } from '../modules/billing/credits/fixtures.js';
import { RELIABILITY_FULL } from './fixtures.js';

/**
 * Payment provider events as Stripe really delivers them: several times, at once, and in any
 * order (a redelivery of an event that failed comes hours after the ones that followed it).
 * Whatever the order, the end state must be the one the events describe in effect order: each
 * payment fulfilled once, each refund recorded once with its clawback, no subscription or invoice
 * going back to an older state. Signed deliveries through `POST /v1/webhooks/stripe` on two
 * instances sharing the database (on PostgreSQL they really run at once), and the local
 * provider's checkout page paid many times at once.
 */

const WEBHOOK_SECRET = 'whsec_webhook_ordering';
/** How many times each event is delivered in the storms. */
const COPIES = RELIABILITY_FULL ? 6 : 3;
/** Purchases whose events are delivered shuffled and at once. */
const PURCHASES = RELIABILITY_FULL ? 12 : 4;

const apps: TestApp[] = [];
const ids: Record<string, string> = {};
let counter = 0;

const stripeConfig = {
  stripeSecretKey: 'sk_test_webhook_ordering',
  stripeWebhookSecret: WEBHOOK_SECRET,
  stripeApiBase: 'http://127.0.0.1:9',
};

beforeAll(async () => {
  // The webhook path makes no outbound call: the API base is a closed port.
  const first = await startTestApp({ config: stripeConfig });
  apps.push(
    first,
    await startTestApp({ database: await first.testDatabase!.openAnother({ pooled: true }), config: stripeConfig }),
  );
  const staff = await createUser(first.db, ['plans.write']);
  const ruleset = await first.db
    .insertInto('plan_rulesets')
    .values({ key: 'wo-rules', name: 'Rules', description: null, limits: '{}', is_active: true, updated_by: null })
    .returning('id')
    .executeTakeFirstOrThrow();
  await first.db
    .insertInto('plan_tiers')
    .values([
      { key: 'gold', name: 'Gold', rank: 2, ruleset_id: ruleset.id, description: null, updated_by: null },
      { key: 'silver', name: 'Silver', rank: 1, ruleset_id: ruleset.id, description: null, updated_by: null },
    ])
    .execute();
  for (const [key, product, price] of [
    [
      'pack',
      { kind: 'credit_pack', name: 'Pack of 100', credits: 100 },
      { providerPriceId: 'price_wo_pack', currency: 'usd', unitAmount: 1000 },
    ],
    [
      'gold',
      { kind: 'plan', name: 'Gold plan', tierKey: 'gold' },
      { providerPriceId: 'price_wo_gold', currency: 'usd', unitAmount: 2000, interval: 'month' },
    ],
    [
      'silver',
      { kind: 'plan', name: 'Silver plan', tierKey: 'silver' },
      { providerPriceId: 'price_wo_silver', currency: 'usd', unitAmount: 1000, interval: 'month' },
    ],
  ] as const) {
    const made = await first.request({
      method: 'POST',
      url: '/v1/admin/plans/products',
      token: staff.token,
      payload: product,
    });
    expect(made.statusCode, made.body).toBe(201);
    ids[key] = made.json().id;
    const priced = await first.request({
      method: 'POST',
      url: `/v1/admin/plans/products/${ids[key]}/prices`,
      token: staff.token,
      payload: price,
    });
    expect(priced.statusCode, priced.body).toBe(201);
  }
});
afterAll(async () => {
  for (const app of [...apps].reverse()) await app.close();
});

const db = () => apps[0]!.db;
const uid = (prefix: string) => `${prefix}_${randomBytes(8).toString('hex')}`;
const BASE = Math.floor(Date.now() / 1000);

const event = (type: string, object: object, created: number) => stripeEvent(type, object, { id: uid('evt'), created });

/** Posts one signed delivery, on the instance `counter` picks (both take deliveries). */
const deliver = (signed: StripeTestEvent) => deliverStripeEvent(apps[counter++ % apps.length]!, signed, WEBHOOK_SECRET);

function shuffled<T>(items: T[]): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy;
}

/** Every event `copies` times, shuffled, all at once; every delivery must be acknowledged with 200. */
async function storm(events: StripeTestEvent[], copies = COPIES): Promise<void> {
  const deliveries = shuffled(events.flatMap((e) => Array.from({ length: copies }, () => e)));
  const responses = await Promise.all(deliveries.map((e) => deliver(e)));
  expect(responses.filter((r) => r.statusCode !== 200).map((r) => `${r.statusCode} ${r.body}`)).toEqual([]);
}

/** One by one, in this order, each once. */
async function inOrder(events: StripeTestEvent[]): Promise<void> {
  for (const e of events) {
    const response = await deliver(e);
    expect(response.statusCode, response.body).toBe(200);
  }
}

async function customerFor(player: TestUser): Promise<string> {
  const customer = uid('cus');
  await db()
    .insertInto('billing_customers')
    .values({ user_id: player.id, provider: 'stripe', provider_customer_id: customer })
    .execute();
  return customer;
}

/** The player's checkout at this price, as operation 6 records it: its events name it. */
const checkoutOf = (player: TestUser, price: string, quantity?: number) =>
  recordCheckout(db(), {
    userId: player.id,
    provider: 'stripe',
    providerPriceId: price,
    ...(quantity === undefined ? {} : { quantity }),
  });

const checkoutCompleted = (
  o: {
    checkout: string;
    customer: string;
    player: TestUser;
    mode: 'payment' | 'subscription';
    intent?: string;
    subscription?: string;
    amount: number;
    product: string;
    price: string;
    quantity?: number;
  },
  created: number,
  type = 'checkout.session.completed',
) =>
  event(
    type,
    {
      id: o.checkout,
      object: 'checkout.session',
      mode: o.mode,
      payment_status: 'paid',
      customer: o.customer,
      payment_intent: o.intent ?? null,
      subscription: o.subscription ?? null,
      amount_total: o.amount,
      currency: 'usd',
      metadata: {
        user_id: o.player.id,
        product_id: o.product,
        price_id: o.price,
        ...(o.mode === 'payment' ? { quantity: String(o.quantity ?? 1), credits: '100' } : {}),
      },
    },
    created,
  );

const subscriptionEvent = (
  type: string,
  o: {
    id: string;
    customer: string;
    player: TestUser;
    status: string;
    price: string;
    cancelAtPeriodEnd?: boolean;
    periodEnd?: number;
  },
  created: number,
) =>
  event(
    type,
    {
      id: o.id,
      object: 'subscription',
      customer: o.customer,
      status: o.status,
      cancel_at_period_end: o.cancelAtPeriodEnd ?? false,
      canceled_at: o.status === 'canceled' ? created : null,
      metadata: { user_id: o.player.id },
      items: {
        data: [{ id: `si_${o.id}`, price: { id: o.price }, current_period_end: o.periodEnd ?? created + 30 * 86_400 }],
      },
    },
    created,
  );

const invoiceEvent = (
  type: string,
  o: { id: string; customer: string; subscription: string; status: string; amount: number },
  created: number,
) =>
  event(
    type,
    {
      id: o.id,
      object: 'invoice',
      customer: o.customer,
      status: o.status,
      currency: 'usd',
      amount_due: o.amount,
      amount_paid: o.status === 'paid' ? o.amount : 0,
      hosted_invoice_url: null,
      period_start: BASE,
      period_end: BASE,
      created: BASE,
      parent: { subscription_details: { subscription: o.subscription } },
      lines: { data: [{ period: { start: BASE, end: BASE + 30 * 86_400 } }] },
    },
    created,
  );

const invoicePaymentPaid = (o: { invoice: string; intent: string; amount: number }, created: number) =>
  event(
    'invoice_payment.paid',
    {
      id: uid('inpay'),
      object: 'invoice_payment',
      invoice: o.invoice,
      status: 'paid',
      amount_paid: o.amount,
      currency: 'usd',
      payment: { type: 'payment_intent', payment_intent: o.intent },
    },
    created,
  );

const chargeRefunded = (o: { intent: string; amount: number; refunded: number }, created: number) =>
  event(
    'charge.refunded',
    {
      id: uid('ch'),
      object: 'charge',
      amount: o.amount,
      amount_refunded: o.refunded,
      currency: 'usd',
      payment_intent: o.intent,
      refunded: o.refunded >= o.amount,
      status: 'succeeded',
    },
    created,
  );

const refundEvent = (
  type: string,
  o: { id: string; intent: string; amount: number; status?: string },
  created: number,
) =>
  event(
    type,
    {
      id: o.id,
      object: 'refund',
      amount: o.amount,
      currency: 'usd',
      payment_intent: o.intent,
      status: o.status ?? 'succeeded',
      metadata: {},
    },
    created,
  );

const paymentsOf = (player: TestUser) =>
  db().selectFrom('billing_payments').selectAll().where('user_id', '=', player.id).orderBy('created_at').execute();
const subscriptionOf = (provider_subscription_id: string) =>
  db()
    .selectFrom('billing_subscriptions')
    .selectAll()
    .where('provider_subscription_id', '=', provider_subscription_id)
    .executeTakeFirstOrThrow();
const tierOf = async (player: TestUser) =>
  (await db().selectFrom('users').select('tier').where('id', '=', player.id).executeTakeFirstOrThrow()).tier;

describe('one credit pack purchase', () => {
  it('its checkout delivered many times at once on two instances, and again as async_payment_succeeded under other ids: one payment, credits added once', async () => {
    const player = await createUser(db());
    const customer = await customerFor(player);
    const intent = uid('pi');
    const checkout = await checkoutOf(player, 'price_wo_pack', 2);
    const order = {
      checkout,
      customer,
      player,
      mode: 'payment' as const,
      intent,
      amount: 2000,
      product: ids.pack!,
      price: 'price_wo_pack',
      quantity: 2,
    };
    await storm(
      [checkoutCompleted(order, BASE), checkoutCompleted(order, BASE + 5, 'checkout.session.async_payment_succeeded')],
      COPIES * 2,
    );
    const payments = await paymentsOf(player);
    expect(payments.map((p) => [p.provider_payment_id, p.credits, p.status])).toEqual([[intent, 200, 'succeeded']]);
    expect(await expectConsistentCredits(db(), player.id)).toBe(200);
    const entries = await db()
      .selectFrom('credit_ledger')
      .select(['kind', 'amount'])
      .where('user_id', '=', player.id)
      .execute();
    expect(entries).toEqual([{ kind: 'purchase', amount: 200 }]);
  });

  it(`${PURCHASES} purchases, each refunded in part and then in full, every event ${COPIES} times, shuffled and at once: what the events describe, once`, async () => {
    const purchases = await Promise.all(
      Array.from({ length: PURCHASES }, async () => {
        const player = await createUser(db());
        const customer = await customerFor(player);
        const intent = uid('pi');
        const checkout = await checkoutOf(player, 'price_wo_pack');
        const events = [
          checkoutCompleted(
            {
              checkout,
              customer,
              player,
              mode: 'payment',
              intent,
              amount: 1000,
              product: ids.pack!,
              price: 'price_wo_pack',
            },
            BASE,
          ),
          // 250 back from the dashboard, then the rest: two refunds, their updates, the charge's running totals.
          refundEvent('refund.created', { id: uid('re'), intent, amount: 250 }, BASE + 60),
          chargeRefunded({ intent, amount: 1000, refunded: 250 }, BASE + 60),
          refundEvent('refund.created', { id: uid('re'), intent, amount: 750 }, BASE + 120),
          chargeRefunded({ intent, amount: 1000, refunded: 1000 }, BASE + 120),
        ];
        return { player, intent, events };
      }),
    );
    await storm(purchases.flatMap((p) => p.events));

    for (const { player, intent } of purchases) {
      const [payment, ...others] = await paymentsOf(player);
      expect(others).toEqual([]);
      expect({
        id: payment!.provider_payment_id,
        refunded: Number(payment!.amount_refunded),
        status: payment!.status,
      }).toEqual({ id: intent, refunded: 1000, status: 'refunded' });
      const refunds = await db()
        .selectFrom('billing_refunds')
        .select(['amount', 'credits_clawed_back', 'shortfall'])
        .where('payment_id', '=', payment!.id)
        .orderBy('amount')
        .execute();
      expect(refunds.map((r) => [Number(r.amount), r.credits_clawed_back, r.shortfall])).toEqual([
        [250, 25, 0],
        [750, 75, 0],
      ]);
      expect(await expectConsistentCredits(db(), player.id)).toBe(0);
    }
  });

  it('a refund reported before the payment it refunds (a checkout event redelivered late): recorded when the payment arrives, its credits taken back', async () => {
    const player = await createUser(db());
    const customer = await customerFor(player);
    const intent = uid('pi');
    const refundId = uid('re');
    const checkout = await checkoutOf(player, 'price_wo_pack');
    await inOrder([
      refundEvent('refund.created', { id: refundId, intent, amount: 400 }, BASE + 60),
      chargeRefunded({ intent, amount: 1000, refunded: 400 }, BASE + 60),
      refundEvent('refund.updated', { id: refundId, intent, amount: 400 }, BASE + 61),
      checkoutCompleted(
        {
          checkout,
          customer,
          player,
          mode: 'payment',
          intent,
          amount: 1000,
          product: ids.pack!,
          price: 'price_wo_pack',
        },
        BASE,
      ),
    ]);
    const [payment] = await paymentsOf(player);
    expect({ refunded: Number(payment!.amount_refunded), status: payment!.status }).toEqual({
      refunded: 400,
      status: 'partially_refunded',
    });
    const refunds = await db()
      .selectFrom('billing_refunds')
      .select(['provider_refund_id', 'amount', 'credits_clawed_back', 'source'])
      .where('payment_id', '=', payment!.id)
      .execute();
    expect(refunds.map((r) => [r.provider_refund_id, Number(r.amount), r.credits_clawed_back, r.source])).toEqual([
      [refundId, 400, 40, 'provider'],
    ]);
    expect(await expectConsistentCredits(db(), player.id)).toBe(60);
  });

  it('a refund that failed, reported before its payment, is never recorded', async () => {
    const player = await createUser(db());
    const customer = await customerFor(player);
    const intent = uid('pi');
    const refundId = uid('re');
    const checkout = await checkoutOf(player, 'price_wo_pack');
    await inOrder([
      refundEvent('refund.created', { id: refundId, intent, amount: 400, status: 'pending' }, BASE + 60),
      refundEvent('refund.updated', { id: refundId, intent, amount: 400, status: 'failed' }, BASE + 90),
      checkoutCompleted(
        {
          checkout,
          customer,
          player,
          mode: 'payment',
          intent,
          amount: 1000,
          product: ids.pack!,
          price: 'price_wo_pack',
        },
        BASE,
      ),
    ]);
    const [payment] = await paymentsOf(player);
    expect({ refunded: Number(payment!.amount_refunded), status: payment!.status }).toEqual({
      refunded: 0,
      status: 'succeeded',
    });
    expect(
      await db().selectFrom('billing_refunds').select('id').where('payment_id', '=', payment!.id).execute(),
    ).toEqual([]);
    expect(await balanceOf(db(), player.id)).toBe(100);
  });
});

describe('one subscription', () => {
  /** A plan bought at checkout: created (incomplete), paid, updated to active, then set to cancel at period end. */
  async function subscriptionStory() {
    const player = await createUser(db());
    const customer = await customerFor(player);
    const subscription = uid('sub');
    const invoice = uid('in');
    const intent = uid('pi');
    const sub = { id: subscription, customer, player, price: 'price_wo_gold' };
    const checkout = await checkoutOf(player, 'price_wo_gold');
    const events = {
      created: subscriptionEvent('customer.subscription.created', { ...sub, status: 'incomplete' }, BASE),
      invoicePaid: invoiceEvent(
        'invoice.paid',
        { id: invoice, customer, subscription, status: 'paid', amount: 2000 },
        BASE + 1,
      ),
      invoicePayment: invoicePaymentPaid({ invoice, intent, amount: 2000 }, BASE + 1),
      checkout: checkoutCompleted(
        {
          checkout,
          customer,
          player,
          mode: 'subscription',
          subscription,
          amount: 2000,
          product: ids.gold!,
          price: 'price_wo_gold',
        },
        BASE + 1,
      ),
      active: subscriptionEvent('customer.subscription.updated', { ...sub, status: 'active' }, BASE + 1),
      cancelling: subscriptionEvent(
        'customer.subscription.updated',
        { ...sub, status: 'active', cancelAtPeriodEnd: true },
        BASE + 300,
      ),
    };
    return { player, subscription, invoice, intent, events };
  }

  async function expectStoryEnd(story: Awaited<ReturnType<typeof subscriptionStory>>) {
    const row = await subscriptionOf(story.subscription);
    expect({
      status: row.status,
      cancel: row.cancel_at_period_end,
      product: row.product_id,
      user: row.user_id,
    }).toEqual({ status: 'active', cancel: true, product: ids.gold, user: story.player.id });
    expect(await tierOf(story.player)).toBe('gold');
    const invoice = await db()
      .selectFrom('billing_invoices')
      .select(['status', 'amount_paid'])
      .where('provider_invoice_id', '=', story.invoice)
      .executeTakeFirstOrThrow();
    expect({ status: invoice.status, paid: Number(invoice.amount_paid) }).toEqual({ status: 'paid', paid: 2000 });
    // The renewal payment is recorded once, with the plan it paid for, whichever of its events came first.
    const payments = await paymentsOf(story.player);
    expect(payments.map((p) => [p.provider_payment_id, p.kind, p.product_id, Number(p.amount)])).toEqual([
      [story.intent, 'subscription', ids.gold, 2000],
    ]);
  }

  it(`every event ${COPIES} times, shuffled and at once: the latest state, the tier, one invoice and one payment with its plan`, async () => {
    const stories = await Promise.all(Array.from({ length: PURCHASES }, () => subscriptionStory()));
    await storm(stories.flatMap((s) => Object.values(s.events)));
    for (const story of stories) await expectStoryEnd(story);
  });

  it('newest first, oldest last: nothing goes back', async () => {
    const story = await subscriptionStory();
    const { created, invoicePaid, invoicePayment, checkout, active, cancelling } = story.events;
    await inOrder([cancelling, active, invoicePayment, invoicePaid, checkout, created]);
    await expectStoryEnd(story);
  });

  it('created and updated stamped the same second, updated delivered first: the update stands', async () => {
    const player = await createUser(db());
    const customer = await customerFor(player);
    const sub = { id: uid('sub'), customer, player, price: 'price_wo_gold' };
    await inOrder([
      subscriptionEvent('customer.subscription.updated', { ...sub, status: 'active' }, BASE + 10),
      subscriptionEvent('customer.subscription.created', { ...sub, status: 'incomplete' }, BASE + 10),
    ]);
    expect((await subscriptionOf(sub.id)).status).toBe('active');
    expect(await tierOf(player)).toBe('gold');
  });

  it('deleted before created and updated (a lost and redelivered history): stays canceled, no tier', async () => {
    const player = await createUser(db());
    const customer = await customerFor(player);
    const sub = { id: uid('sub'), customer, player, price: 'price_wo_gold' };
    const checkout = await checkoutOf(player, 'price_wo_gold');
    await storm([
      subscriptionEvent('customer.subscription.deleted', { ...sub, status: 'canceled' }, BASE + 600),
      subscriptionEvent('customer.subscription.created', { ...sub, status: 'active' }, BASE),
      subscriptionEvent(
        'customer.subscription.updated',
        { ...sub, status: 'active', cancelAtPeriodEnd: true },
        BASE + 300,
      ),
      checkoutCompleted(
        {
          checkout,
          customer,
          player,
          mode: 'subscription',
          subscription: sub.id,
          amount: 2000,
          product: ids.gold!,
          price: 'price_wo_gold',
        },
        BASE,
      ),
    ]);
    expect((await subscriptionOf(sub.id)).status).toBe('canceled');
    expect(await tierOf(player)).toBeNull();
  });

  it('an invoice paid, then a failure stamped the same second delivered after it: stays paid', async () => {
    const player = await createUser(db());
    const customer = await customerFor(player);
    const subscription = uid('sub');
    const invoice = { id: uid('in'), customer, subscription, amount: 2000 };
    await inOrder([
      invoiceEvent('invoice.paid', { ...invoice, status: 'paid' }, BASE + 20),
      invoiceEvent('invoice.payment_failed', { ...invoice, status: 'open' }, BASE + 20),
    ]);
    const row = await db()
      .selectFrom('billing_invoices')
      .select(['status', 'amount_paid'])
      .where('provider_invoice_id', '=', invoice.id)
      .executeTakeFirstOrThrow();
    expect({ status: row.status, paid: Number(row.amount_paid) }).toEqual({ status: 'paid', paid: 2000 });
  });

  it("moving from one plan to another (the old one deleted, the new one created) at once, many times: the new plan's tier", async () => {
    const rounds = RELIABILITY_FULL ? 10 : 3;
    for (let round = 0; round < rounds; round++) {
      const player = await createUser(db());
      const customer = await customerFor(player);
      const gold = { id: uid('sub'), customer, player, price: 'price_wo_gold' };
      const silver = { id: uid('sub'), customer, player, price: 'price_wo_silver' };
      await inOrder([subscriptionEvent('customer.subscription.created', { ...gold, status: 'active' }, BASE)]);
      expect(await tierOf(player)).toBe('gold');
      await storm(
        [
          subscriptionEvent('customer.subscription.deleted', { ...gold, status: 'canceled' }, BASE + 100),
          subscriptionEvent('customer.subscription.created', { ...silver, status: 'active' }, BASE + 100),
        ],
        1,
      );
      expect(await tierOf(player)).toBe('silver');
    }
  });
});

describe("the local provider's checkout page", () => {
  it('paid many times at once: every request lands on the success page, the pack is credited once', async () => {
    const t = await startTestApp();
    try {
      const staff = await createUser(t.db, ['plans.write']);
      const made = await t.request({
        method: 'POST',
        url: '/v1/admin/plans/products',
        token: staff.token,
        payload: { kind: 'credit_pack', name: 'Local pack', credits: 30 },
      });
      await t.request({
        method: 'POST',
        url: `/v1/admin/plans/products/${made.json().id}/prices`,
        token: staff.token,
        payload: { providerPriceId: 'price_local_pack', currency: 'usd', unitAmount: 300 },
      });
      const player = await createUser(t.db);
      const checkout = await t.request({
        method: 'POST',
        url: '/v1/me/billing/checkout-session',
        token: player.token,
        payload: {
          priceId: 'price_local_pack',
          quantity: 2,
          successUrl: 'https://game.example/done',
          cancelUrl: 'https://game.example/cancel',
        },
      });
      expect(checkout.statusCode, checkout.body).toBe(200);
      const id = checkout.json().id as string;
      expect((t.kernel.payments as LocalPaymentProvider).checkout(id)?.status).toBe('open');
      const pays = await Promise.all(
        Array.from({ length: 10 }, () =>
          t.request({
            method: 'POST',
            url: `/v1/public/billing/local/checkout/${id}/pay`,
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
            payload: '',
          }),
        ),
      );
      expect(pays.map((r) => [r.statusCode, r.headers.location])).toEqual(
        pays.map(() => [303, 'https://game.example/done']),
      );
      expect(await expectConsistentCredits(t.db, player.id)).toBe(60);
      expect(
        await t.db.selectFrom('billing_payments').select('id').where('user_id', '=', player.id).execute(),
      ).toHaveLength(1);
    } finally {
      await t.close();
    }
  });
});
