import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, eventually, startTestApp, type TestApp, type TestUser } from '../../helpers/app.js';
import { auditOf, requestIdOf, schemaError } from '../../helpers/expectations.js';
import { signToken } from '../../helpers/tokens.js';
import { addCredits, spendCredits } from '../../../src/modules/billing/credits/ledger.js';
import { LAST_OWNER } from '../../helpers/owners.js';

/**
 * Users administration on the embedded (`local`) identity provider: the profile view, edits,
 * ban and unban, and sign-out, with their audit rows and events. Operation 2 (delete) and the
 * identity-provider failure paths have files of their own.
 */

let t: TestApp;
let staff: TestUser;
let reader: TestUser;

const OWNER_ROLE_ID = '00000000-0000-4000-8000-000000000001';

async function userRow(id: string) {
  return t.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
}

beforeAll(async () => {
  t = await startTestApp();
  staff = await createUser(t.db, ['users.read', 'users.write']);
  reader = await createUser(t.db, ['users.read']);
  const ruleset = await t.db
    .insertInto('plan_rulesets')
    .values({ key: 'adm-rules', name: 'Rules', description: null, limits: '{}', is_active: true, updated_by: null })
    .returning('id')
    .executeTakeFirstOrThrow();
  await t.db
    .insertInto('plan_tiers')
    .values({ key: 'plus', name: 'Plus', rank: 3, ruleset_id: ruleset.id, description: null, updated_by: null })
    .execute();
});

afterAll(async () => {
  await t.close();
});

describe('GET /v1/admin/users/{id}', () => {
  it('shows the profile, tier, unexpired grants, subscription and recent audit', async () => {
    const player = await createUser(t.db, ['users.read']);
    await t.db
      .updateTable('users')
      .set({ display_name: 'Pat', tier: 'plus', metadata: JSON.stringify({ note: 'vip' }) })
      .where('id', '=', player.id)
      .execute();
    const expired = await t.db
      .insertInto('roles')
      .values({ key: `old-${randomUUID().slice(0, 6)}`, name: 'Old' })
      .returning('id')
      .executeTakeFirstOrThrow();
    await t.db
      .insertInto('user_roles')
      .values({
        user_id: player.id,
        role_id: expired.id,
        granted_by: null,
        reason: null,
        expires_at: '2020-01-01T00:00:00Z',
      })
      .execute();
    await t.db
      .insertInto('billing_subscriptions')
      .values([
        {
          user_id: player.id,
          provider: 'local',
          provider_subscription_id: `old_${player.id}`,
          status: 'canceled',
          created_at: '2026-11-01T00:00:00Z',
        },
        {
          user_id: player.id,
          provider: 'local',
          provider_subscription_id: `live_${player.id}`,
          status: 'active',
          created_at: '2026-01-01T00:00:00Z',
          current_period_end: '2026-12-01T00:00:00Z',
        },
      ])
      .execute();
    await t.request({
      method: 'PATCH',
      url: `/v1/admin/users/${player.id}`,
      token: staff.token,
      payload: { display_name: 'Pat Doe' },
    });
    await t.db.transaction().execute(async (trx) => {
      await addCredits(trx, { userId: player.id, amount: 200, kind: 'grant', actorId: null });
      await spendCredits(trx, { userId: player.id, amount: 50, kind: 'spend', actorId: null });
    });

    const response = await t.request({ method: 'GET', url: `/v1/admin/users/${player.id}`, token: reader.token });
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body).toMatchObject({
      id: player.id,
      email: player.email,
      display_name: 'Pat Doe',
      status: 'active',
      tier: 'plus',
      tier_detail: { key: 'plus', name: 'Plus', rank: 3 },
      metadata: { note: 'vip' },
      status_reason: null,
      subscription: {
        provider: 'local',
        status: 'active',
        current_period_end: '2026-12-01T00:00:00.000Z',
        cancel_at_period_end: false,
      },
      credit_balance: 150,
    });
    expect(body.roles).toHaveLength(1);
    expect(body.roles[0]).toMatchObject({ key: expect.stringMatching(/^test-/), expires_at: null, reason: 'test' });
    expect(body.recent_audit).toEqual([expect.objectContaining({ action: 'users.update', actor_id: staff.id })]);
  });

  it('404s an unknown user, 400s a malformed id, 403s without users.read', async () => {
    expect(
      (await t.request({ method: 'GET', url: `/v1/admin/users/${randomUUID()}`, token: reader.token })).json(),
    ).toEqual({ error: 'not_found' });
    const malformed = await t.request({ method: 'GET', url: '/v1/admin/users/nope', token: reader.token });
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json()).toEqual(schemaError({ path: ['id'] }));
    const outsider = await createUser(t.db, ['users.write']);
    const refused = await t.request({ method: 'GET', url: `/v1/admin/users/${reader.id}`, token: outsider.token });
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toEqual({ error: 'forbidden', details: { perm: 'users.read' } });
  });

  it('has no identity record on the local provider', async () => {
    const response = await t.request({
      method: 'GET',
      url: `/v1/admin/users/${reader.id}/identity`,
      token: reader.token,
    });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({
      error: 'not_found',
      details: { reason: 'the local identity provider has no record of this user' },
    });
  });
});

