import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createUser, startTestApp, type TestApp, type TestUser } from '../../helpers/app.js';
import { decide, oauthAnswer, poll, pollDeviceCode, requestCodes } from './fixtures.js';

/** The player's side: inspect, approve, deny; the approved-device list; revocation; other users' codes and ids. */

let t: TestApp;
// Fresh players per test: approve allows 5 a minute per user.
let player: TestUser;
let stranger: TestUser;

beforeAll(async () => {
  t = await startTestApp();
});
beforeEach(async () => {
  player = await createUser(t.db);
  stranger = await createUser(t.db);
});
afterAll(async () => {
  await t.close();
});

const rowOf = (userCode: string) =>
  t.db
    .selectFrom('device_authorizations')
    .selectAll()
    .where('user_code', '=', userCode.replace('-', ''))
    .executeTakeFirstOrThrow();
const auditOf = (targetId: string) =>
  t.db
    .selectFrom('audit_log')
    .select(['action', 'actor_id'])
    .where('target_id', '=', targetId)
    .orderBy('created_at')
    .execute();

/** A device the player approved and signed in; answers its tokens and list id. */
async function signedInDevice(user: TestUser) {
  const codes = await requestCodes(t);
  expect((await decide(t, user, codes.user_code, 'approve')).statusCode).toBe(200);
  const tokens = (await pollDeviceCode(t, codes)).json();
  return { codes, tokens, id: (await rowOf(codes.user_code)).id };
}

describe('POST /v1/me/device/approve', () => {
  it('inspect shows who asked, from where, and changes nothing', async () => {
    const codes = await requestCodes(t, { client_id: 'launcher', scope: 'play' });
    const inspected = await decide(t, player, codes.user_code, 'inspect');
    expect(inspected.statusCode).toBe(200);
    expect(inspected.json()).toEqual({
      client_id: 'launcher',
      client_name: 'Game launcher',
      scope: 'play',
      status: 'pending',
      ip: codes.ip,
      user_agent: 'Launcher/1.0',
      created_at: expect.any(String),
      expires_at: expect.any(String),
    });
    expect(await rowOf(codes.user_code)).toMatchObject({ status: 'pending', user_id: null });
  });

  it.each([
    ['lower case with the dash', (code: string) => code.toLowerCase()],
    ['without the dash', (code: string) => code.replace('-', '')],
    ['mixed case with spaces', (code: string) => ` ${code.slice(0, 4).toLowerCase()} ${code.slice(5)} `],
  ])('accepts the code %s', async (_name, form) => {
    const codes = await requestCodes(t);
    const approved = await decide(t, player, form(codes.user_code), 'approve');
    expect(approved.json()).toMatchObject({ status: 'approved' });
    expect(await rowOf(codes.user_code)).toMatchObject({
      status: 'approved',
      user_id: player.id,
      decided_at: expect.any(Date),
    });
  });

  it('approve and deny are final and audited; the same decision again by the same player is answered as done', async () => {
    const codes = await requestCodes(t);
    expect((await decide(t, player, codes.user_code, 'approve')).json()).toMatchObject({ status: 'approved' });
    expect((await decide(t, player, codes.user_code, 'approve')).json()).toMatchObject({ status: 'approved' });
    const flip = await decide(t, player, codes.user_code, 'deny');
    expect({ status: flip.statusCode, error: flip.json().error }).toEqual({ status: 422, error: 'invalid_state' });
    const row = await rowOf(codes.user_code);
    expect(row.status).toBe('approved');
    expect(await auditOf(row.id)).toEqual([{ action: 'device_authorization.approve', actor_id: player.id }]);

    const denied = await requestCodes(t);
    expect((await decide(t, player, denied.user_code, 'deny')).json()).toMatchObject({ status: 'denied' });
    expect(await auditOf((await rowOf(denied.user_code)).id)).toEqual([
      { action: 'device_authorization.deny', actor_id: player.id },
    ]);
  });

  it('a code approved by one player cannot be approved (or denied) by another: 422 invalid_state, nothing changed', async () => {
    const codes = await requestCodes(t);
    await decide(t, player, codes.user_code, 'approve');
    for (const action of ['approve', 'deny'] as const) {
      const response = await decide(t, stranger, codes.user_code, action);
      expect({ status: response.statusCode, error: response.json().error }).toEqual({
        status: 422,
        error: 'invalid_state',
      });
    }
    expect(await rowOf(codes.user_code)).toMatchObject({ status: 'approved', user_id: player.id });
  });

  it('malformed, unknown and expired codes are the same 404 not_found', async () => {
    const codes = await requestCodes(t);
    await t.db
      .updateTable('device_authorizations')
      .set({ expires_at: new Date(Date.now() - 1_000) })
      .where('user_code', '=', codes.user_code.replace('-', ''))
      .execute();
    for (const userCode of ['AAAA-AAAA', 'BCDF-GHJK-LMN', '????', codes.user_code]) {
      const response = await decide(t, stranger, userCode, 'approve');
      expect(oauthAnswer(response), userCode).toEqual({ status: 404, body: { error: 'not_found' } });
    }
    expect(await rowOf(codes.user_code)).toMatchObject({ status: 'pending', user_id: null });
  });

  it('needs a signed-in caller; refuses unknown fields', async () => {
    expect(
      (
        await t.request({
          method: 'POST',
          url: '/v1/me/device/approve',
          payload: { user_code: 'BCDF-GHJK', action: 'inspect' },
        })
      ).statusCode,
    ).toBe(401);
    const extra = await t.request({
      method: 'POST',
      url: '/v1/me/device/approve',
      token: player.token,
      payload: { user_code: 'BCDF-GHJK', action: 'inspect', user_id: stranger.id },
    });
    expect(extra.statusCode).toBe(400);
  });
});

