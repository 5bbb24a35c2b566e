import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, eventually, startTestApp, type TestApp, type TestUser } from '../../helpers/app.js';
import { auditOf, expectRefusedUnrecorded, requestIdOf, schemaError } from '../../helpers/expectations.js';
import { signToken } from '../../helpers/tokens.js';
import { confirm, DAY, mailedCode, runJobsAt, start, stateOf, wrongCodeFor } from '../../helpers/account-deletion.js';
import { LAST_OWNER } from '../../helpers/owners.js';
import { clockPast } from '../../helpers/waiting.js';

/**
 * The player deletes their own account: a code mailed, then confirmed; the account is refused
 * from then on, its subscriptions end with their period, and the purge job erases it after
 * the grace period. Every refusal leaves the account, the request's stored state aside, as it was.
 */

const urls = { successUrl: 'https://game.example/done', cancelUrl: 'https://game.example/cancel' };
const OWNER_ROLE_ID = '00000000-0000-4000-8000-000000000001';

let t: TestApp;
let staff: TestUser;

beforeAll(async () => {
  t = await startTestApp();
  staff = await createUser(t.db, ['users.delete']);
  const ruleset = await t.db
    .insertInto('plan_rulesets')
    .values({ key: 'del-rules', name: 'Rules', description: null, limits: '{}', is_active: true, updated_by: null })
    .returning('id')
    .executeTakeFirstOrThrow();
  await t.db
    .insertInto('plan_tiers')
    .values({ key: 'silver', name: 'Silver', rank: 1, ruleset_id: ruleset.id, description: null, updated_by: null })
    .execute();
  const catalog = await createUser(t.db, ['plans.write']);
  const product = await t.request({
    method: 'POST',
    url: '/v1/admin/plans/products',
    token: catalog.token,
    payload: { kind: 'plan', name: 'Silver plan', tierKey: 'silver' },
  });
  expect(product.statusCode, product.body).toBe(201);
  const price = await t.request({
    method: 'POST',
    url: `/v1/admin/plans/products/${product.json().id}/prices`,
    token: catalog.token,
    payload: { providerPriceId: 'price_sub_silver', currency: 'usd', unitAmount: 500, interval: 'month' },
  });
  expect(price.statusCode, price.body).toBe(201);
});
afterAll(async () => {
  await t.close();
});

/** A player who bought the silver plan on the local checkout page. */
async function subscriber(): Promise<TestUser> {
  const player = await createUser(t.db);
  const started = await t.request({
    method: 'POST',
    url: '/v1/me/billing/checkout-session',
    token: player.token,
    payload: { ...urls, priceId: 'price_sub_silver' },
  });
  expect(started.statusCode, started.body).toBe(200);
  const paid = await t.request({
    method: 'POST',
    url: `/v1/public/billing/local/checkout/${started.json().id}/pay`,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: '',
  });
  expect(paid.statusCode).toBe(303);
  return player;
}

/** When the user's newest mail was queued. */
const newestMailAt = async (userId: string) =>
  (
    await t.db
      .selectFrom('email_messages')
      .select('created_at')
      .where('user_id', '=', userId)
      .orderBy('created_at', 'desc')
      .executeTakeFirstOrThrow()
  ).created_at;

async function startedDeletion(player: TestUser): Promise<string> {
  expect((await start(t, player)).statusCode).toBe(202);
  return mailedCode(t, player.id);
}

const eventsOf = (name: string, userId: string) =>
  t.events.filter((event) => event.name === name && event.payload.user_id === userId);