describe('PATCH /v1/admin/users/{id}', () => {
  it('changes the given fields, audits before and after, and returns the user', async () => {
    const player = await createUser(t.db);
    const response = await t.request({
      method: 'PATCH',
      url: `/v1/admin/users/${player.id}`,
      token: staff.token,
      payload: { display_name: 'New Name', tier: 'plus', metadata: { a: 1 }, reason: 'support ticket 42' },
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({
      id: player.id,
      display_name: 'New Name',
      tier: 'plus',
      metadata: { a: 1 },
    });
    expect(await userRow(player.id)).toMatchObject({ display_name: 'New Name', tier: 'plus', metadata: { a: 1 } });
    const [audit] = await auditOf(t.db, requestIdOf(response));
    expect(audit).toMatchObject({
      action: 'users.update',
      actor_id: staff.id,
      target_type: 'user',
      target_id: player.id,
      reason: 'support ticket 42',
      summary: {
        before: { display_name: null, tier: null, metadata: {} },
        after: { display_name: 'New Name', tier: 'plus', metadata: { a: 1 } },
      },
    });

    const cleared = await t.request({
      method: 'PATCH',
      url: `/v1/admin/users/${player.id}`,
      token: staff.token,
      payload: { tier: null, display_name: null },
    });
    expect(cleared.json()).toMatchObject({ tier: null, display_name: null, metadata: { a: 1 } });
  });

  it('writes nothing when nothing differs', async () => {
    const player = await createUser(t.db);
    const response = await t.request({
      method: 'PATCH',
      url: `/v1/admin/users/${player.id}`,
      token: staff.token,
      payload: { display_name: null },
    });
    expect(response.statusCode).toBe(200);
    expect(await auditOf(t.db, requestIdOf(response))).toEqual([]);
  });

  it('refuses an unknown tier, a deleted user, an unknown user, and bad bodies', async () => {
    const player = await createUser(t.db);
    const unknownTier = await t.request({
      method: 'PATCH',
      url: `/v1/admin/users/${player.id}`,
      token: staff.token,
      payload: { tier: 'platinum' },
    });
    expect(unknownTier.statusCode).toBe(422);
    expect(unknownTier.json()).toEqual({
      error: 'invalid_request',
      details: { reason: 'unknown tier', tier: 'platinum' },
    });
    expect((await userRow(player.id))?.tier).toBeNull();

    const gone = await createUser(t.db, [], { status: 'deleted' });
    const deleted = await t.request({
      method: 'PATCH',
      url: `/v1/admin/users/${gone.id}`,
      token: staff.token,
      payload: { display_name: 'x' },
    });
    expect(deleted.statusCode).toBe(422);
    expect(deleted.json()).toEqual({
      error: 'invalid_state',
      details: { reason: 'a deleted user cannot be edited', status: 'deleted' },
    });

    expect(
      (
        await t.request({
          method: 'PATCH',
          url: `/v1/admin/users/${randomUUID()}`,
          token: staff.token,
          payload: { display_name: 'x' },
        })
      ).statusCode,
    ).toBe(404);
    for (const payload of [
      {},
      { status: 'banned' },
      { display_name: 'x'.repeat(101) },
      { metadata: [] },
      { reason: 'only a reason' },
    ]) {
      const response = await t.request({
        method: 'PATCH',
        url: `/v1/admin/users/${player.id}`,
        token: staff.token,
        payload,
      });
      expect(response.statusCode, JSON.stringify(payload)).toBe(400);
      expect(response.json().error.name).toBe('SchemaError');
    }
    const readOnly = await t.request({
      method: 'PATCH',
      url: `/v1/admin/users/${player.id}`,
      token: reader.token,
      payload: { display_name: 'x' },
    });
    expect(readOnly.json()).toEqual({ error: 'forbidden', details: { perm: 'users.write' } });
  });
});

describe('ban and unban', () => {
  it("bans: status, reason, audit, event, and the user's next request is refused", async () => {
    const player = await createUser(t.db);
    expect((await t.request({ method: 'GET', url: '/v1/me', token: player.token })).statusCode).toBe(200);
    const response = await t.request({
      method: 'POST',
      url: `/v1/admin/users/${player.id}/ban`,
      token: staff.token,
      payload: { reason: 'cheating in ranked' },
    });
    expect(response.statusCode).toBe(204);
    expect(await userRow(player.id)).toMatchObject({
      status: 'banned',
      status_reason: 'cheating in ranked',
      status_changed_by: staff.id,
      deleted_at: null,
    });
    expect(await auditOf(t.db, requestIdOf(response))).toEqual([
      expect.objectContaining({
        action: 'users.ban',
        target_id: player.id,
        reason: 'cheating in ranked',
        summary: { before: { status: 'active' }, after: { status: 'banned' } },
      }),
    ]);
    await eventually(() =>
      expect(t.events).toContainEqual(
        expect.objectContaining({ name: 'users.banned', payload: { user_id: player.id } }),
      ),
    );
    const refused = await t.request({ method: 'GET', url: '/v1/me', token: player.token });
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toEqual({ error: 'forbidden', details: { reason: 'account_banned' } });

    const again = await t.request({
      method: 'POST',
      url: `/v1/admin/users/${player.id}/ban`,
      token: staff.token,
      payload: { reason: 'twice over' },
    });
    expect(again.statusCode).toBe(422);
    expect(again.json()).toEqual({
      error: 'invalid_state',
      details: { reason: 'a banned user cannot be banned', status: 'banned' },
    });

    const unban = await t.request({
      method: 'POST',
      url: `/v1/admin/users/${player.id}/unban`,
      token: staff.token,
      payload: { reason: 'appeal upheld' },
    });
    expect(unban.statusCode).toBe(204);
    expect(await userRow(player.id)).toMatchObject({ status: 'active', status_reason: 'appeal upheld' });
    expect(await auditOf(t.db, requestIdOf(unban))).toEqual([
      expect.objectContaining({
        action: 'users.unban',
        summary: { before: { status: 'banned' }, after: { status: 'active' } },
      }),
    ]);
    expect((await t.request({ method: 'GET', url: '/v1/me', token: player.token })).statusCode).toBe(200);

    const notBanned = await t.request({
      method: 'POST',
      url: `/v1/admin/users/${player.id}/unban`,
      token: staff.token,
      payload: {},
    });
    expect(notBanned.json()).toEqual({
      error: 'invalid_state',
      details: { reason: 'only a banned user can be unbanned; this one is active', status: 'active' },
    });
  });

  it('refuses yourself, someone holding more than you, a short reason, and an unknown user', async () => {
    const self = await t.request({
      method: 'POST',
      url: `/v1/admin/users/${staff.id}/ban`,
      token: staff.token,
      payload: { reason: 'testing' },
    });
    expect(self.statusCode).toBe(422);
    expect(self.json()).toEqual({ error: 'invalid_request', details: { reason: 'you cannot ban your own account' } });

    const admin = await createUser(t.db, ['users.write', 'billing.write']);
    const higher = await t.request({
      method: 'POST',
      url: `/v1/admin/users/${admin.id}/ban`,
      token: staff.token,
      payload: { reason: 'power grab' },
    });
    expect(higher.statusCode).toBe(403);
    expect(higher.json()).toEqual({
      error: 'forbidden',
      details: { perm: 'billing.write', missing: ['billing.write'], reason: 'the user holds permissions you do not' },
    });
    expect((await userRow(admin.id))?.status).toBe('active');
    expect(await auditOf(t.db, requestIdOf(higher))).toEqual([]);

    const short = await t.request({
      method: 'POST',
      url: `/v1/admin/users/${admin.id}/ban`,
      token: staff.token,
      payload: { reason: 'no' },
    });
    expect(short.json()).toEqual(schemaError({ path: ['reason'], code: 'too_small' }));
    expect(
      (
        await t.request({
          method: 'POST',
          url: `/v1/admin/users/${randomUUID()}/ban`,
          token: staff.token,
          payload: { reason: 'ghost' },
        })
      ).json(),
    ).toEqual({ error: 'not_found' });
  });

  it('refuses to ban the last active owner', async () => {
    const owner = await createUser(t.db);
    await t.db
      .insertInto('user_roles')
      .values({ user_id: owner.id, role_id: OWNER_ROLE_ID, granted_by: null, reason: null, expires_at: null })
      .execute();
    const superuser = await createUser(t.db, ['*']);
    const response = await t.request({
      method: 'POST',
      url: `/v1/admin/users/${owner.id}/ban`,
      token: superuser.token,
      payload: { reason: 'take over' },
    });
    expect(response.statusCode).toBe(422);
    expect(response.json()).toEqual(LAST_OWNER);
    expect((await userRow(owner.id))?.status).toBe('active');

    const second = await createUser(t.db);
    await t.db
      .insertInto('user_roles')
      .values({ user_id: second.id, role_id: OWNER_ROLE_ID, granted_by: null, reason: null, expires_at: null })
      .execute();
    expect(
      (
        await t.request({
          method: 'POST',
          url: `/v1/admin/users/${owner.id}/ban`,
          token: superuser.token,
          payload: { reason: 'now allowed' },
        })
      ).statusCode,
    ).toBe(204);
    // `second` stays: the database refuses to remove the last active owner, tests included.
  });
});

describe('POST /v1/admin/users/{id}/sign-out', () => {
  it('refuses every token issued until now, and accepts a later one', async () => {
    const player = await createUser(t.db);
    const response = await t.request({
      method: 'POST',
      url: `/v1/admin/users/${player.id}/sign-out`,
      token: staff.token,
      payload: { reason: 'lost phone' },
    });
    expect(response.statusCode).toBe(204);
    expect((await userRow(player.id))?.tokens_valid_after).toBeInstanceOf(Date);
    expect(await auditOf(t.db, requestIdOf(response))).toEqual([
      expect.objectContaining({
        action: 'users.sign_out',
        reason: 'lost phone',
        summary: { scope: 'all', session_id: null },
      }),
    ]);
    const old = await t.request({ method: 'GET', url: '/v1/me', token: player.token });
    expect(old.statusCode).toBe(401);
    expect(old.json()).toEqual({ error: 'invalid_token' });
    const fresh = await signToken({
      sub: player.id,
      email: player.email,
      claims: { iat: Math.floor(Date.now() / 1000) + 2 },
    });
    expect((await t.request({ method: 'GET', url: '/v1/me', token: fresh })).statusCode).toBe(200);
  });

  it('ends one session only', async () => {
    const player = await createUser(t.db);
    const phone = await signToken({ sub: player.id, claims: { session_id: 'phone-session' } });
    const laptop = await signToken({ sub: player.id, claims: { session_id: 'laptop-session' } });
    const response = await t.request({
      method: 'POST',
      url: `/v1/admin/users/${player.id}/sign-out`,
      token: staff.token,
      payload: { session_id: 'phone-session' },
    });
    expect(response.statusCode).toBe(204);
    expect(
      await t.db
        .selectFrom('revoked_sessions')
        .select(['session_id', 'revoked_by'])
        .where('user_id', '=', player.id)
        .execute(),
    ).toEqual([{ session_id: 'phone-session', revoked_by: staff.id }]);
    expect((await t.request({ method: 'GET', url: '/v1/me', token: phone })).json()).toEqual({
      error: 'invalid_token',
    });
    expect((await t.request({ method: 'GET', url: '/v1/me', token: laptop })).statusCode).toBe(200);
    // Ending it twice is harmless.
    expect(
      (
        await t.request({
          method: 'POST',
          url: `/v1/admin/users/${player.id}/sign-out`,
          token: staff.token,
          payload: { session_id: 'phone-session' },
        })
      ).statusCode,
    ).toBe(204);
  });
});
