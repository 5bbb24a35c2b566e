import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, startTestApp, type TestApp, type TestUser } from '../../../helpers/app.js';
import { auditOf, expectRefusedUnchanged, requestIdOf, schemaError } from '../../../helpers/expectations.js';
import { storedState } from '../../../helpers/stored-state.js';
import { startStripeServer, stripeError, type StripeServer } from '../../../helpers/stripe-server.js';

/**
 * Staff coupons and promotion codes: written at the payment provider first, then mirrored with
 * an audit row in one transaction. Every refusal leaves the mirror and the audit log untouched.
 */

const COUPONS = '/v1/admin/billing/coupons';
const CODES = '/v1/admin/billing/promotion-codes';
const FUTURE = new Date(Date.now() + 30 * 86_400_000).toISOString();
const PAST = new Date(Date.now() - 86_400_000).toISOString();
type App = TestApp;

let t: App;
let staff: TestUser;
let reader: TestUser;
let outsider: TestUser;

/** What a refusal must leave as it was: coupons, promotion codes, and the audit log's size. */
const couponState = (app: App) => storedState(app.db, { billing_coupons: ['id'], billing_promotion_codes: ['id'] });

const send = (
  app: App,
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
  url: string,
  user: TestUser | null,
  payload?: object,
) => app.request({ method, url, token: user?.token, ...(payload ? { payload } : {}) });

async function newCoupon(app: App = t, payload: object = { name: 'Ten off', percent_off: 10, duration: 'once' }) {
  const response = await send(app, 'POST', COUPONS, staff, payload);
  expect(response.statusCode, response.body).toBe(201);
  return response.json() as { id: string; provider_coupon_id: string };
}

let codeCounter = 0;
async function newCode(couponId: string, extra: object = {}, app: App = t) {
  const response = await send(app, 'POST', CODES, staff, {
    code: `CODE${++codeCounter}X`,
    coupon_id: couponId,
    ...extra,
  });
  expect(response.statusCode, response.body).toBe(201);
  return response.json() as { id: string; code: string; provider_promotion_code_id: string };
}

const couponRow = (id: string) =>
  t.db.selectFrom('billing_coupons').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
const codeRow = (id: string) =>
  t.db.selectFrom('billing_promotion_codes').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

beforeAll(async () => {
  t = await startTestApp();
  staff = await createUser(t.db, ['billing.read', 'billing.write']);
  reader = await createUser(t.db, ['billing.read']);
  outsider = await createUser(t.db, []);
});
afterAll(async () => {
  await t.close();
});

