import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { balanceOf, spendCredits } from '../../../../src/modules/billing/credits/ledger.js';
import { createUser, startTestApp, type TestApp, type TestUser } from '../../../helpers/app.js';
import { auditOf, expectRefusedUnchanged, requestIdOf, schemaError } from '../../../helpers/expectations.js';
import { storedState } from '../../../helpers/stored-state.js';
import { startStripeServer, stripeError, type StripeServer } from '../../../helpers/stripe-server.js';

/**
 * Staff refunds of a payment: the provider refunds first, then the refund row, the payment's
 * running total and status, the pack's proportional credits clawed back (short what was already
 * spent) and the audit row land in one transaction. Every refusal leaves all of it untouched.
 */

type App = TestApp;
const urls = { successUrl: 'https://game.example/done', cancelUrl: 'https://game.example/cancel' };
const refundUrl = (id: string) => `/v1/admin/billing/payments/${id}/refund`;

let t: App;
let staff: TestUser;
let reader: TestUser;

beforeAll(async () => {
  t = await startTestApp();
  staff = await createUser(t.db, ['billing.read', 'billing.write']);
  reader = await createUser(t.db, ['billing.read']);
  const catalog = await createUser(t.db, ['plans.write']);
  const product = await t.request({
    method: 'POST',
    url: '/v1/admin/plans/products',
    token: catalog.token,
    payload: { kind: 'credit_pack', name: 'Pack of 100', credits: 100 },
  });
  expect(product.statusCode, product.body).toBe(201);
  const price = await t.request({
    method: 'POST',
    url: `/v1/admin/plans/products/${product.json().id}/prices`,
    token: catalog.token,
    payload: { providerPriceId: 'price_refund_pack', currency: 'usd', unitAmount: 499 },
  });
  expect(price.statusCode, price.body).toBe(201);
});
afterAll(async () => {
  await t.close();
});

/** A player who paid for two packs through the local checkout page: 998 cents, 200 credits. */
async function paidPack(app: App = t): Promise<{ player: TestUser; paymentId: string }> {
  const player = await createUser(app.db);
  const checkout = await app.request({
    method: 'POST',
    url: '/v1/me/billing/checkout-session',
    token: player.token,
    payload: { ...urls, priceId: 'price_refund_pack', quantity: 2 },
  });
  expect(checkout.statusCode, checkout.body).toBe(200);
  const paid = await app.request({
    method: 'POST',
    url: `/v1/public/billing/local/checkout/${checkout.json().id}/pay`,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: '',
  });
  expect(paid.statusCode).toBe(303);
  const payment = await app.db
    .selectFrom('billing_payments')
    .select(['id', 'amount', 'credits'])
    .where('user_id', '=', player.id)
    .executeTakeFirstOrThrow();
  expect({ amount: Number(payment.amount), credits: payment.credits }).toEqual({ amount: 998, credits: 200 });
  return { player, paymentId: payment.id };
}

const refund = (id: string, payload: object, user: TestUser | null = staff, app: App = t) =>
  app.request({ method: 'POST', url: refundUrl(id), token: user?.token, payload });

const paymentRow = (id: string, app: App = t) =>
  app.db.selectFrom('billing_payments').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
