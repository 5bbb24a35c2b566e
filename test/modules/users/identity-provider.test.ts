import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createUser, startTestApp, type TestApp, type TestUser } from '../../helpers/app.js';
import { captureLog, type CapturedLog } from '../../helpers/captured-log.js';
import { auditOf, requestIdOf } from '../../helpers/expectations.js';
import { goTrueError, startGoTrueServer, type GoTrueServer } from '../../helpers/gotrue-server.js';
import { TEST_JWT_SECRET } from '../../helpers/tokens.js';

/**
 * The users routes with the `gotrue` identity provider configured, against a GoTrue peer on
 * loopback: what the provider is asked, and operation 2's 502 `auth_service_error` (and the
 * other lifecycle routes') when it refuses, fails or hangs: then nothing is changed here.
 */

const SERVICE_KEY = 'gotrue-service-role-key-never-logged-0123456789';

let gotrue: GoTrueServer;
let t: TestApp;
let logs: CapturedLog;
let staff: TestUser;

/** A user the service and GoTrue both know (same id). */
async function sharedUser(): Promise<TestUser> {
  const user = await createUser(t.db);
  gotrue.addUser({ id: user.id, email: user.email });
  return user;
}

const userRow = (id: string) => t.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();

beforeAll(async () => {
  gotrue = await startGoTrueServer({ serviceKey: SERVICE_KEY, jwtSecret: TEST_JWT_SECRET, prefix: '/auth/v1' });
  logs = captureLog();
  t = await startTestApp({
    log: logs.log,
    config: { identityAdminUrl: gotrue.url, identityServiceKey: SERVICE_KEY, identityTimeoutMs: 300 },
  });
  staff = await createUser(t.db, ['users.read', 'users.write', 'users.delete']);
});

beforeEach(() => gotrue.behave({ kind: 'normal' }));

afterAll(async () => {
  await t.close();
  await gotrue.close();
  // The service key reached GoTrue in headers only: never a log line.
  expect(logs.text()).not.toContain(SERVICE_KEY);
});

describe('with GoTrue answering', () => {
  it('hard delete removes the account at GoTrue, then here', async () => {
    const player = await sharedUser();
    const response = await t.request({
      method: 'DELETE',
      url: `/v1/admin/users/${player.id}`,
      token: staff.token,
      payload: { reason: 'erasure request', hard: true },
    });
    expect(response.statusCode).toBe(204);
    expect(gotrue.user(player.id)).toBeUndefined();
    expect(await userRow(player.id)).toBeUndefined();
  });

  it('hard delete of someone GoTrue no longer has still completes', async () => {
    const player = await createUser(t.db);
    const response = await t.request({
      method: 'DELETE',
      url: `/v1/admin/users/${player.id}`,
      token: staff.token,
      payload: { reason: 'orphan row', hard: true },
    });
    expect(response.statusCode).toBe(204);
    expect(await userRow(player.id)).toBeUndefined();
  });

  it('soft delete does not call GoTrue', async () => {
    const player = await sharedUser();
    const before = gotrue.requests.length;
    expect(
      (
        await t.request({
          method: 'DELETE',
          url: `/v1/admin/users/${player.id}`,
          token: staff.token,
          payload: { reason: 'closing account' },
        })
      ).statusCode,
    ).toBe(204);
    expect(gotrue.requests.length).toBe(before);
    expect(gotrue.user(player.id)).toBeDefined();
  });

  it("ban and unban set and lift GoTrue's ban; sign-out ends GoTrue's sessions", async () => {
    const player = await sharedUser();
    const session = gotrue.addSession(player.id);
    expect(
      (
        await t.request({
          method: 'POST',
          url: `/v1/admin/users/${player.id}/ban`,
          token: staff.token,
          payload: { reason: 'abuse reports' },
        })
      ).statusCode,
    ).toBe(204);
    expect(gotrue.user(player.id)?.banned_until).toBeDefined();
    const identity = await t.request({
      method: 'GET',
      url: `/v1/admin/users/${player.id}/identity`,
      token: staff.token,
    });
    expect(identity.statusCode).toBe(200);
    expect(identity.json()).toMatchObject({ id: player.id, email: player.email, banned_until: expect.any(String) });
    expect(
      (await t.request({ method: 'POST', url: `/v1/admin/users/${player.id}/unban`, token: staff.token, payload: {} }))
        .statusCode,
    ).toBe(204);
    expect(gotrue.user(player.id)?.banned_until).toBeUndefined();

    expect(gotrue.sessionsOf(player.id)).toEqual([session]);
    expect(
      (
        await t.request({
          method: 'POST',
          url: `/v1/admin/users/${player.id}/sign-out`,
          token: staff.token,
          payload: {},
        })
      ).statusCode,
    ).toBe(204);
    expect(gotrue.sessionsOf(player.id)).toEqual([]);
  });

  it('signing out one session GoTrue cannot hold (not a UUID: a token family) ends it here and asks GoTrue nothing', async () => {
    const player = await sharedUser();
    const before = gotrue.requests.length;
    const response = await t.request({
      method: 'POST',
      url: `/v1/admin/users/${player.id}/sign-out`,
      token: staff.token,
      payload: { session_id: 'token-0123456789abcdef0123456789abcdef' },
    });
    expect(response.statusCode, response.body).toBe(204);
    expect(gotrue.requests.length).toBe(before);
    expect(
      await t.db.selectFrom('revoked_sessions').select('session_id').where('user_id', '=', player.id).execute(),
    ).toEqual([{ session_id: 'token-0123456789abcdef0123456789abcdef' }]);
  });
});