describe('POST /v1/admin/billing/coupons', () => {
  it('201: a percent coupon is created at the provider, mirrored and audited', async () => {
    const response = await send(t, 'POST', COUPONS, staff, {
      name: 'Spring',
      percent_off: 12.5,
      duration: 'repeating',
      duration_in_months: 3,
      max_redemptions: 50,
      redeem_by: FUTURE,
    });
    expect(response.statusCode, response.body).toBe(201);
    const body = response.json();
    expect(body).toEqual({
      id: expect.any(String),
      provider_coupon_id: expect.stringMatching(/^coupon_local_/),
      name: 'Spring',
      percent_off: 12.5,
      amount_off: null,
      currency: null,
      duration: 'repeating',
      duration_in_months: 3,
      max_redemptions: 50,
      redeem_by: FUTURE,
      active: true,
      deleted_at: null,
      created_by: staff.id,
      created_at: expect.any(String),
    });
    const row = await couponRow(body.id);
    expect({ ...row, percent_off: Number(row.percent_off) }).toMatchObject({
      provider_coupon_id: body.provider_coupon_id,
      percent_off: 12.5,
      amount_off: null,
      duration: 'repeating',
      duration_in_months: 3,
      redeem_by: new Date(FUTURE),
      deleted_at: null,
      created_by: staff.id,
    });
    const audit = await auditOf(t.db, requestIdOf(response));
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({
      actor_id: staff.id,
      action: 'billing.coupon.create',
      target_type: 'billing_coupon',
      target_id: body.id,
    });
    expect(audit[0]!.summary).toMatchObject({
      after: { provider_coupon_id: body.provider_coupon_id, percent_off: 12.5, duration: 'repeating' },
    });
  });

  it('201: an amount coupon keeps minor units and a lowercased currency', async () => {
    const response = await send(t, 'POST', COUPONS, staff, {
      name: 'Five',
      amount_off: 500,
      currency: 'EUR',
      duration: 'forever',
    });
    expect(response.statusCode).toBe(201);
    expect(response.json()).toMatchObject({
      amount_off: 500,
      currency: 'eur',
      percent_off: null,
      duration_in_months: null,
    });
    expect(await couponRow(response.json().id)).toMatchObject({ currency: 'eur', percent_off: null });
    expect(Number((await couponRow(response.json().id)).amount_off)).toBe(500);
  });

  it.each([
    ['no discount', { name: 'x', duration: 'once' }, 'percent_off'],
    [
      'both discounts',
      { name: 'x', duration: 'once', percent_off: 5, amount_off: 100, currency: 'usd' },
      'percent_off',
    ],
    ['amount without currency', { name: 'x', duration: 'once', amount_off: 100 }, 'currency'],
    ['currency without amount', { name: 'x', duration: 'once', percent_off: 5, currency: 'usd' }, 'currency'],
    ['percent over 100', { name: 'x', duration: 'once', percent_off: 100.5 }, 'percent_off'],
    ['percent zero', { name: 'x', duration: 'once', percent_off: 0 }, 'percent_off'],
    ['three decimals', { name: 'x', duration: 'once', percent_off: 10.125 }, 'percent_off'],
    ['repeating without months', { name: 'x', duration: 'repeating', percent_off: 5 }, 'duration_in_months'],
    ['months with once', { name: 'x', duration: 'once', percent_off: 5, duration_in_months: 2 }, 'duration_in_months'],
    ['37 months', { name: 'x', duration: 'repeating', percent_off: 5, duration_in_months: 37 }, 'duration_in_months'],
    ['redeem_by past', { name: 'x', duration: 'once', percent_off: 5, redeem_by: PAST }, 'redeem_by'],
    ['max_redemptions 0', { name: 'x', duration: 'once', percent_off: 5, max_redemptions: 0 }, 'max_redemptions'],
    ['empty name', { name: ' ', duration: 'once', percent_off: 5 }, 'name'],
  ])('400 (%s), nothing stored', async (_case, payload, field) => {
    await expectRefusedUnchanged(
      () => couponState(t),
      () => send(t, 'POST', COUPONS, staff, payload),
      400,
      schemaError({ path: [field] }),
    );
  });

  it('401 without a token, 403 without billing.write; nothing stored', async () => {
    const payload = { name: 'x', duration: 'once', percent_off: 5 };
    await expectRefusedUnchanged(
      () => couponState(t),
      () => send(t, 'POST', COUPONS, null, payload),
      401,
      { error: 'missing_token' },
    );
    const forbidden = await send(t, 'POST', COUPONS, reader, payload);
    expect(forbidden.statusCode).toBe(403);
    await expectRefusedUnchanged(
      () => couponState(t),
      () => send(t, 'POST', COUPONS, reader, payload),
      403,
      forbidden.json(),
    );
  });
});

