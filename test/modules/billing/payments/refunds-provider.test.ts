import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addCredits, balanceOf } from '../../../../src/modules/billing/credits/ledger.js';
import { createUser, eventually, startTestApp, type TestApp, type TestUser } from '../../../helpers/app.js';
import { deliverStripeEvent, stripeEvent } from '../../../helpers/stripe-events.js';
import { auditOf, requestIdOf } from '../../../helpers/expectations.js';
import { startStripeServer, type StripeServer } from '../../../helpers/stripe-server.js';

/**
 * Refunds the provider reports (`refund.created` / `refund.updated`), made in its dashboard or by
 * a staff request whose own write was lost: each recorded once whichever path sees it first,
 * credits clawed back as a staff refund would, `charge.refunded` never counted twice. And staff
 * refunds under an Idempotency-Key, and several racing for one payment (with and without one key).
 */

const secretKey = 'sk_test_providerrefunds';
const webhookSecret = 'whsec_providerrefunds';
let stripe: StripeServer;
let t: TestApp;
let staff: TestUser;

beforeAll(async () => {
  stripe = await startStripeServer({ secretKey });
  t = await startTestApp({
    config: { stripeSecretKey: secretKey, stripeWebhookSecret: webhookSecret, stripeApiBase: stripe.url },
  });
  staff = await createUser(t.db, ['billing.read', 'billing.write']);
});
afterAll(async () => {
  await t.close();
  await stripe.close();
});