const refundRows = (paymentId: string, app: App = t) =>
  app.db
    .selectFrom('billing_refunds')
    .selectAll()
    .where('payment_id', '=', paymentId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
const clawbacks = (userId: string) =>
  t.db
    .selectFrom('credit_ledger')
    .select(['amount', 'kind', 'reference_type', 'reference_id', 'actor_id', 'reason', 'details'])
    .where('user_id', '=', userId)
    .where('kind', '=', 'refund_clawback')
    .orderBy('id')
    .execute();

/** What a refusal must leave as it was: payments, refunds, the credit ledger and lots, and the audit log's size. */
const refundState = (app: App) =>
  storedState(app.db, {
    billing_payments: ['id'],
    billing_refunds: ['id'],
    credit_ledger: ['id'],
    credit_lots: ['id'],
  });

describe('POST /v1/admin/billing/payments/{id}/refund', () => {
  it('200: a full refund (amount omitted) refunds all, marks the payment refunded, claws back all 200 credits, audited', async () => {
    const { player, paymentId } = await paidPack();
    const response = await refund(paymentId, { reason: 'Bought by mistake' });
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json();
    expect(body).toEqual({
      id: expect.any(String),
      payment_id: paymentId,
      user_id: player.id,
      provider_refund_id: expect.stringMatching(/^re_local_/),
      amount: 998,
      currency: 'usd',
      reason: 'Bought by mistake',
      credits_clawed_back: 200,
      shortfall: 0,
      actor_id: staff.id,
      source: 'staff',
      created_at: expect.any(String),
      payment: expect.objectContaining({
        id: paymentId,
        amount: 998,
        amount_refunded: 998,
        status: 'refunded',
        kind: 'credit_pack',
        credits: 200,
      }),
    });
    expect(await paymentRow(paymentId)).toMatchObject({ status: 'refunded' });
    expect(Number((await paymentRow(paymentId)).amount_refunded)).toBe(998);
    const rows = await refundRows(paymentId);
    expect(rows).toHaveLength(1);
    expect({ ...rows[0], amount: Number(rows[0]!.amount) }).toMatchObject({
      id: body.id,
      user_id: player.id,
      provider_refund_id: body.provider_refund_id,
      amount: 998,
      currency: 'usd',
      credits_clawed_back: 200,
      shortfall: 0,
      actor_id: staff.id,
    });
    expect(await clawbacks(player.id)).toEqual([
      {
        amount: -200,
        kind: 'refund_clawback',
        reference_type: 'payment',
        reference_id: paymentId,
        actor_id: staff.id,
        reason: 'Bought by mistake',
        details: { requested: 200, taken: 200, shortfall: 0 },
      },
    ]);
    expect(await balanceOf(t.db, player.id)).toBe(0);
    const audit = await auditOf(t.db, requestIdOf(response));
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({
      actor_id: staff.id,
      action: 'billing.payment.refund',
      target_type: 'billing_payment',
      target_id: paymentId,
      reason: 'Bought by mistake',
    });
    expect(audit[0]!.summary).toEqual({
      before: { amount_refunded: 0, status: 'succeeded' },
      after: { amount_refunded: 998, status: 'refunded' },
      refund_id: body.id,
      provider_refund_id: body.provider_refund_id,
      user_id: player.id,
      amount: 998,
      currency: 'usd',
      credits_clawed_back: 200,
      shortfall: 0,
    });
  });

  it('200: partial refunds take the proportional credits rounded down on the running total; the last takes exactly what is left', async () => {
    const { player, paymentId } = await paidPack();
    const first = await refund(paymentId, { amount: 499, reason: 'Half back' });
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json()).toMatchObject({
      amount: 499,
      credits_clawed_back: 100,
      shortfall: 0,
      payment: { amount_refunded: 499, status: 'partially_refunded' },
    });
    expect(await paymentRow(paymentId)).toMatchObject({ status: 'partially_refunded' });
    expect(await balanceOf(t.db, player.id)).toBe(100);
    // 200 × 799 / 998 = 160.1 → 160 in all, 60 of them now.
    const second = await refund(paymentId, { amount: 300, reason: 'Some more back' });
    expect(second.json()).toMatchObject({
      amount: 300,
      credits_clawed_back: 60,
      payment: { amount_refunded: 799, status: 'partially_refunded' },
    });
    expect(await balanceOf(t.db, player.id)).toBe(40);
    const last = await refund(paymentId, { reason: 'The rest' });
    expect(last.json()).toMatchObject({
      amount: 199,
      credits_clawed_back: 40,
      shortfall: 0,
      payment: { amount_refunded: 998, status: 'refunded' },
    });
    expect(await balanceOf(t.db, player.id)).toBe(0);
    expect((await clawbacks(player.id)).map((entry) => entry.amount)).toEqual([-100, -60, -40]);
    expect((await refundRows(paymentId)).map((row) => [Number(row.amount), row.credits_clawed_back])).toEqual([
      [499, 100],
      [300, 60],
      [199, 40],
    ]);
    const stored = await paymentRow(paymentId);
    expect({ refunded: Number(stored.amount_refunded), status: stored.status }).toEqual({
      refunded: 998,
      status: 'refunded',
    });
  });

  it('200: after the player spent 150 of the 200 credits, a full refund takes the 50 left and records a shortfall of 150', async () => {
    const { player, paymentId } = await paidPack();
    await t.db
      .transaction()
      .execute((trx) => spendCredits(trx, { userId: player.id, amount: 150, actorId: null, reason: 'played' }));
    const response = await refund(paymentId, { reason: 'Chargeback threat' });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toMatchObject({ amount: 998, credits_clawed_back: 50, shortfall: 150 });
    expect(await clawbacks(player.id)).toMatchObject([
      { amount: -50, details: { requested: 200, taken: 50, shortfall: 150 } },
    ]);
    expect(await balanceOf(t.db, player.id)).toBe(0);
    expect(await refundRows(paymentId)).toMatchObject([{ credits_clawed_back: 50, shortfall: 150 }]);
    expect((await auditOf(t.db, requestIdOf(response)))[0]!.summary).toMatchObject({
      credits_clawed_back: 50,
      shortfall: 150,
    });
  });

  it('422 invalid_request with details.refundable when the amount is more than is left; nothing changes', async () => {
    const { paymentId } = await paidPack();
    await expectRefusedUnchanged(
      () => refundState(t),
      () => refund(paymentId, { amount: 999, reason: 'Too much' }),
      422,
      {
        error: 'invalid_request',
        details: { reason: expect.any(String), refundable: 998 },
      },
    );
    expect((await refund(paymentId, { amount: 500, reason: 'Part' })).statusCode).toBe(200);
    await expectRefusedUnchanged(
      () => refundState(t),
      () => refund(paymentId, { amount: 499, reason: 'Too much' }),
      422,
      {
        error: 'invalid_request',
        details: { reason: expect.any(String), refundable: 498 },
      },
    );
  });

  it('422 invalid_state for a payment already fully refunded; nothing changes', async () => {
    const { paymentId } = await paidPack();
    expect((await refund(paymentId, { reason: 'All of it' })).statusCode).toBe(200);
    await expectRefusedUnchanged(
      () => refundState(t),
      () => refund(paymentId, { reason: 'All of it' }),
      422,
      {
        error: 'invalid_state',
        details: { reason: expect.any(String), status: 'refunded' },
      },
    );
    await expectRefusedUnchanged(
      () => refundState(t),
      () => refund(paymentId, { amount: 1, reason: 'One cent' }),
      422,
      {
        error: 'invalid_state',
        details: { reason: expect.any(String), status: 'refunded' },
      },
    );
  });

  it('404 for an unknown payment', async () => {
    await expectRefusedUnchanged(
      () => refundState(t),
      () => refund(randomUUID(), { reason: 'Nobody' }),
      404,
      { error: 'not_found' },
    );
  });

  it.each([
    ['amount 0', { amount: 0, reason: 'Zero' }, 'amount'],
    ['amount negative', { amount: -5, reason: 'Less' }, 'amount'],
    ['amount fractional', { amount: 1.5, reason: 'Half' }, 'amount'],
    ['amount as text', { amount: '100', reason: 'Text' }, 'amount'],
    ['no reason', { amount: 100 }, 'reason'],
    ['reason too short', { reason: ' ab ' }, 'reason'],
    ['reason too long', { reason: 'x'.repeat(501) }, 'reason'],
  ])('400 (%s), nothing changes', async (_case, payload, field) => {
    const { paymentId } = await paidPack();
    await expectRefusedUnchanged(
      () => refundState(t),
      () => refund(paymentId, payload),
      400,
      schemaError({ path: [field] }),
    );
  });

  it('400 for an unknown field and for an id that is not a uuid', async () => {
    const { paymentId } = await paidPack();
    await expectRefusedUnchanged(
      () => refundState(t),
      () => refund(paymentId, { reason: 'Extra', notify: true }),
      400,
      schemaError({ code: 'unrecognized_keys' }),
    );
    await expectRefusedUnchanged(
      () => refundState(t),
      () => refund('not-a-uuid', { reason: 'Bad id' }),
      400,
      schemaError({ path: ['id'] }),
    );
  });

  it('401 without a token, 403 without billing.write; nothing changes', async () => {
    const { paymentId } = await paidPack();
    await expectRefusedUnchanged(
      () => refundState(t),
      () => refund(paymentId, { reason: 'Nope' }, null),
      401,
      { error: 'missing_token' },
    );
    const forbidden = await refund(paymentId, { reason: 'Nope' }, reader);
    expect(forbidden.statusCode).toBe(403);
    await expectRefusedUnchanged(
      () => refundState(t),
      () => refund(paymentId, { reason: 'Nope' }, reader),
      403,
      forbidden.json(),
    );
  });
});

