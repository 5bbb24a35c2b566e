import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, startTestApp, type TestApp, type TestUser } from '../../../helpers/app.js';
import { auditOf, expectRefusedUnchanged, requestIdOf, schemaError } from '../../../helpers/expectations.js';
import { storedState } from '../../../helpers/stored-state.js';

/**
 * The local provider's renewal simulation: its events take the same fulfilment path as Stripe's
 * webhooks, so a paid renewal records an invoice and a payment and moves the period on, a failed
 * one leaves an open invoice and a past_due subscription, and a renewal of a subscription set to
 * cancel at period end ends it.
 */

const urls = { successUrl: 'https://game.example/done', cancelUrl: 'https://game.example/cancel' };
const renewUrl = (id: string) => `/v1/admin/billing/subscriptions/${id}/simulate-renewal`;

let t: TestApp;
let staff: TestUser;
let reader: TestUser;
let productId: string;

beforeAll(async () => {
  t = await startTestApp();
  staff = await createUser(t.db, ['billing.read', 'billing.write']);
  reader = await createUser(t.db, ['billing.read']);
  const ruleset = await t.db
    .insertInto('plan_rulesets')
    .values({ key: 'renew-rules', name: 'Rules', description: null, limits: '{}', is_active: true, updated_by: null })
    .returning('id')
    .executeTakeFirstOrThrow();
  await t.db
    .insertInto('plan_tiers')
    .values({ key: 'silver', name: 'Silver', rank: 1, ruleset_id: ruleset.id, description: null, updated_by: null })
    .execute();
  const catalog = await createUser(t.db, ['plans.write']);
  const made = await t.request({
    method: 'POST',
    url: '/v1/admin/plans/products',
    token: catalog.token,
    payload: { kind: 'plan', name: 'Silver plan', tierKey: 'silver' },
  });
  productId = made.json().id;
  const price = await t.request({
    method: 'POST',
    url: `/v1/admin/plans/products/${productId}/prices`,
    token: catalog.token,
    payload: { providerPriceId: 'price_renew', currency: 'usd', unitAmount: 700, interval: 'month' },
  });
  expect(price.statusCode, price.body).toBe(201);
});
afterAll(async () => {
  await t.close();
});