describe('the whole flow', () => {
  it('request → mailed code → confirm → refused → purged after the grace period', async () => {
    const player = await subscriber();
    const before = await stateOf(t, player.id);
    expect(before.subscriptions).toMatchObject([{ status: 'active', cancel_at_period_end: false }]);
    expect(before.user?.tier).toBe('silver');

    const started = await start(t, player, { reason: 'moving on' });
    expect(started.statusCode, started.body).toBe(202);
    const expiresAt = new Date(started.json().expires_at).getTime();
    expect(Math.abs(expiresAt - (Date.now() + 30 * 60_000))).toBeLessThan(10_000);
    const mail = await t.db
      .selectFrom('email_messages')
      .selectAll()
      .where('user_id', '=', player.id)
      .executeTakeFirstOrThrow();
    expect(mail).toMatchObject({
      to_email: player.email,
      category: 'transactional',
      subject: 'Confirm the deletion of your account',
    });
    const code = await mailedCode(t, player.id);
    expect(mail.html).toContain(code);
    // Only the hash is stored; nothing about the account has changed.
    const pending = await stateOf(t, player.id);
    expect(pending.request).toMatchObject({ status: 'pending', failed_attempts: 0, reason: 'moving on' });
    expect(JSON.stringify(pending.request)).not.toContain(code);
    expect({ ...pending, request: undefined, mails: 0 }).toEqual({ ...before, request: undefined, mails: 0 });

    const confirmed = await confirm(t, player, code);
    expect(confirmed.statusCode, confirmed.body).toBe(200);
    const { deleted_at, hard_delete_at } = confirmed.json();
    expect(new Date(hard_delete_at).getTime() - new Date(deleted_at).getTime()).toBe(30 * DAY);
    const after = await stateOf(t, player.id);
    expect(after.user).toMatchObject({
      status: 'deleted',
      status_reason: 'moving on',
      status_changed_by: player.id,
      deleted_at: new Date(deleted_at),
    });
    expect(after.request).toMatchObject({
      status: 'confirmed',
      code_hash: null,
      hard_delete_at: new Date(hard_delete_at),
    });
    // Set to end with the period already paid for, at the provider, and mirrored here.
    expect(after.subscriptions).toMatchObject([{ status: 'active', cancel_at_period_end: true }]);
    const audit = await auditOf(t.db, requestIdOf(confirmed));
    expect(audit).toMatchObject([
      {
        action: 'users.self_delete',
        actor_id: player.id,
        target_type: 'user',
        target_id: player.id,
        reason: 'moving on',
      },
    ]);
    expect(audit[0]!.summary).toMatchObject({
      before: { status: 'active' },
      after: { status: 'deleted' },
      hard_delete_at,
      subscriptions_cancelled: [before.subscriptions[0]!.id],
      subscriptions_unreachable: [],
    });
    await eventually(() =>
      expect(eventsOf('users.soft_deleted', player.id)).toMatchObject([
        { actorId: player.id, requestId: requestIdOf(confirmed) },
      ]),
    );

    const refused = await t.request({ method: 'GET', url: '/v1/me', token: player.token });
    expect({ status: refused.statusCode, body: refused.json() }).toEqual({
      status: 403,
      body: { error: 'forbidden', details: { reason: 'account_deleted' } },
    });

    // Before the grace period ends the job leaves the account alone; after, it is erased.
    const early = await runJobsAt(t, new Date(), new Date(new Date(hard_delete_at).getTime() - DAY));
    expect(early).toMatchObject({ result: 'ok', summary: { purged: 0, failed: 0 } });
    expect((await stateOf(t, player.id)).user).toBeDefined();
    const due = await runJobsAt(t, new Date(), new Date(new Date(hard_delete_at).getTime() + 2 * 3_600_000));
    expect(due).toMatchObject({ result: 'ok', summary: { purged: 1, failed: 0 } });
    const gone = await stateOf(t, player.id);
    expect(gone).toMatchObject({ user: undefined, request: undefined, subscriptions: [], mails: 0 });
    const purgeAudit = await t.db
      .selectFrom('audit_log')
      .selectAll()
      .where('action', '=', 'users.hard_delete')
      .where('target_id', '=', player.id)
      .execute();
    expect(purgeAudit).toMatchObject([
      {
        actor_id: null,
        reason: 'grace period of a self-deleted account ended',
        summary: { previous_status: 'deleted' },
      },
    ]);
    // Earlier entries about the user lose their personal details, as operation 2 does.
    expect(
      (
        await t.db
          .selectFrom('audit_log')
          .select('summary')
          .where('action', '=', 'users.self_delete')
          .where('target_id', '=', player.id)
          .executeTakeFirstOrThrow()
      ).summary,
    ).toEqual({ redacted: true });
    await eventually(() => expect(eventsOf('users.hard_deleted', player.id)).toMatchObject([{ actorId: null }]));
  });

  it('a request without a body works too, and a new request replaces the previous one', async () => {
    const player = await createUser(t.db);
    const first = await t.request({ method: 'POST', url: '/v1/me/delete', token: player.token });
    expect(first.statusCode, first.body).toBe(202);
    const oldCode = await mailedCode(t, player.id);
    const wrong = await confirm(t, player, wrongCodeFor(oldCode));
    expect(wrong.json()).toMatchObject({ details: { attempts_left: 4 } });
    // The new code's mail must sort after the old one's: mailedCode reads the newest.
    await clockPast(await newestMailAt(player.id));
    const newCode = await startedDeletion(player);
    expect((await stateOf(t, player.id)).request).toMatchObject({ status: 'pending', failed_attempts: 0 });
    if (newCode !== oldCode) {
      const stale = await confirm(t, player, oldCode);
      expect(stale.json()).toEqual({ error: 'invalid_request', details: { reason: 'wrong code', attempts_left: 4 } });
    }
    expect((await confirm(t, player, newCode)).statusCode).toBe(200);
  });
});