describe('GET and DELETE /v1/me/device-authorizations', () => {
  it("lists only the caller's approved devices, newest first", async () => {
    const lister = await createUser(t.db);
    const first = await signedInDevice(lister);
    const pending = await requestCodes(t);
    await decide(t, lister, (await requestCodes(t)).user_code, 'deny');
    const second = await signedInDevice(lister);
    await decide(t, stranger, pending.user_code, 'approve');
    const response = await t.request({ method: 'GET', url: '/v1/me/device-authorizations', token: lister.token });
    expect(response.statusCode).toBe(200);
    expect(response.json().data).toEqual(
      [second.id, first.id].map((id) => ({
        id,
        client_id: 'launcher',
        client_name: 'Game launcher',
        scope: null,
        approved_at: expect.any(String),
        signed_in: true,
        last_used_at: expect.any(String),
        ip: expect.stringMatching(/^10\.20\./),
        last_used_ip: expect.stringMatching(/^10\.20\./),
      })),
    );
  });

  it('revoking one: its access token is refused (401 invalid_token) from the next request, its refresh token is invalid_grant, the other device works on', async () => {
    const owner = await createUser(t.db);
    const revoked = await signedInDevice(owner);
    const kept = await signedInDevice(owner);
    expect((await t.request({ method: 'GET', url: '/v1/me', token: revoked.tokens.access_token })).statusCode).toBe(
      200,
    );

    const response = await t.request({
      method: 'DELETE',
      url: `/v1/me/device-authorizations/${revoked.id}`,
      token: owner.token,
    });
    expect(response.statusCode).toBe(204);

    expect(oauthAnswer(await t.request({ method: 'GET', url: '/v1/me', token: revoked.tokens.access_token }))).toEqual({
      status: 401,
      body: { error: 'invalid_token' },
    });
    expect(
      oauthAnswer(
        await poll(t, {
          grant_type: 'refresh_token',
          refresh_token: revoked.tokens.refresh_token,
          client_id: 'launcher',
        }),
      ),
    ).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect((await t.request({ method: 'GET', url: '/v1/me', token: kept.tokens.access_token })).statusCode).toBe(200);
    expect(
      (await t.request({ method: 'GET', url: '/v1/me/device-authorizations', token: owner.token }))
        .json()
        .data.map((d: { id: string }) => d.id),
    ).toEqual([kept.id]);
    const row = await t.db
      .selectFrom('device_authorizations')
      .selectAll()
      .where('id', '=', revoked.id)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ revoked_at: expect.any(Date), refresh_token_hash: null });
    expect(
      await t.db
        .selectFrom('revoked_sessions')
        .select(['session_id', 'revoked_by'])
        .where('user_id', '=', owner.id)
        .execute(),
    ).toEqual([{ session_id: row.session_id, revoked_by: owner.id }]);
    expect(await auditOf(revoked.id)).toContainEqual({ action: 'device_authorization.revoke', actor_id: owner.id });

    // Already revoked: no longer the caller's device.
    expect(
      (await t.request({ method: 'DELETE', url: `/v1/me/device-authorizations/${revoked.id}`, token: owner.token }))
        .statusCode,
    ).toBe(404);
  });

  it("another player's device id is 404 like an unknown one, and nothing changes", async () => {
    const owner = await createUser(t.db);
    const device = await signedInDevice(owner);
    for (const id of [device.id, '00000000-0000-4000-8000-000000000000']) {
      expect(
        oauthAnswer(
          await t.request({ method: 'DELETE', url: `/v1/me/device-authorizations/${id}`, token: stranger.token }),
        ),
      ).toEqual({ status: 404, body: { error: 'not_found' } });
    }
    expect(
      (await t.request({ method: 'GET', url: '/v1/me/device-authorizations', token: stranger.token }))
        .json()
        .data.map((d: { id: string }) => d.id),
    ).not.toContain(device.id);
    expect((await t.request({ method: 'GET', url: '/v1/me', token: device.tokens.access_token })).statusCode).toBe(200);
    expect(
      (
        await poll(t, {
          grant_type: 'refresh_token',
          refresh_token: device.tokens.refresh_token,
          client_id: 'launcher',
        })
      ).statusCode,
    ).toBe(200);
    expect(
      await t.db.selectFrom('revoked_sessions').select('session_id').where('user_id', '=', owner.id).execute(),
    ).toEqual([]);
  });

  it('a device whose session was ended elsewhere (staff or login-session sign-out) leaves the list and cannot refresh', async () => {
    const owner = await createUser(t.db);
    const device = await signedInDevice(owner);
    const { session_id } = await t.db
      .selectFrom('device_authorizations')
      .select('session_id')
      .where('id', '=', device.id)
      .executeTakeFirstOrThrow();
    await t.db
      .insertInto('revoked_sessions')
      .values({ user_id: owner.id, session_id: session_id!, revoked_by: null })
      .execute();
    expect(
      (await t.request({ method: 'GET', url: '/v1/me/device-authorizations', token: owner.token })).json().data,
    ).toEqual([]);
    expect(
      oauthAnswer(
        await poll(t, {
          grant_type: 'refresh_token',
          refresh_token: device.tokens.refresh_token,
          client_id: 'launcher',
        }),
      ),
    ).toEqual({ status: 400, body: { error: 'invalid_grant', error_description: 'the session has ended' } });
  });
});

