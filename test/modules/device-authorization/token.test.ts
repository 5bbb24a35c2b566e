import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createUser, startTestApp, type TestApp, type TestUser } from '../../helpers/app.js';
import { decide, DEVICE_GRANT, freshIp, oauthAnswer, poll, pollDeviceCode, requestCodes } from './fixtures.js';

/**
 * The token endpoint's answers, one per RFC 8628 section 3.5 state, with `Date` under the test's
 * control (the service, the token minting and the limiter all read it) so intervals and expiry
 * are exact.
 */

let t: TestApp;
let player: TestUser;
let clock: number;
const advance = (seconds: number) => {
  clock += seconds * 1_000;
  vi.setSystemTime(clock);
};

beforeAll(async () => {
  t = await startTestApp();
  player = await createUser(t.db);
});
afterAll(async () => {
  await t.close();
});
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'] });
  clock = Math.ceil(Date.now() / 60_000) * 60_000 + 1_000;
  vi.setSystemTime(clock);
});
afterEach(() => {
  vi.useRealTimers();
});

const storedRow = (userCode: string) =>
  t.db
    .selectFrom('device_authorizations')
    .selectAll()
    .where('user_code', '=', userCode.replace('-', ''))
    .executeTakeFirstOrThrow();

describe('POST /v1/public/device/code', () => {
  it("answers the codes form-encoded or as JSON, and stores only the device code's hash", async () => {
    const codes = await requestCodes(t, { client_id: 'launcher', scope: 'play chat' });
    expect(codes).toMatchObject({
      user_code: expect.stringMatching(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/),
      verification_uri: 'http://platform.test/device',
      expires_in: 600,
      interval: 5,
    });
    expect(Buffer.from(codes.device_code, 'base64url')).toHaveLength(32);
    const row = await storedRow(codes.user_code);
    expect(row).toMatchObject({
      client_id: 'launcher',
      scope: 'play chat',
      status: 'pending',
      requester_ip: codes.ip,
      requester_user_agent: 'Launcher/1.0',
      interval_seconds: 5,
    });
    expect(row.device_code_hash).not.toContain(codes.device_code);
    expect(row.expires_at.getTime() - row.created_at.getTime()).toBe(600_000);

    const json = await t.request({
      method: 'POST',
      url: '/v1/public/device/code',
      remoteAddress: freshIp(),
      payload: { client_id: 'launcher' },
    });
    expect(json.statusCode).toBe(200);
    expect(json.headers['cache-control']).toBe('no-store');
  });

  it('an unknown client is 400 invalid_client; a missing client_id is 400 invalid_request; nothing stored', async () => {
    const before = await t.db
      .selectFrom('device_authorizations')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow();
    const unknown = await t.request({
      method: 'POST',
      url: '/v1/public/device/code',
      remoteAddress: freshIp(),
      payload: { client_id: 'someone-else' },
    });
    expect(oauthAnswer(unknown)).toEqual({
      status: 400,
      body: { error: 'invalid_client', error_description: 'unknown client_id' },
    });
    const missing = await t.request({
      method: 'POST',
      url: '/v1/public/device/code',
      remoteAddress: freshIp(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'scope=play',
    });
    expect(oauthAnswer(missing)).toEqual({
      status: 400,
      body: { error: 'invalid_request', error_description: expect.stringContaining('client_id') },
    });
    const after = await t.db
      .selectFrom('device_authorizations')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow();
    expect(after.n).toBe(before.n);
  });
});

describe('POST /v1/public/device/token', () => {
  it('pending → authorization_pending; too fast → slow_down with the interval grown by 5 each time; waiting the new interval → pending again', async () => {
    const codes = await requestCodes(t);
    expect(oauthAnswer(await pollDeviceCode(t, codes))).toEqual({
      status: 400,
      body: { error: 'authorization_pending' },
    });
    advance(1);
    expect(oauthAnswer(await pollDeviceCode(t, codes))).toEqual({
      status: 400,
      body: { error: 'slow_down', error_description: 'poll at most every 10 s', interval: 10 },
    });
    advance(6); // 5 s would have been enough before; now 10 are required
    expect(oauthAnswer(await pollDeviceCode(t, codes))).toMatchObject({
      status: 400,
      body: { error: 'slow_down', interval: 15 },
    });
    advance(15);
    expect(oauthAnswer(await pollDeviceCode(t, codes))).toEqual({
      status: 400,
      body: { error: 'authorization_pending' },
    });
    expect(await storedRow(codes.user_code)).toMatchObject({ interval_seconds: 15, last_polled_at: new Date(clock) });
  });

  it('denied → access_denied, and no tokens ever', async () => {
    const codes = await requestCodes(t);
    expect((await decide(t, player, codes.user_code, 'deny')).json()).toMatchObject({ status: 'denied' });
    expect(oauthAnswer(await pollDeviceCode(t, codes))).toEqual({ status: 400, body: { error: 'access_denied' } });
    advance(5);
    expect(oauthAnswer(await pollDeviceCode(t, codes))).toEqual({ status: 400, body: { error: 'access_denied' } });
  });

  it('past 600 s → expired_token, even when approved in time but collected late', async () => {
    const unapproved = await requestCodes(t);
    const approved = await requestCodes(t);
    expect((await decide(t, player, approved.user_code, 'approve')).statusCode).toBe(200);
    advance(600);
    expect(oauthAnswer(await pollDeviceCode(t, unapproved))).toEqual({ status: 400, body: { error: 'expired_token' } });
    expect(oauthAnswer(await pollDeviceCode(t, approved))).toEqual({ status: 400, body: { error: 'expired_token' } });
  });

  it('approved → tokens once; the same device code again → invalid_grant', async () => {
    const codes = await requestCodes(t);
    await decide(t, player, codes.user_code, 'approve');
    const first = await pollDeviceCode(t, codes);
    expect(first.statusCode).toBe(200);
    expect(first.headers['cache-control']).toBe('no-store');
    const tokens = first.json();
    expect(tokens).toEqual({
      access_token: expect.any(String),
      token_type: 'Bearer',
      expires_in: 3600,
      refresh_token: expect.any(String),
    });
    const claims = JSON.parse(Buffer.from(tokens.access_token.split('.')[1], 'base64url').toString());
    const row = await storedRow(codes.user_code);
    expect(claims).toMatchObject({
      sub: player.id,
      aud: 'authenticated',
      session_id: row.session_id,
      client_id: 'launcher',
      email: player.email,
      exp: claims.iat + 3600,
    });
    expect(row).toMatchObject({
      redeemed_at: new Date(clock),
      last_used_ip: codes.ip,
      refresh_token_hash: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect((await t.request({ method: 'GET', url: '/v1/me', token: tokens.access_token })).json()).toMatchObject({
      id: player.id,
    });

    advance(5);
    expect(oauthAnswer(await pollDeviceCode(t, codes))).toEqual({
      status: 400,
      body: { error: 'invalid_grant', error_description: 'the device_code was already used' },
    });
  });

  it("unknown device code, or another client's → invalid_grant; a bad grant_type → unsupported_grant_type; missing device_code → invalid_request", async () => {
    const codes = await requestCodes(t);
    expect(oauthAnswer(await pollDeviceCode(t, codes, { device_code: 'not-a-code' }))).toEqual({
      status: 400,
      body: { error: 'invalid_grant', error_description: 'unknown device_code' },
    });
    expect(oauthAnswer(await pollDeviceCode(t, codes, { client_id: 'other-client' }))).toEqual({
      status: 400,
      body: { error: 'invalid_grant', error_description: 'unknown device_code' },
    });
    expect(oauthAnswer(await pollDeviceCode(t, codes, { grant_type: 'authorization_code' }))).toEqual({
      status: 400,
      body: { error: 'unsupported_grant_type' },
    });
    expect(oauthAnswer(await poll(t, { grant_type: DEVICE_GRANT, client_id: 'launcher' }))).toEqual({
      status: 400,
      body: { error: 'invalid_request', error_description: 'device_code is required' },
    });
    expect(oauthAnswer(await poll(t, { grant_type: DEVICE_GRANT, device_code: codes.device_code }))).toMatchObject({
      status: 400,
      body: { error: 'invalid_request' },
    });
    // None of those was a poll of this code: its first real poll is not "too fast".
    expect(oauthAnswer(await pollDeviceCode(t, codes))).toEqual({
      status: 400,
      body: { error: 'authorization_pending' },
    });
  });

  it('accepts JSON bodies as well as forms', async () => {
    const codes = await requestCodes(t);
    await decide(t, player, codes.user_code, 'approve');
    const response = await t.request({
      method: 'POST',
      url: '/v1/public/device/token',
      remoteAddress: codes.ip,
      payload: { grant_type: DEVICE_GRANT, device_code: codes.device_code, client_id: 'launcher' },
    });
    expect(response.statusCode).toBe(200);
  });

  it("refresh_token: a new pair for the same session; the old refresh token dies; another client's or unknown → invalid_grant", async () => {
    const codes = await requestCodes(t);
    await decide(t, player, codes.user_code, 'approve');
    const tokens = (await pollDeviceCode(t, codes)).json();
    advance(60);
    const refreshed = await poll(t, {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
      client_id: 'launcher',
    });
    expect(refreshed.statusCode).toBe(200);
    const claims = (token: string) => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString());
    expect(claims(refreshed.json().access_token)).toMatchObject({
      sub: player.id,
      session_id: claims(tokens.access_token).session_id,
      iat: claims(tokens.access_token).iat + 60,
    });
    expect(
      oauthAnswer(
        await poll(t, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: 'launcher' }),
      ),
    ).toEqual({ status: 400, body: { error: 'invalid_grant', error_description: 'unknown refresh_token' } });
    expect(
      oauthAnswer(
        await poll(t, {
          grant_type: 'refresh_token',
          refresh_token: refreshed.json().refresh_token,
          client_id: 'other',
        }),
      ),
    ).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect(oauthAnswer(await poll(t, { grant_type: 'refresh_token', client_id: 'launcher' }))).toEqual({
      status: 400,
      body: { error: 'invalid_request', error_description: 'refresh_token is required' },
    });
  });

  it("a banned player's device, or one signed out everywhere, gets no tokens and cannot refresh", async () => {
    const banned = await createUser(t.db);
    const codes = await requestCodes(t);
    await decide(t, banned, codes.user_code, 'approve');
    await t.db.updateTable('users').set({ status: 'banned' }).where('id', '=', banned.id).execute();
    expect(oauthAnswer(await pollDeviceCode(t, codes))).toMatchObject({
      status: 400,
      body: { error: 'access_denied' },
    });

    const signedOut = await createUser(t.db);
    const other = await requestCodes(t);
    await decide(t, signedOut, other.user_code, 'approve');
    const tokens = (await pollDeviceCode(t, other)).json();
    advance(1);
    await t.db
      .updateTable('users')
      .set({ tokens_valid_after: new Date(clock) })
      .where('id', '=', signedOut.id)
      .execute();
    expect(
      oauthAnswer(
        await poll(t, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: 'launcher' }),
      ),
    ).toEqual({ status: 400, body: { error: 'invalid_grant', error_description: 'the session has ended' } });
  });
});

describe('a deployment verifying tokens by JWKS only', () => {
  it('cannot mint tokens: both endpoints answer 400 unsupported_grant_type and store nothing', async () => {
    vi.useRealTimers();
    const jwksOnly = await startTestApp({
      config: { jwtSecret: undefined, jwtSecretSource: 'none', jwksUrl: 'http://127.0.0.1:9/jwks.json' },
    });
    try {
      const code = await jwksOnly.request({
        method: 'POST',
        url: '/v1/public/device/code',
        payload: { client_id: 'launcher' },
      });
      expect(oauthAnswer(code)).toEqual({
        status: 400,
        body: { error: 'unsupported_grant_type', error_description: expect.stringContaining('JWT_SECRET') },
      });
      const token = await jwksOnly.request({
        method: 'POST',
        url: '/v1/public/device/token',
        payload: { grant_type: DEVICE_GRANT, device_code: 'x', client_id: 'launcher' },
      });
      expect(oauthAnswer(token)).toMatchObject({ status: 400, body: { error: 'unsupported_grant_type' } });
      expect(await jwksOnly.db.selectFrom('device_authorizations').select('id').execute()).toEqual([]);
    } finally {
      await jwksOnly.close();
    }
  });
});