describe('refusals change nothing about the account', () => {
  /** The account as a refusal must leave it: all of it but the deletion request, on which a wrong code counts. */
  const accountOf = async (player: TestUser) => ({ ...(await stateOf(t, player.id)), request: undefined });
  const expectRefusal = (player: TestUser, send: () => ReturnType<typeof confirm>, status: number, body: unknown) =>
    expectRefusedUnrecorded(t.db, () => accountOf(player), send, status, body);
  const requestOf = async (player: TestUser) => (await stateOf(t, player.id)).request;

  it('confirm without a request: 422 invalid_state', async () => {
    const player = await createUser(t.db);
    await expectRefusal(player, () => confirm(t, player, '12345678'), 422, {
      error: 'invalid_state',
      details: { reason: 'no deletion request is pending; start one with POST /v1/me/delete' },
    });
  });

  it('wrong codes are counted (attempts left), the fifth voids the request, and then even the right code is refused', async () => {
    const player = await createUser(t.db);
    const code = await startedDeletion(player);
    for (let attempt = 1; attempt <= 4; attempt++) {
      await expectRefusal(player, () => confirm(t, player, wrongCodeFor(code)), 422, {
        error: 'invalid_request',
        details: { reason: 'wrong code', attempts_left: 5 - attempt },
      });
      expect(await requestOf(player)).toMatchObject({ status: 'pending', failed_attempts: attempt });
    }
    await expectRefusal(player, () => confirm(t, player, wrongCodeFor(code)), 422, {
      error: 'invalid_state',
      details: { reason: '5 wrong codes: the request is void; start a new one' },
    });
    expect(await requestOf(player)).toMatchObject({ status: 'voided', failed_attempts: 5, code_hash: null });
    await expectRefusal(player, () => confirm(t, player, code), 422, {
      error: 'invalid_state',
      details: { reason: 'the request was voided after 5 wrong codes; start a new one' },
    });
    // Starting again gives a fresh code and counter.
    const fresh = await startedDeletion(player);
    expect((await confirm(t, player, fresh)).statusCode).toBe(200);
  });

  it('an expired code: 422 invalid_state, the right code included', async () => {
    const player = await createUser(t.db);
    const code = await startedDeletion(player);
    const expired = new Date(Date.now() - 1_000);
    await t.db
      .updateTable('account_deletion_requests')
      .set({ code_expires_at: expired })
      .where('user_id', '=', player.id)
      .execute();
    await expectRefusal(player, () => confirm(t, player, code), 422, {
      error: 'invalid_state',
      details: { reason: 'the code has expired; start a new request', expired_at: expired.toISOString() },
    });
  });

  it('an account without an email address cannot start: 422 invalid_state, nothing stored or mailed', async () => {
    // A phone sign-in, say: the token carries no email claim either (it would fill the column in).
    const created = await createUser(t.db);
    await t.db.updateTable('users').set({ email: null }).where('id', '=', created.id).execute();
    const player = { ...created, token: await signToken({ sub: created.id }) };
    await expectRefusal(player, () => start(t, player), 422, {
      error: 'invalid_state',
      details: { reason: 'the account has no email address to send the confirmation code to' },
    });
    expect(await requestOf(player)).toBeUndefined();
  });

  it('the last active owner cannot start: 422 invalid_request', async () => {
    const owner = await createUser(t.db);
    await t.db
      .insertInto('user_roles')
      .values({ user_id: owner.id, role_id: OWNER_ROLE_ID, granted_by: null, reason: 'test', expires_at: null })
      .execute();
    await expectRefusal(owner, () => start(t, owner), 422, LAST_OWNER);
    expect(await requestOf(owner)).toBeUndefined();
    // The owner stays: the database refuses to remove the last active owner, tests included.
  });

  it('schema errors (400) and no token (401)', async () => {
    const player = await createUser(t.db);
    expect((await confirm(t, player, '12ab')).json()).toEqual(schemaError({ path: ['code'] }));
    expect((await start(t, player, { reason: 'x'.repeat(501) })).json()).toEqual(schemaError({ path: ['reason'] }));
    expect((await start(t, player, { user_id: staff.id })).json()).toEqual(schemaError({ code: 'unrecognized_keys' }));
    expect(
      (await t.request({ method: 'POST', url: '/v1/me/delete/confirm', payload: { code: '12345678' } })).statusCode,
    ).toBe(401);
    expect((await stateOf(t, player.id)).request).toBeUndefined();
  });

  it("a confirmation acts on the caller only: another player's code is just a wrong code", async () => {
    const victim = await createUser(t.db);
    const attacker = await createUser(t.db);
    const victimCode = await startedDeletion(victim);
    await startedDeletion(attacker);
    const response = await confirm(t, attacker, victimCode);
    expect(response.json()).toMatchObject({ error: 'invalid_request' });
    expect((await stateOf(t, victim.id)).user?.status).toBe('active');
    expect((await stateOf(t, victim.id)).request).toMatchObject({ status: 'pending', failed_attempts: 0 });
  });
});