describe('GET /v1/admin/billing/coupons', () => {
  it('pages with total and filters active/deleted', async () => {
    const live = await newCoupon();
    const gone = await newCoupon();
    expect((await send(t, 'DELETE', `${COUPONS}/${gone.id}`, staff)).statusCode).toBe(204);
    const all = await send(t, 'GET', `${COUPONS}?per_page=1`, reader);
    expect(all.statusCode).toBe(200);
    const total = await t.db
      .selectFrom('billing_coupons')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow();
    expect(all.json().meta).toEqual({ page: 1, per_page: 1, total: Number(total.n) });
    expect(all.json().data).toHaveLength(1);
    const deleted = (await send(t, 'GET', `${COUPONS}?status=deleted&per_page=100`, reader)).json();
    expect(deleted.data.map((c: { id: string }) => c.id)).toContain(gone.id);
    expect(
      deleted.data.every((c: { active: boolean; deleted_at: string | null }) => !c.active && c.deleted_at !== null),
    ).toBe(true);
    const active = (await send(t, 'GET', `${COUPONS}?status=active&per_page=100`, reader)).json();
    expect(active.data.map((c: { id: string }) => c.id)).toContain(live.id);
    expect(active.data.map((c: { id: string }) => c.id)).not.toContain(gone.id);
    expect(active.meta.total + deleted.meta.total).toBe(Number(total.n));
  });

  it('400 on a bad filter, 401, 403', async () => {
    expect((await send(t, 'GET', `${COUPONS}?status=gone`, reader)).statusCode).toBe(400);
    expect((await send(t, 'GET', COUPONS, null)).statusCode).toBe(401);
    expect((await send(t, 'GET', COUPONS, outsider)).statusCode).toBe(403);
  });
});

describe('DELETE /v1/admin/billing/coupons/{id}', () => {
  it('204: deleted at the provider, row kept and marked, its codes deactivated, audited; a second delete is 404', async () => {
    const coupon = await newCoupon();
    const code = await newCode(coupon.id);
    const response = await send(t, 'DELETE', `${COUPONS}/${coupon.id}`, staff);
    expect(response.statusCode).toBe(204);
    expect(await couponRow(coupon.id)).toMatchObject({ deleted_at: expect.any(Date), deleted_by: staff.id });
    expect(await codeRow(code.id)).toMatchObject({ active: false, updated_by: staff.id });
    const audit = await auditOf(t.db, requestIdOf(response));
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({
      action: 'billing.coupon.delete',
      target_id: coupon.id,
      summary: { provider_coupon_id: coupon.provider_coupon_id, promotion_codes_deactivated: 1 },
    });
    await expectRefusedUnchanged(
      () => couponState(t),
      () => send(t, 'DELETE', `${COUPONS}/${coupon.id}`, staff),
      404,
      { error: 'not_found' },
    );
  });

  it('404 unknown, 400 bad id, 401, 403; nothing changed', async () => {
    const coupon = await newCoupon();
    await expectRefusedUnchanged(
      () => couponState(t),
      () => send(t, 'DELETE', `${COUPONS}/00000000-0000-4000-8000-000000000000`, staff),
      404,
      {
        error: 'not_found',
      },
    );
    expect((await send(t, 'DELETE', `${COUPONS}/nope`, staff)).statusCode).toBe(400);
    await expectRefusedUnchanged(
      () => couponState(t),
      () => send(t, 'DELETE', `${COUPONS}/${coupon.id}`, null),
      401,
      { error: 'missing_token' },
    );
    const before = await couponState(t);
    expect((await send(t, 'DELETE', `${COUPONS}/${coupon.id}`, reader)).statusCode).toBe(403);
    expect(await couponState(t)).toEqual(before);
  });
});