/** A credit pack of 200 credits bought for 1000 cents through a Stripe PaymentIntent, as fulfilment records it. */
async function paidPack(
  amount = 1000,
  credits = 200,
): Promise<{ player: TestUser; paymentId: string; intent: string }> {
  const player = await createUser(t.db);
  const intent = String(
    stripe.addPaymentIntent({ customer: String(stripe.addCustomer().id), amount, currency: 'usd' }).id,
  );
  const paymentId = await t.db.transaction().execute(async (trx) => {
    const payment = await trx
      .insertInto('billing_payments')
      .values({
        user_id: player.id,
        provider: 'stripe',
        provider_payment_id: intent,
        kind: 'credit_pack',
        credits,
        amount,
        currency: 'usd',
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await addCredits(trx, {
      userId: player.id,
      amount: credits,
      kind: 'purchase',
      actorId: null,
      referenceType: 'payment',
      referenceId: payment.id,
      idempotencyKey: `payment:stripe:${intent}`,
      reason: 'Bought a pack',
    });
    return payment.id;
  });
  return { player, paymentId, intent };
}

const deliver = (type: string, object: object, eventId?: string) =>
  deliverStripeEvent(t, stripeEvent(type, object, eventId === undefined ? {} : { id: eventId }), webhookSecret);

const refundObject = (id: string, intent: string, amount: number, extra: object = {}) => ({
  id,
  object: 'refund',
  amount,
  currency: 'usd',
  payment_intent: intent,
  status: 'succeeded',
  metadata: {},
  ...extra,
});
const refundRows = (paymentId: string) =>
  t.db
    .selectFrom('billing_refunds')
    .selectAll()
    .where('payment_id', '=', paymentId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
const paymentOf = async (paymentId: string) => {
  const row = await t.db
    .selectFrom('billing_payments')
    .select(['amount_refunded', 'status'])
    .where('id', '=', paymentId)
    .executeTakeFirstOrThrow();
  return { refunded: Number(row.amount_refunded), status: row.status };
};
const refund = (paymentId: string, payload: object, key?: string) =>
  t.request({
    method: 'POST',
    url: `/v1/admin/billing/payments/${paymentId}/refund`,
    token: staff.token,
    payload,
    ...(key === undefined ? {} : { headers: { 'idempotency-key': key } }),
  });
const stripeRefundRequests = () => stripe.requests.filter((r) => r.method === 'POST' && r.path === '/v1/refunds');

describe('refunds reported by the provider', () => {
  it('a dashboard refund is recorded once: the row (source provider, no actor), the proportional clawback, the payment total, a dashboard event', async () => {
    const { player, paymentId, intent } = await paidPack();
    const response = await deliver(
      'refund.created',
      refundObject('re_dash_1', intent, 250, { metadata: { reason: 'Goodwill from support' } }),
    );
    expect(response.statusCode, response.body).toBe(200);
    const rows = await refundRows(paymentId);
    expect(rows).toHaveLength(1);
    expect({ ...rows[0], amount: Number(rows[0]!.amount) }).toMatchObject({
      provider_refund_id: 're_dash_1',
      amount: 250,
      currency: 'usd',
      reason: 'Goodwill from support',
      source: 'provider',
      actor_id: null,
      credits_clawed_back: 50,
      shortfall: 0,
      user_id: player.id,
    });
    expect(await paymentOf(paymentId)).toEqual({ refunded: 250, status: 'partially_refunded' });
    expect(await balanceOf(t.db, player.id)).toBe(150);
    await eventually(() =>
      expect(t.events).toContainEqual(
        expect.objectContaining({
          kind: 'dashboard',
          name: 'billing.payment_refunded',
          payload: expect.objectContaining({
            payment_id: paymentId,
            refund_id: rows[0]!.id,
            amount: 250,
            credits_clawed_back: 50,
            source: 'provider',
          }),
        }),
      ),
    );

    // The same refund again: redelivered, then its update under another event id: nothing more.
    expect((await deliver('refund.updated', refundObject('re_dash_1', intent, 250))).statusCode).toBe(200);
    expect(await refundRows(paymentId)).toHaveLength(1);
    expect(await paymentOf(paymentId)).toEqual({ refunded: 250, status: 'partially_refunded' });
    expect(await balanceOf(t.db, player.id)).toBe(150);
  });

  it('charge.refunded arriving first does not make the refund count twice; its clawback still happens when the refund is recorded', async () => {
    const { player, paymentId, intent } = await paidPack();
    const charge = (refunded: number) => ({
      id: 'ch_x',
      object: 'charge',
      amount: 1000,
      amount_refunded: refunded,
      currency: 'usd',
      payment_intent: intent,
      refunded: refunded === 1000,
      status: 'succeeded',
    });
    expect((await deliver('charge.refunded', charge(400))).statusCode).toBe(200);
    expect(await paymentOf(paymentId)).toEqual({ refunded: 400, status: 'partially_refunded' });
    expect(await refundRows(paymentId)).toEqual([]);
    expect((await deliver('refund.created', refundObject('re_dash_part', intent, 400))).statusCode).toBe(200);
    expect(await paymentOf(paymentId)).toEqual({ refunded: 400, status: 'partially_refunded' });
    expect(await balanceOf(t.db, player.id)).toBe(120);
    // The rest, refund first this time, then the charge's new total.
    expect((await deliver('refund.created', refundObject('re_dash_rest', intent, 600))).statusCode).toBe(200);
    expect((await deliver('charge.refunded', charge(1000))).statusCode).toBe(200);
    expect(await paymentOf(paymentId)).toEqual({ refunded: 1000, status: 'refunded' });
    expect(
      (await refundRows(paymentId)).map((row) => [Number(row.amount), row.credits_clawed_back, row.reason]),
    ).toEqual([
      [400, 80, 'Refunded at the payment provider'],
      [600, 120, 'Refunded at the payment provider'],
    ]);
    expect(await balanceOf(t.db, player.id)).toBe(0);
  });

  it('the event of a staff refund changes nothing: the staff route recorded it, with its actor and audit row', async () => {
    const { player, paymentId, intent } = await paidPack();
    const made = await refund(paymentId, { amount: 500, reason: 'Half back' });
    expect(made.statusCode, made.body).toBe(200);
    const providerRefundId = made.json().provider_refund_id;
    expect(
      (
        await deliver(
          'refund.created',
          refundObject(providerRefundId, intent, 500, { metadata: { reason: 'Half back' } }),
        )
      ).statusCode,
    ).toBe(200);
    expect((await refundRows(paymentId)).map((row) => [row.source, row.actor_id])).toEqual([['staff', staff.id]]);
    expect(await paymentOf(paymentId)).toEqual({ refunded: 500, status: 'partially_refunded' });
    expect(await balanceOf(t.db, player.id)).toBe(100);
  });

  it('a refund that failed, or of a payment the service does not know, records nothing (the event id is kept)', async () => {
    const { paymentId, intent } = await paidPack();
    const failed = await deliver(
      'refund.updated',
      refundObject('re_failed', intent, 300, { status: 'failed' }),
      'evt_refund_failed',
    );
    expect(failed.statusCode).toBe(200);
    expect(
      (await deliver('refund.created', refundObject('re_stranger', 'pi_unknown', 300), 'evt_refund_stranger'))
        .statusCode,
    ).toBe(200);
    expect(await refundRows(paymentId)).toEqual([]);
    expect(
      await t.db
        .selectFrom('billing_refunds')
        .select('id')
        .where('provider_refund_id', 'in', ['re_failed', 're_stranger'])
        .execute(),
    ).toEqual([]);
    expect(await paymentOf(paymentId)).toEqual({ refunded: 0, status: 'succeeded' });
    const stored = await t.db
      .selectFrom('billing_webhook_events')
      .select(['event_id', 'type'])
      .where('event_id', 'in', ['evt_refund_failed', 'evt_refund_stranger'])
      .orderBy('event_id')
      .execute();
    expect(stored).toEqual([
      { event_id: 'evt_refund_failed', type: 'refund.recorded' },
      { event_id: 'evt_refund_stranger', type: 'refund.recorded' },
    ]);
  });

  it('a staff refund whose write was lost is recorded from its event, and the retry under the same Idempotency-Key answers it without refunding again', async () => {
    const { player, paymentId, intent } = await paidPack();
    await sql`CREATE OR REPLACE FUNCTION refund_insert_fails() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.source = 'staff' THEN RAISE EXCEPTION 'injected failure'; END IF; RETURN NEW; END $$`.execute(t.db);
    await sql`CREATE TRIGGER refund_insert_fails BEFORE INSERT ON billing_refunds FOR EACH ROW EXECUTE FUNCTION refund_insert_fails()`.execute(
      t.db,
    );
    const before = stripe.refunds.size;
    let lost: Awaited<ReturnType<typeof refund>>;
    try {
      lost = await refund(paymentId, { amount: 400, reason: 'Lost write' }, 'ticket-4711');
    } finally {
      await sql`DROP TRIGGER refund_insert_fails ON billing_refunds`.execute(t.db);
    }
    expect(lost.statusCode).toBe(500);
    expect(stripe.refunds.size).toBe(before + 1);
    const providerRefundId = [...stripe.refunds.keys()].at(-1)!;
    expect(await refundRows(paymentId)).toEqual([]);

    expect(
      (
        await deliver(
          'refund.created',
          refundObject(providerRefundId, intent, 400, { metadata: { reason: 'Lost write' } }),
        )
      ).statusCode,
    ).toBe(200);
    expect(
      (await refundRows(paymentId)).map((row) => [row.source, Number(row.amount), row.credits_clawed_back]),
    ).toEqual([['provider', 400, 80]]);

    const retried = await refund(paymentId, { amount: 400, reason: 'Lost write' }, 'ticket-4711');
    expect(retried.statusCode, retried.body).toBe(200);
    expect(retried.headers['idempotent-replayed']).toBe('true');
    expect(retried.json()).toMatchObject({
      provider_refund_id: providerRefundId,
      amount: 400,
      source: 'provider',
      payment: { amount_refunded: 400 },
    });
    expect(stripe.refunds.size).toBe(before + 1);
    expect(await refundRows(paymentId)).toHaveLength(1);
    expect(await paymentOf(paymentId)).toEqual({ refunded: 400, status: 'partially_refunded' });
    expect(await balanceOf(t.db, player.id)).toBe(120);
    expect(await auditOf(t.db, requestIdOf(retried))).toEqual([]);
  });
});

describe('staff refunds under an Idempotency-Key', () => {
  it('a repeat with the same key and body answers the first refund and refunds nothing more; another body under the key is 409', async () => {
    const { player, paymentId } = await paidPack();
    const first = await refund(paymentId, { amount: 300, reason: 'Partial, ticket 12' }, 'ticket-12');
    expect(first.statusCode, first.body).toBe(200);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const keyed = stripeRefundRequests().at(-1)!;
    expect(keyed.idempotencyKey).toMatch(new RegExp(`^refund:${paymentId}:request:[0-9a-f]{40}$`));
    expect(keyed.idempotencyKey).not.toContain('ticket-12');
    const auditRows = await auditOf(t.db, requestIdOf(first));
    expect(auditRows).toHaveLength(1);
    expect(auditRows[0]!.summary).toMatchObject({ idempotency_key: 'ticket-12', amount: 300 });

    const sentBefore = stripeRefundRequests().length;
    const again = await refund(paymentId, { amount: 300, reason: 'Partial, ticket 12' }, 'ticket-12');
    expect(again.statusCode).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json()).toEqual(first.json());
    expect(stripeRefundRequests().length).toBe(sentBefore);
    expect(await auditOf(t.db, requestIdOf(again))).toEqual([]);

    const other = await refund(paymentId, { amount: 200, reason: 'Partial, ticket 12' }, 'ticket-12');
    expect({ status: other.statusCode, body: other.json() }).toEqual({
      status: 409,
      body: { error: 'conflict', details: { reason: expect.any(String) } },
    });
    expect(stripeRefundRequests().length).toBe(sentBefore);
    expect(await refundRows(paymentId)).toHaveLength(1);
    expect(await paymentOf(paymentId)).toEqual({ refunded: 300, status: 'partially_refunded' });
    expect(await balanceOf(t.db, player.id)).toBe(140);

    // The key names a request of this payment only: another payment may use it.
    const { paymentId: otherPayment } = await paidPack();
    expect((await refund(otherPayment, { amount: 200, reason: 'Partial, ticket 12' }, 'ticket-12')).statusCode).toBe(
      200,
    );
  });

  it('400 for an empty or over-long key; nothing refunded', async () => {
    const { paymentId } = await paidPack();
    const sentBefore = stripeRefundRequests().length;
    for (const key of ['', 'k'.repeat(201)]) {
      const response = await refund(paymentId, { reason: 'Bad key' }, key);
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({
        success: false,
        error: { name: 'SchemaError', issues: [expect.objectContaining({ path: ['idempotency-key'] })] },
      });
    }
    expect(stripeRefundRequests().length).toBe(sentBefore);
    expect(await refundRows(paymentId)).toEqual([]);
  });
});

describe('refunds racing for one payment', () => {
  it('five parallel 300-cent refunds of a 1000-cent payment: three land, two are refused with what is left, Stripe sees three', async () => {
    const { player, paymentId } = await paidPack();
    const sentBefore = stripeRefundRequests().length;
    const answers = await Promise.all(
      Array.from({ length: 5 }, (_, i) => refund(paymentId, { amount: 300, reason: `Racing refund ${i}` })),
    );
    const statuses = answers.map((answer) => answer.statusCode).sort();
    expect(statuses).toEqual([200, 200, 200, 422, 422]);
    for (const refused of answers.filter((answer) => answer.statusCode === 422)) {
      expect(refused.json()).toEqual({
        error: 'invalid_request',
        details: { reason: expect.any(String), refundable: 100 },
      });
    }
    expect(stripeRefundRequests().length - sentBefore).toBe(3);
    expect((await refundRows(paymentId)).map((row) => Number(row.amount))).toEqual([300, 300, 300]);
    expect(await paymentOf(paymentId)).toEqual({ refunded: 900, status: 'partially_refunded' });
    // 200 credits × 900 / 1000 = 180 taken back in all: 60 each.
    expect(await balanceOf(t.db, player.id)).toBe(20);
  });

  it('50 parallel refunds under one Idempotency-Key refund once: one Stripe request, one row, one clawback, one audit row; all answer alike', async () => {
    const { player, paymentId } = await paidPack();
    const sentBefore = stripeRefundRequests().length;
    const answers = await Promise.all(
      Array.from({ length: 50 }, () => refund(paymentId, { amount: 300, reason: 'Once, ticket 50' }, 'ticket-50')),
    );
    expect(answers.map((answer) => answer.statusCode)).toEqual(Array(50).fill(200));
    expect(new Set(answers.map((answer) => answer.body)).size).toBe(1);
    expect(answers.filter((answer) => answer.headers['idempotent-replayed'] === undefined)).toHaveLength(1);
    expect(stripeRefundRequests().length - sentBefore).toBe(1);
    expect((await refundRows(paymentId)).map((row) => [Number(row.amount), row.request_key])).toEqual([
      [300, 'ticket-50'],
    ]);
    expect(await paymentOf(paymentId)).toEqual({ refunded: 300, status: 'partially_refunded' });
    expect(await balanceOf(t.db, player.id)).toBe(140);
    expect(
      await t.db
        .selectFrom('audit_log')
        .select('id')
        .where('action', '=', 'billing.payment.refund')
        .where('target_id', '=', paymentId)
        .execute(),
    ).toHaveLength(1);
  });
});
