import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, startTestApp, type TestApp } from '../../../helpers/app.js';
import { deliverStripeEvent, stripeEvent } from '../../../helpers/stripe-events.js';
import { startStripeServer, type StripeServer } from '../../../helpers/stripe-server.js';

/**
 * A Stripe renewal's payment: current API versions name it only in `invoice_payment.paid`, which
 * may come before or after `invoice.paid`. Either order records one subscription payment for the
 * invoice's player, with the plan, once.
 */

const secretKey = 'sk_test_invoicepayments';
const webhookSecret = 'whsec_invoicepayments';
let stripe: StripeServer;
let t: TestApp;
let planId: string;
let priceId: string;

beforeAll(async () => {
  stripe = await startStripeServer({ secretKey });
  t = await startTestApp({
    config: { stripeSecretKey: secretKey, stripeWebhookSecret: webhookSecret, stripeApiBase: stripe.url },
  });
  const planner = await createUser(t.db, ['plans.write']);
  const ruleset = await t.db
    .insertInto('plan_rulesets')
    .values({ key: 'inv-rules', name: 'Rules', description: null, limits: '{}', is_active: true, updated_by: null })
    .returning('id')
    .executeTakeFirstOrThrow();
  await t.db
    .insertInto('plan_tiers')
    .values({ key: 'silver', name: 'Silver', rank: 1, ruleset_id: ruleset.id, description: null, updated_by: null })
    .execute();
  const product = await t.request({
    method: 'POST',
    url: '/v1/admin/plans/products',
    token: planner.token,
    payload: { kind: 'plan', name: 'Silver plan', tierKey: 'silver' },
  });
  planId = product.json().id;
  priceId = String(stripe.addPrice({ currency: 'usd', unitAmount: 799, interval: 'month' }).id);
  expect(
    (
      await t.request({
        method: 'POST',
        url: `/v1/admin/plans/products/${planId}/prices`,
        token: planner.token,
        payload: { providerPriceId: priceId, currency: 'usd', unitAmount: 799, interval: 'month' },
      })
    ).statusCode,
  ).toBe(201);
});
afterAll(async () => {
  await t.close();
  await stripe.close();
});

const deliver = (type: string, object: object) => deliverStripeEvent(t, stripeEvent(type, object), webhookSecret);

/** A subscriber whose renewal invoice Stripe has paid. */
async function renewal() {
  const player = await createUser(t.db);
  const customer = String(stripe.addCustomer().id);
  const subscription = String(stripe.addSubscription({ customer, price: priceId }).id);
  await t.db
    .insertInto('billing_customers')
    .values({ user_id: player.id, provider: 'stripe', provider_customer_id: customer })
    .execute();
  await t.db
    .insertInto('billing_subscriptions')
    .values({
      user_id: player.id,
      provider: 'stripe',
      provider_subscription_id: subscription,
      product_id: planId,
      provider_price_id: priceId,
      status: 'active',
    })
    .execute();
  const invoice = stripe.addInvoice({ customer, subscription, amount: 799, currency: 'usd', status: 'paid' });
  const intent = `pi_${randomBytes(6).toString('hex')}`;
  const invoicePayment = {
    id: `inpay_${randomBytes(6).toString('hex')}`,
    object: 'invoice_payment',
    invoice: invoice.id,
    status: 'paid',
    amount_paid: 799,
    amount_requested: 799,
    currency: 'usd',
    is_default: true,
    payment: { type: 'payment_intent', payment_intent: intent },
  };
  return { player, invoice, intent, invoicePayment };
}

const paymentsOf = (userId: string) =>
  t.db
    .selectFrom('billing_payments')
    .select(['provider_payment_id', 'kind', 'amount', 'currency', 'product_id', 'price_id', 'provider_invoice_id'])
    .where('user_id', '=', userId)
    .execute();
const invoiceOf = (id: unknown) =>
  t.db
    .selectFrom('billing_invoices')
    .select(['provider_payment_id', 'status'])
    .where('provider_invoice_id', '=', String(id))
    .executeTakeFirstOrThrow();

describe('invoice_payment.paid', () => {
  it('after invoice.paid: records the subscription payment with the plan and links it to the invoice; a redelivery adds nothing', async () => {
    const { player, invoice, intent, invoicePayment } = await renewal();
    expect((await deliver('invoice.paid', invoice)).statusCode).toBe(200);
    expect(await paymentsOf(player.id)).toEqual([]);
    expect(await invoiceOf(invoice.id)).toEqual({ provider_payment_id: null, status: 'paid' });

    expect((await deliver('invoice_payment.paid', invoicePayment)).statusCode).toBe(200);
    const price = await t.db
      .selectFrom('billing_prices')
      .select('id')
      .where('provider_price_id', '=', priceId)
      .executeTakeFirstOrThrow();
    const expected = [
      {
        provider_payment_id: intent,
        kind: 'subscription',
        amount: 799,
        currency: 'usd',
        product_id: planId,
        price_id: price.id,
        provider_invoice_id: invoice.id,
      },
    ];
    expect((await paymentsOf(player.id)).map((row) => ({ ...row, amount: Number(row.amount) }))).toEqual(expected);
    expect(await invoiceOf(invoice.id)).toEqual({ provider_payment_id: intent, status: 'paid' });

    expect((await deliver('invoice_payment.paid', invoicePayment)).statusCode).toBe(200);
    expect((await deliver('invoice.paid', invoice)).statusCode).toBe(200);
    expect(await paymentsOf(player.id)).toHaveLength(1);
  });

  it('before invoice.paid: kept until the invoice arrives, then recorded', async () => {
    const { player, invoice, intent, invoicePayment } = await renewal();
    expect((await deliver('invoice_payment.paid', invoicePayment)).statusCode).toBe(200);
    expect(await paymentsOf(player.id)).toEqual([]);
    expect((await deliver('invoice.paid', invoice)).statusCode).toBe(200);
    expect(
      (await paymentsOf(player.id)).map((row) => [row.provider_payment_id, Number(row.amount), row.product_id]),
    ).toEqual([[intent, 799, planId]]);
    expect(await invoiceOf(invoice.id)).toEqual({ provider_payment_id: intent, status: 'paid' });
  });

  it('an invoice payment that is not paid, or not a PaymentIntent, records nothing', async () => {
    const { player, invoice, invoicePayment } = await renewal();
    expect((await deliver('invoice.paid', invoice)).statusCode).toBe(200);
    expect((await deliver('invoice_payment.paid', { ...invoicePayment, status: 'open' })).statusCode).toBe(200);
    expect(
      (await deliver('invoice_payment.paid', { ...invoicePayment, payment: { type: 'out_of_band_payment' } }))
        .statusCode,
    ).toBe(200);
    expect(await paymentsOf(player.id)).toEqual([]);
    expect(
      await t.db
        .selectFrom('billing_invoice_payments')
        .select('provider_payment_id')
        .where('provider_invoice_id', '=', String(invoice.id))
        .execute(),
    ).toEqual([]);
  });

  it('an unreadable invoice payment is 400 invalid_event, and its event id is not kept (Stripe retries)', async () => {
    const response = await deliver('invoice_payment.paid', { id: 'inpay_bad', object: 'invoice_payment' });
    expect({ status: response.statusCode, body: response.json() }).toEqual({
      status: 400,
      body: { error: 'invalid_event' },
    });
  });
});