async function subscribe(): Promise<{ player: TestUser; id: string; providerId: string }> {
  const player = await createUser(t.db);
  const started = await t.request({
    method: 'POST',
    url: '/v1/me/billing/checkout-session',
    token: player.token,
    payload: { ...urls, priceId: 'price_renew' },
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
    .select(['id', 'provider_subscription_id'])
    .where('user_id', '=', player.id)
    .executeTakeFirstOrThrow();
  return { player, id: row.id, providerId: row.provider_subscription_id };
}

const post = (url: string, payload: unknown, user: TestUser | null = staff) =>
  t.request({ method: 'POST', url, token: user?.token, payload: payload as object });
const renew = (id: string, outcome: string, user: TestUser | null = staff) => post(renewUrl(id), { outcome }, user);
const rowOf = (id: string) =>
  t.db.selectFrom('billing_subscriptions').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
const tierOf = async (userId: string) =>
  (await t.db.selectFrom('users').select('tier').where('id', '=', userId).executeTakeFirstOrThrow()).tier;
const invoicesOf = (userId: string) =>
  t.db
    .selectFrom('billing_invoices')
    .select(['status', 'amount_due', 'amount_paid', 'provider_subscription_id', 'provider_payment_id'])
    .where('user_id', '=', userId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
const paymentsOf = (userId: string) =>
  t.db
    .selectFrom('billing_payments')
    .select(['kind', 'amount', 'product_id', 'provider_invoice_id', 'provider_payment_id'])
    .where('user_id', '=', userId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();

/** What a refusal must leave as it was: subscriptions, invoices, payments, players' tiers, and the audit log's size. */
const renewalState = async () => ({
  ...(await storedState(t.db, { billing_subscriptions: ['id'], billing_invoices: ['id'], billing_payments: ['id'] })),
  tiers: await t.db.selectFrom('users').select(['id', 'tier']).orderBy('id').execute(),
});

const plusMonth = (date: Date) => {
  const next = new Date(date);
  next.setUTCMonth(next.getUTCMonth() + 1);
  return next;
};

describe('POST /v1/admin/billing/subscriptions/{id}/simulate-renewal (local provider)', () => {
  it('paid: a paid invoice and a subscription payment are recorded, the period moves on a month; audited', async () => {
    const { player, id, providerId } = await subscribe();
    const before = await rowOf(id);
    // The checkout paid the first period: one invoice, one payment.
    expect(await invoicesOf(player.id)).toHaveLength(1);
    expect(await paymentsOf(player.id)).toHaveLength(1);
    const response = await renew(id, 'paid');
    expect(response.statusCode, response.body).toBe(200);
    const nextEnd = plusMonth(before.current_period_end!).toISOString();
    expect(response.json()).toMatchObject({
      id,
      user_id: player.id,
      status: 'active',
      cancel_at_period_end: false,
      current_period_end: nextEnd,
      product_name: 'Silver plan',
    });
    expect((await rowOf(id)).current_period_end!.toISOString()).toBe(nextEnd);
    const invoices = await invoicesOf(player.id);
    expect(invoices).toHaveLength(2);
    expect({
      ...invoices[1],
      amount_due: Number(invoices[1]!.amount_due),
      amount_paid: Number(invoices[1]!.amount_paid),
    }).toEqual({
      status: 'paid',
      amount_due: 700,
      amount_paid: 700,
      provider_subscription_id: providerId,
      provider_payment_id: expect.stringMatching(/^pi_local_/),
    });
    const payments = await paymentsOf(player.id);
    expect(payments).toHaveLength(2);
    expect(payments.slice(1).map((p) => ({ ...p, amount: Number(p.amount) }))).toEqual([
      {
        kind: 'subscription',
        amount: 700,
        product_id: productId,
        provider_invoice_id: expect.stringMatching(/^in_local_/),
        provider_payment_id: invoices[1]!.provider_payment_id,
      },
    ]);
    expect(await tierOf(player.id)).toBe('silver');
    const audit = await auditOf(t.db, requestIdOf(response));
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({
      actor_id: staff.id,
      action: 'billing.subscription.simulate_renewal',
      target_type: 'billing_subscription',
      target_id: id,
      reason: null,
    });
    expect(audit[0]!.summary).toEqual({
      before: { status: 'active', cancel_at_period_end: false },
      after: { status: 'active', cancel_at_period_end: false },
      outcome: 'paid',
      user_id: player.id,
      provider_subscription_id: providerId,
      events: ['invoice.paid', 'subscription.updated'],
    });
  });

  it('failed: an open invoice, no new payment, past_due (keeping the tier); a paid renewal then makes it active again', async () => {
    const { player, id } = await subscribe();
    const before = await rowOf(id);
    const failed = await renew(id, 'failed');
    expect(failed.statusCode, failed.body).toBe(200);
    expect(failed.json()).toMatchObject({
      status: 'past_due',
      current_period_end: before.current_period_end!.toISOString(),
    });
    expect(await rowOf(id)).toMatchObject({ status: 'past_due' });
    expect((await invoicesOf(player.id)).map((i) => [i.status, Number(i.amount_paid)])).toEqual([
      ['paid', 700],
      ['open', 0],
    ]);
    expect(await paymentsOf(player.id)).toHaveLength(1);
    expect(await tierOf(player.id)).toBe('silver');
    expect((await auditOf(t.db, requestIdOf(failed)))[0]!.summary).toMatchObject({
      before: { status: 'active' },
      after: { status: 'past_due' },
      outcome: 'failed',
      events: ['invoice.payment_failed', 'subscription.updated'],
    });

    const paid = await renew(id, 'paid');
    expect(paid.json()).toMatchObject({ status: 'active' });
    expect(await paymentsOf(player.id)).toHaveLength(2);
  });

  it('paid after a cancel at period end: the subscription ends and the tier goes, nothing is charged', async () => {
    const { player, id } = await subscribe();
    expect((await post(`/v1/admin/billing/subscriptions/${id}/cancel`, { reason: 'Leaving' })).statusCode).toBe(200);
    const response = await renew(id, 'paid');
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toMatchObject({
      status: 'canceled',
      cancel_at_period_end: true,
      canceled_at: expect.any(String),
    });
    expect(await rowOf(id)).toMatchObject({ status: 'canceled', canceled_at: expect.any(Date) });
    expect(await tierOf(player.id)).toBeNull();
    expect(await invoicesOf(player.id)).toHaveLength(1);
    expect(await paymentsOf(player.id)).toHaveLength(1);
    expect((await auditOf(t.db, requestIdOf(response)))[0]!.summary).toMatchObject({
      after: { status: 'canceled' },
      events: ['subscription.deleted'],
    });
  });

  it('422 invalid_state for an ended subscription or one of another provider; 422 invalid_request when the provider refuses; nothing changes', async () => {
    const { id } = await subscribe();
    expect(
      (await post(`/v1/admin/billing/subscriptions/${id}/cancel`, { when: 'now', reason: 'Gone' })).statusCode,
    ).toBe(200);
    await expectRefusedUnchanged(renewalState, () => renew(id, 'paid'), 422, {
      error: 'invalid_state',
      details: { reason: 'the subscription has ended', status: 'canceled', cancel_at_period_end: false },
    });
    const expired = await subscribe();
    await t.db
      .updateTable('billing_subscriptions')
      .set({ status: 'incomplete_expired' })
      .where('id', '=', expired.id)
      .execute();
    await expectRefusedUnchanged(renewalState, () => renew(expired.id, 'failed'), 422, {
      error: 'invalid_state',
      details: { reason: 'the subscription has ended', status: 'incomplete_expired', cancel_at_period_end: false },
    });
    const elsewhere = await subscribe();
    await t.db
      .updateTable('billing_subscriptions')
      .set({ provider: 'stripe' })
      .where('id', '=', elsewhere.id)
      .execute();
    await expectRefusedUnchanged(renewalState, () => renew(elsewhere.id, 'paid'), 422, {
      error: 'invalid_state',
      details: {
        reason: 'the subscription belongs to the stripe payment provider, not the configured local one',
        provider: 'stripe',
      },
    });
    // Canceled at the provider while the row still says active (its event was lost).
    const stale = await subscribe();
    await t.kernel.payments.cancelSubscription(stale.providerId, 'now');
    await expectRefusedUnchanged(renewalState, () => renew(stale.id, 'paid'), 422, {
      error: 'invalid_request',
      details: {
        reason: 'the payment provider refused the request',
        provider_code: 'subscription_canceled',
        provider_message: 'a canceled subscription does not renew',
      },
    });
  });

  it('404, 400, 401 and 403 change nothing', async () => {
    const { id } = await subscribe();
    await expectRefusedUnchanged(renewalState, () => renew(randomUUID(), 'paid'), 404, { error: 'not_found' });
    await expectRefusedUnchanged(renewalState, () => post(renewUrl(id), {}), 400, schemaError({ path: ['outcome'] }));
    await expectRefusedUnchanged(renewalState, () => renew(id, 'refunded'), 400, schemaError({ path: ['outcome'] }));
    await expectRefusedUnchanged(
      renewalState,
      () => post(renewUrl(id), { outcome: 'paid', reason: 'Extra' }),
      400,
      schemaError({ code: 'unrecognized_keys' }),
    );
    await expectRefusedUnchanged(renewalState, () => renew('not-a-uuid', 'paid'), 400, schemaError({ path: ['id'] }));
    await expectRefusedUnchanged(renewalState, () => renew(id, 'paid', null), 401, { error: 'missing_token' });
    await expectRefusedUnchanged(renewalState, () => renew(id, 'paid', reader), 403, {
      error: 'forbidden',
      details: { perm: 'billing.write' },
    });
  });
});