describe('promotion codes', () => {
  it('POST 201: mirrored and audited, defaults first_time_only false and active true', async () => {
    const coupon = await newCoupon();
    const response = await send(t, 'POST', CODES, staff, {
      code: 'Summer-25',
      coupon_id: coupon.id,
      max_redemptions: 10,
      expires_at: FUTURE,
    });
    expect(response.statusCode, response.body).toBe(201);
    const body = response.json();
    expect(body).toEqual({
      id: expect.any(String),
      provider_promotion_code_id: expect.stringMatching(/^promo_local_/),
      coupon_id: coupon.id,
      code: 'Summer-25',
      max_redemptions: 10,
      expires_at: FUTURE,
      first_time_only: false,
      active: true,
      created_by: staff.id,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect(await codeRow(body.id)).toMatchObject({
      code: 'Summer-25',
      coupon_id: coupon.id,
      active: true,
      first_time_only: false,
      expires_at: new Date(FUTURE),
    });
    const audit = await auditOf(t.db, requestIdOf(response));
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({
      action: 'billing.promotion_code.create',
      target_type: 'billing_promotion_code',
      target_id: body.id,
      summary: { after: { code: 'Summer-25', coupon_id: coupon.id } },
    });
  });

  it('POST 409 for the same code in another case, 404 for an unknown or deleted coupon, 400 for a bad code; nothing stored', async () => {
    const coupon = await newCoupon();
    await newCode(coupon.id, { code: 'TAKEN1' });
    await expectRefusedUnchanged(
      () => couponState(t),
      () => send(t, 'POST', CODES, staff, { code: 'taken1', coupon_id: coupon.id }),
      409,
      {
        error: 'conflict',
        details: expect.objectContaining({ code: 'taken1' }),
      },
    );
    const unknown = '00000000-0000-4000-8000-000000000001';
    await expectRefusedUnchanged(
      () => couponState(t),
      () => send(t, 'POST', CODES, staff, { code: 'FRESH1', coupon_id: unknown }),
      404,
      {
        error: 'not_found',
        details: { coupon_id: unknown },
      },
    );
    const gone = await newCoupon();
    expect((await send(t, 'DELETE', `${COUPONS}/${gone.id}`, staff)).statusCode).toBe(204);
    await expectRefusedUnchanged(
      () => couponState(t),
      () => send(t, 'POST', CODES, staff, { code: 'FRESH2', coupon_id: gone.id }),
      404,
      {
        error: 'not_found',
        details: { coupon_id: gone.id },
      },
    );
    await expectRefusedUnchanged(
      () => couponState(t),
      () => send(t, 'POST', CODES, staff, { code: 'no spaces', coupon_id: coupon.id }),
      400,
      schemaError({ path: ['code'] }),
    );
    await expectRefusedUnchanged(
      () => couponState(t),
      () => send(t, 'POST', CODES, staff, { code: 'PASTX', coupon_id: coupon.id, expires_at: PAST }),
      400,
      schemaError({ path: ['expires_at'] }),
    );
    await expectRefusedUnchanged(
      () => couponState(t),
      () => send(t, 'POST', CODES, null, { code: 'FRESH3', coupon_id: coupon.id }),
      401,
      {
        error: 'missing_token',
      },
    );
    const before = await couponState(t);
    expect((await send(t, 'POST', CODES, reader, { code: 'FRESH3', coupon_id: coupon.id })).statusCode).toBe(403);
    expect(await couponState(t)).toEqual(before);
  });

  it('GET pages with total, filters coupon_id and active', async () => {
    const coupon = await newCoupon();
    const on = await newCode(coupon.id);
    const off = await newCode(coupon.id, { active: false });
    const list = await send(t, 'GET', `${CODES}?coupon_id=${coupon.id}&per_page=1`, reader);
    expect(list.statusCode).toBe(200);
    expect(list.json().meta).toEqual({ page: 1, per_page: 1, total: 2 });
    const active = (await send(t, 'GET', `${CODES}?coupon_id=${coupon.id}&active=true`, reader)).json();
    expect(active.data.map((c: { id: string }) => c.id)).toEqual([on.id]);
    const inactive = (await send(t, 'GET', `${CODES}?coupon_id=${coupon.id}&active=false`, reader)).json();
    expect(inactive.data.map((c: { id: string }) => c.id)).toEqual([off.id]);
    expect((await send(t, 'GET', `${CODES}?active=maybe`, reader)).statusCode).toBe(400);
    expect((await send(t, 'GET', CODES, null)).statusCode).toBe(401);
    expect((await send(t, 'GET', CODES, outsider)).statusCode).toBe(403);
  });

  it('PATCH 200 deactivates and reactivates, audited; the same value writes nothing', async () => {
    const coupon = await newCoupon();
    const code = await newCode(coupon.id);
    const off = await send(t, 'PATCH', `${CODES}/${code.id}`, staff, { active: false });
    expect(off.statusCode).toBe(200);
    expect(off.json()).toMatchObject({ id: code.id, active: false });
    expect(await codeRow(code.id)).toMatchObject({ active: false });
    const audit = await auditOf(t.db, requestIdOf(off));
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({
      action: 'billing.promotion_code.update',
      target_id: code.id,
      summary: { before: { active: true }, after: { active: false } },
    });
    const before = await couponState(t);
    const same = await send(t, 'PATCH', `${CODES}/${code.id}`, staff, { active: false });
    expect(same.statusCode).toBe(200);
    expect(await couponState(t)).toEqual(before);
    expect((await send(t, 'PATCH', `${CODES}/${code.id}`, staff, { active: true })).json()).toMatchObject({
      active: true,
    });
    expect(await codeRow(code.id)).toMatchObject({ active: true });
  });

  it('PATCH 400 empty or fixed fields, 404 unknown, 422 reactivating a code of a deleted coupon, 401, 403; nothing changed', async () => {
    const coupon = await newCoupon();
    const code = await newCode(coupon.id);
    await expectRefusedUnchanged(
      () => couponState(t),
      () => send(t, 'PATCH', `${CODES}/${code.id}`, staff, {}),
      400,
      schemaError({ path: ['active'] }),
    );
    await expectRefusedUnchanged(
      () => couponState(t),
      () => send(t, 'PATCH', `${CODES}/${code.id}`, staff, { max_redemptions: 5 }),
      400,
      expect.objectContaining({ success: false }),
    );
    await expectRefusedUnchanged(
      () => couponState(t),
      () => send(t, 'PATCH', `${CODES}/00000000-0000-4000-8000-000000000002`, staff, { active: false }),
      404,
      { error: 'not_found' },
    );
    await expectRefusedUnchanged(
      () => couponState(t),
      () => send(t, 'PATCH', `${CODES}/${code.id}`, null, { active: false }),
      401,
      {
        error: 'missing_token',
      },
    );
    const before = await couponState(t);
    expect((await send(t, 'PATCH', `${CODES}/${code.id}`, reader, { active: false })).statusCode).toBe(403);
    expect(await couponState(t)).toEqual(before);
    expect((await send(t, 'DELETE', `${COUPONS}/${coupon.id}`, staff)).statusCode).toBe(204);
    await expectRefusedUnchanged(
      () => couponState(t),
      () => send(t, 'PATCH', `${CODES}/${code.id}`, staff, { active: true }),
      422,
      {
        error: 'invalid_state',
        details: { reason: expect.any(String), coupon_id: coupon.id },
      },
    );
  });
});

describe('on Stripe: refusals are 422 with the provider code, outages 503; nothing stored', () => {
  const secretKey = 'sk_test_billingcoupons';
  let stripe: StripeServer;
  let s: App;
  beforeAll(async () => {
    stripe = await startStripeServer({ secretKey });
    s = await startTestApp({
      config: { stripeSecretKey: secretKey, stripeWebhookSecret: 'whsec_billingcoupons', stripeApiBase: stripe.url },
    });
  });
  afterAll(async () => {
    await s.close();
    await stripe.close();
  });

  async function stripeStaff() {
    return createUser(s.db, ['billing.read', 'billing.write']);
  }

  it('creates at Stripe: the coupon and code exist there and are mirrored; deleting removes it there', async () => {
    const user = await stripeStaff();
    const created = await send(s, 'POST', COUPONS, user, {
      name: 'Stripe five',
      amount_off: 500,
      currency: 'usd',
      duration: 'once',
    });
    expect(created.statusCode, created.body).toBe(201);
    const providerId = created.json().provider_coupon_id as string;
    expect(stripe.coupons.get(providerId)).toMatchObject({ amount_off: 500, currency: 'usd', duration: 'once' });
    const code = await send(s, 'POST', CODES, user, {
      code: 'STRIPE5',
      coupon_id: created.json().id,
      first_time_only: true,
    });
    expect(code.statusCode, code.body).toBe(201);
    expect(stripe.promotionCodes.get(code.json().provider_promotion_code_id)).toMatchObject({
      code: 'STRIPE5',
      active: true,
    });
    expect((await send(s, 'DELETE', `${COUPONS}/${created.json().id}`, user)).statusCode).toBe(204);
    expect(stripe.coupons.has(providerId)).toBe(false);
  });

  it('422 invalid_request with the provider code when Stripe refuses', async () => {
    const user = await stripeStaff();
    stripe.behave({
      kind: 'answer',
      status: 400,
      body: stripeError('invalid_request_error', 'Invalid currency: xyz', {
        code: 'parameter_invalid_string',
        param: 'currency',
      }),
      times: 1,
    });
    await expectRefusedUnchanged(
      () => couponState(s),
      () => send(s, 'POST', COUPONS, user, { name: 'x', amount_off: 5, currency: 'xyz', duration: 'once' }),
      422,
      {
        error: 'invalid_request',
        details: {
          reason: expect.any(String),
          provider_code: 'parameter_invalid_string',
          provider_message: 'Invalid currency: xyz',
        },
      },
    );
  });

  it('PATCH a promotion code: 422 invalid_request with the provider code when Stripe refuses; the code stays active', async () => {
    const user = await stripeStaff();
    const coupon = (await send(s, 'POST', COUPONS, user, { name: 'refused', percent_off: 5, duration: 'once' })).json();
    const code = (await send(s, 'POST', CODES, user, { code: 'REFUSED1', coupon_id: coupon.id })).json();
    stripe.behave({
      kind: 'answer',
      status: 400,
      body: stripeError('invalid_request_error', 'This promotion code cannot be updated.', {
        code: 'resource_invalid_state',
      }),
      times: 1,
    });
    await expectRefusedUnchanged(
      () => couponState(s),
      () => send(s, 'PATCH', `${CODES}/${code.id}`, user, { active: false }),
      422,
      {
        error: 'invalid_request',
        details: {
          reason: expect.any(String),
          provider_code: 'resource_invalid_state',
          provider_message: 'This promotion code cannot be updated.',
        },
      },
    );
    expect(stripe.promotionCodes.get(code.provider_promotion_code_id)).toMatchObject({ active: true });
  });

  it('503 unavailable when Stripe fails, for every write', async () => {
    const user = await stripeStaff();
    const coupon = (await send(s, 'POST', COUPONS, user, { name: 'y', percent_off: 5, duration: 'once' })).json();
    const code = (await send(s, 'POST', CODES, user, { code: 'OUTAGE1', coupon_id: coupon.id })).json();
    const failure = stripeError('api_error', 'Something went wrong on our end.');
    stripe.behave({ kind: 'answer', status: 500, body: failure });
    try {
      const unavailable = { error: 'unavailable', details: { reason: 'the payment provider is unavailable' } };
      await expectRefusedUnchanged(
        () => couponState(s),
        () => send(s, 'POST', COUPONS, user, { name: 'z', percent_off: 5, duration: 'once' }),
        503,
        unavailable,
      );
      await expectRefusedUnchanged(
        () => couponState(s),
        () => send(s, 'DELETE', `${COUPONS}/${coupon.id}`, user),
        503,
        unavailable,
      );
      await expectRefusedUnchanged(
        () => couponState(s),
        () => send(s, 'POST', CODES, user, { code: 'OUTAGE2', coupon_id: coupon.id }),
        503,
        unavailable,
      );
      await expectRefusedUnchanged(
        () => couponState(s),
        () => send(s, 'PATCH', `${CODES}/${code.id}`, user, { active: false }),
        503,
        unavailable,
      );
    } finally {
      stripe.behave({ kind: 'normal' });
    }
  });
});