describe('502 auth_service_error when GoTrue refuses, fails or hangs', () => {
  const failures = [
    {
      name: 'a refusal',
      behaviour: { kind: 'answer', status: 403, body: goTrueError(403, 'not_admin', 'User not allowed') },
      status: 403,
    },
    {
      name: 'a server error',
      behaviour: { kind: 'answer', status: 500, body: goTrueError(500, 'unexpected_failure', 'boom') },
      status: 500,
    },
    { name: 'a hang past the timeout', behaviour: { kind: 'hang' }, status: null },
  ] as const;

  it.each(failures)(
    'operation 2 (hard) on $name: 502, the user and their rows stay, no audit row, the status is logged',
    async ({ behaviour, status }) => {
      const player = await sharedUser();
      await t.db
        .insertInto('billing_subscriptions')
        .values({ user_id: player.id, provider: 'local', provider_subscription_id: `s_${player.id}`, status: 'active' })
        .execute();
      gotrue.behave(behaviour);
      const response = await t.request({
        method: 'DELETE',
        url: `/v1/admin/users/${player.id}`,
        token: staff.token,
        payload: { reason: 'erasure request', hard: true },
      });
      expect(response.statusCode).toBe(502);
      expect(response.json()).toEqual({ error: 'auth_service_error', details: { operation: 'delete user' } });
      expect(response.body).not.toContain(SERVICE_KEY);
      expect(await userRow(player.id)).toMatchObject({ status: 'active' });
      expect(
        await t.db.selectFrom('billing_subscriptions').select('id').where('user_id', '=', player.id).execute(),
      ).toHaveLength(1);
      expect(await auditOf(t.db, requestIdOf(response))).toEqual([]);
      const line = logs
        .lines()
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .find((l) => l.request_id === requestIdOf(response) && 'identity_operation' in l);
      expect(line).toMatchObject({ identity_operation: 'delete user', provider_status: status });
      gotrue.behave({ kind: 'normal' });
      expect(gotrue.user(player.id)).toBeDefined();
    },
  );

  it('ban, unban, sign-out and the identity record answer 502 too, and change nothing', async () => {
    const player = await sharedUser();
    gotrue.behave({ kind: 'answer', status: 500, body: goTrueError(500, 'unexpected_failure', 'down') });
    const ban = await t.request({
      method: 'POST',
      url: `/v1/admin/users/${player.id}/ban`,
      token: staff.token,
      payload: { reason: 'abuse reports' },
    });
    expect(ban.statusCode).toBe(502);
    expect(ban.json()).toEqual({ error: 'auth_service_error', details: { operation: 'ban user' } });
    expect((await userRow(player.id))?.status).toBe('active');

    const signOut = await t.request({
      method: 'POST',
      url: `/v1/admin/users/${player.id}/sign-out`,
      token: staff.token,
      payload: {},
    });
    expect(signOut.json()).toEqual({ error: 'auth_service_error', details: { operation: 'sign out user' } });
    expect((await userRow(player.id))?.tokens_valid_after).toBeNull();
    expect((await t.request({ method: 'GET', url: '/v1/me', token: player.token })).statusCode).toBe(200);

    const identity = await t.request({
      method: 'GET',
      url: `/v1/admin/users/${player.id}/identity`,
      token: staff.token,
    });
    expect(identity.json()).toEqual({ error: 'auth_service_error', details: { operation: 'fetch user' } });

    await t.db.updateTable('users').set({ status: 'banned' }).where('id', '=', player.id).execute();
    const unban = await t.request({
      method: 'POST',
      url: `/v1/admin/users/${player.id}/unban`,
      token: staff.token,
      payload: {},
    });
    expect(unban.json()).toEqual({ error: 'auth_service_error', details: { operation: 'unban user' } });
    expect((await userRow(player.id))?.status).toBe('banned');
    for (const response of [ban, signOut, unban]) expect(await auditOf(t.db, requestIdOf(response))).toEqual([]);
  });
});