describe('the OpenAPI document', () => {
  it('documents the five routes: public ones open with OAuth 400 bodies, /v1/me ones behind the bearer', async () => {
    const doc = (await t.request({ method: 'GET', url: '/openapi.json' })).json();
    for (const path of ['/v1/public/device/code', '/v1/public/device/token']) {
      const op = doc.paths[path].post;
      expect(op.security, path).toEqual([]);
      // The code route's limit answers 429; the token route's answers OAuth's 400 `slow_down` instead.
      expect(Object.keys(op.responses).sort(), path).toEqual(
        path === '/v1/public/device/code'
          ? ['200', '400', '408', '413', '415', '429', '500', '503']
          : ['200', '400', '408', '413', '415', '500', '503'],
      );
      expect(op.responses['400'].content['application/json'].schema, path).toMatchObject({
        properties: { error: { type: 'string' }, interval: { type: 'integer' } },
      });
      expect(Object.keys(op.requestBody.content).sort(), path).toEqual([
        'application/json',
        'application/x-www-form-urlencoded',
      ]);
    }
    for (const [method, path] of [
      ['post', '/v1/me/device/approve'],
      ['get', '/v1/me/device-authorizations'],
      ['delete', '/v1/me/device-authorizations/{id}'],
    ] as const) {
      const op = doc.paths[path][method];
      expect(op.security, path).toEqual([{ bearerAuth: [] }]);
      expect(Object.keys(op.responses), path).toEqual(expect.arrayContaining(['401', '403', '500']));
    }
  });
});