describe("POST /v1/admin/users/{id}/restore (the grace period's way back)", () => {
  it('restores a self-deleted account: active, old tokens refused, not purged', async () => {
    const player = await createUser(t.db);
    const confirmed = await confirm(t, player, await startedDeletion(player));
    // The admin answer tells this deletion from a staff one, and until when it can be undone.
    const reader = await createUser(t.db, ['users.read']);
    const detail = async () =>
      (await t.request({ method: 'GET', url: `/v1/admin/users/${player.id}`, token: reader.token })).json();
    expect((await detail()).deletion).toEqual({ by: 'self', restorable_until: confirmed.json().hard_delete_at });
    const restored = await t.request({
      method: 'POST',
      url: `/v1/admin/users/${player.id}/restore`,
      token: staff.token,
      payload: { reason: 'changed their mind' },
    });
    expect(restored.statusCode, restored.body).toBe(204);
    const state = await stateOf(t, player.id);
    expect(state.user).toMatchObject({ status: 'active', deleted_at: null, status_reason: 'changed their mind' });
    expect(state.request).toBeUndefined();
    expect(await auditOf(t.db, requestIdOf(restored))).toMatchObject([
      {
        action: 'users.self_delete_cancel',
        actor_id: staff.id,
        target_id: player.id,
        summary: {
          before: { status: 'deleted' },
          after: { status: 'active' },
          hard_delete_at: confirmed.json().hard_delete_at,
        },
      },
    ]);
    expect((await detail()).deletion).toBeNull();
    await eventually(() => expect(eventsOf('users.restored', player.id)).toHaveLength(1));
    expect((await t.request({ method: 'GET', url: '/v1/me', token: player.token })).statusCode).toBe(401);
    // Days past the other tests' runs, so the job is due again.
    await runJobsAt(t, new Date(), new Date(new Date(confirmed.json().hard_delete_at).getTime() + 5 * DAY));
    expect((await stateOf(t, player.id)).user).toMatchObject({ status: 'active' });
  });

  it('a self-deletion past its purge time (the purge not yet run) is no longer restorable: 422, nothing changes', async () => {
    const player = await createUser(t.db);
    expect((await confirm(t, player, await startedDeletion(player))).statusCode).toBe(200);
    const hardDeleteAt = new Date(Date.now() - 60_000);
    await t.db
      .updateTable('account_deletion_requests')
      .set({ hard_delete_at: hardDeleteAt })
      .where('user_id', '=', player.id)
      .execute();
    await expectRefusedUnrecorded(
      t.db,
      () => stateOf(t, player.id),
      () =>
        t.request({
          method: 'POST',
          url: `/v1/admin/users/${player.id}/restore`,
          token: staff.token,
          payload: { reason: 'too late' },
        }),
      422,
      {
        error: 'invalid_state',
        details: {
          reason: 'the grace period in which the deletion could be undone has ended',
          status: 'deleted',
          deleted_by: 'self',
          restorable_until: hardDeleteAt.toISOString(),
        },
      },
    );
  });

  it('refuses 404 unknown, 422 not deleted or with no deletion time, 403 without users.delete', async () => {
    const unknown = await t.request({
      method: 'POST',
      url: '/v1/admin/users/00000000-0000-4000-8000-00000000abcd/restore',
      token: staff.token,
      payload: { reason: 'why not' },
    });
    expect({ status: unknown.statusCode, body: unknown.json() }).toEqual({ status: 404, body: { error: 'not_found' } });
    const active = await createUser(t.db);
    const refused = await t.request({
      method: 'POST',
      url: `/v1/admin/users/${active.id}/restore`,
      token: staff.token,
      payload: { reason: 'why not' },
    });
    expect({ status: refused.statusCode, body: refused.json() }).toEqual({
      status: 422,
      body: {
        error: 'invalid_state',
        details: { reason: 'the account is not deleted', status: 'active' },
      },
    });
    // Deleted outside the API, with no deletion time recorded: nothing says it is still restorable.
    const staffDeleted = await createUser(t.db, [], { status: 'deleted' });
    const notSelf = await t.request({
      method: 'POST',
      url: `/v1/admin/users/${staffDeleted.id}/restore`,
      token: staff.token,
      payload: { reason: 'why not' },
    });
    expect(notSelf.json()).toMatchObject({
      error: 'invalid_state',
      details: { status: 'deleted', deleted_by: 'staff', restorable_until: null },
    });
    const player = await createUser(t.db);
    const forbidden = await t.request({
      method: 'POST',
      url: `/v1/admin/users/${active.id}/restore`,
      token: player.token,
      payload: { reason: 'why not' },
    });
    expect(forbidden.statusCode).toBe(403);
  });
});