describe('on Stripe: the refund is made there; refusals are 422, outages 503; a retry does not refund twice', () => {
  const secretKey = 'sk_test_billingrefunds';
  let stripe: StripeServer;
  let s: App;
  let stripeStaff: TestUser;

  beforeAll(async () => {
    stripe = await startStripeServer({ secretKey });
    s = await startTestApp({
      config: { stripeSecretKey: secretKey, stripeWebhookSecret: 'whsec_billingrefunds', stripeApiBase: stripe.url },
    });
    stripeStaff = await createUser(s.db, ['billing.read', 'billing.write']);
  });
  afterAll(async () => {
    await s.close();
    await stripe.close();
  });

  /** A subscription invoice's payment, as fulfilment records it from Stripe's events. */
  async function stripePayment(amount = 1000): Promise<{ id: string; intent: string }> {
    const player = await createUser(s.db);
    const customer = stripe.addCustomer();
    const intent = stripe.addPaymentIntent({ customer: String(customer.id), amount, currency: 'usd' });
    const row = await s.db
      .insertInto('billing_payments')
      .values({
        user_id: player.id,
        provider: 'stripe',
        provider_payment_id: String(intent.id),
        kind: 'subscription',
        amount,
        currency: 'usd',
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return { id: row.id, intent: String(intent.id) };
  }
  const refundRequests = () => stripe.requests.filter((r) => r.method === 'POST' && r.path === '/v1/refunds');

  it('refunds the PaymentIntent at Stripe with the amount, the reason in metadata and a key naming payment, total so far and amount', async () => {
    const payment = await stripePayment();
    const before = refundRequests().length;
    const response = await refund(payment.id, { amount: 250, reason: 'Service outage' }, stripeStaff, s);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toMatchObject({
      amount: 250,
      credits_clawed_back: 0,
      shortfall: 0,
      payment: { amount_refunded: 250, status: 'partially_refunded', kind: 'subscription' },
    });
    const sent = refundRequests().slice(before);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({
      idempotencyKey: `refund:${payment.id}:0:250`,
      form: { payment_intent: payment.intent, amount: '250', 'metadata[reason]': 'Service outage' },
    });
    expect(stripe.refunds.get(response.json().provider_refund_id)).toMatchObject({
      amount: 250,
      payment_intent: payment.intent,
    });
  });

  it('a retry after the provider refunded but the local write failed gets the same refund back, not a second one', async () => {
    const payment = await stripePayment();
    // The local write fails once, after Stripe has refunded.
    await sql`CREATE TABLE refund_write_fails (payment_id uuid PRIMARY KEY)`.execute(s.db);
    await sql`CREATE FUNCTION refund_write_fails_once() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF EXISTS (SELECT 1 FROM refund_write_fails WHERE payment_id = NEW.payment_id) THEN RAISE EXCEPTION 'injected failure'; END IF;
        RETURN NEW;
      END $$`.execute(s.db);
    await sql`CREATE TRIGGER refund_write_fails BEFORE INSERT ON billing_refunds FOR EACH ROW EXECUTE FUNCTION refund_write_fails_once()`.execute(
      s.db,
    );
    await sql`INSERT INTO refund_write_fails VALUES (${payment.id})`.execute(s.db);
    const before = stripe.refunds.size;
    const failed = await refund(payment.id, { reason: 'Retried refund' }, stripeStaff, s);
    expect(failed.statusCode).toBe(500);
    expect(stripe.refunds.size).toBe(before + 1);
    expect(await refundRows(payment.id, s)).toEqual([]);
    expect(Number((await paymentRow(payment.id, s)).amount_refunded)).toBe(0);
    await sql`DELETE FROM refund_write_fails`.execute(s.db);

    const retried = await refund(payment.id, { reason: 'Retried refund' }, stripeStaff, s);
    expect(retried.statusCode, retried.body).toBe(200);
    expect(stripe.refunds.size).toBe(before + 1);
    const keys = refundRequests()
      .slice(-2)
      .map((r) => r.idempotencyKey);
    expect(keys).toEqual([`refund:${payment.id}:0:1000`, `refund:${payment.id}:0:1000`]);
    expect(stripe.refunds.has(retried.json().provider_refund_id)).toBe(true);
    expect((await refundRows(payment.id, s)).map((row) => Number(row.amount))).toEqual([1000]);
    expect(await paymentRow(payment.id, s)).toMatchObject({ status: 'refunded' });
  });

  it('422 invalid_request with the provider code when Stripe refuses; nothing stored', async () => {
    const payment = await stripePayment();
    stripe.behave({
      kind: 'answer',
      status: 400,
      body: stripeError('invalid_request_error', 'Charge ch_x has been charged back.', { code: 'charge_disputed' }),
      times: 1,
    });
    await expectRefusedUnchanged(
      () => refundState(s),
      () => refund(payment.id, { reason: 'Disputed' }, stripeStaff, s),
      422,
      {
        error: 'invalid_request',
        details: {
          reason: 'the payment provider refused the request',
          provider_code: 'charge_disputed',
          provider_message: 'Charge ch_x has been charged back.',
        },
      },
    );
  });

  it('503 unavailable when Stripe fails; nothing stored', async () => {
    const payment = await stripePayment();
    stripe.behave({ kind: 'answer', status: 500, body: stripeError('api_error', 'Something went wrong on our end.') });
    try {
      await expectRefusedUnchanged(
        () => refundState(s),
        () => refund(payment.id, { reason: 'Outage' }, stripeStaff, s),
        503,
        {
          error: 'unavailable',
          details: { reason: 'the payment provider is unavailable' },
        },
      );
    } finally {
      stripe.behave({ kind: 'normal' });
    }
  });
});
