import type { AddressInfo } from 'node:net';
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, startTestApp, type TestApp } from '../../helpers/app.js';

/**
 * RFC 8628 end to end over real HTTP with `openid-client` (a certified OAuth client implementing
 * the device grant) as the launcher: it starts the flow, the player approves through the API,
 * the client polls until it gets tokens, and those tokens work as the player; then refresh and
 * revocation, through the same library.
 */

let t: TestApp;
let base: string;
let client: oidc.Configuration;

beforeAll(async () => {
  t = await startTestApp();
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  // No discovery document: the server metadata is built by hand from the two endpoints.
  client = new oidc.Configuration(
    {
      issuer: base,
      device_authorization_endpoint: `${base}/v1/public/device/code`,
      token_endpoint: `${base}/v1/public/device/token`,
    },
    'launcher',
    undefined,
    oidc.None(),
  );
  oidc.allowInsecureRequests(client); // plain http on loopback
});
afterAll(async () => {
  await t.close();
});

const me = (token: string) => fetch(`${base}/v1/me`, { headers: { authorization: `Bearer ${token}` } });

describe('the launcher signs in with a device code', () => {
  it('initiate → the player approves → poll → tokens that act as the player; refresh; revoke ends both', async () => {
    const player = await createUser(t.db);
    const started = await oidc.initiateDeviceAuthorization(client, { scope: 'play' });
    expect(started).toMatchObject({
      user_code: expect.stringMatching(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/),
      verification_uri: 'http://platform.test/device',
      expires_in: 600,
      interval: 5,
    });
    expect(started.verification_uri_complete).toBe(`http://platform.test/device?user_code=${started.user_code}`);
    expect(started.device_code.length).toBeGreaterThanOrEqual(43);

    const inspected = await fetch(`${base}/v1/me/device/approve`, {
      method: 'POST',
      headers: { authorization: `Bearer ${player.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ user_code: started.user_code.toLowerCase(), action: 'approve' }),
    });
    expect(await inspected.json()).toMatchObject({
      client_id: 'launcher',
      status: 'approved',
      ip: '127.0.0.1',
      scope: 'play',
    });

    // The library waits `interval` (5 s) before its first poll, as RFC 8628 asks.
    const tokens = await oidc.pollDeviceAuthorizationGrant(client, started);
    expect(tokens).toMatchObject({
      token_type: 'bearer',
      expires_in: 3600,
      scope: 'play',
      refresh_token: expect.any(String),
    });
    const signedIn = await me(tokens.access_token);
    expect(signedIn.status).toBe(200);
    expect(await signedIn.json()).toMatchObject({ id: player.id, email: player.email });

    const refreshed = await oidc.refreshTokenGrant(client, tokens.refresh_token!);
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
    expect((await me(refreshed.access_token)).status).toBe(200);
    // Rotation: the first refresh token died when it was used.
    await expect(oidc.refreshTokenGrant(client, tokens.refresh_token!)).rejects.toMatchObject({
      error: 'invalid_grant',
    });

    const devices = (await (
      await fetch(`${base}/v1/me/device-authorizations`, { headers: { authorization: `Bearer ${player.token}` } })
    ).json()) as { data: Array<{ id: string }> };
    expect(devices.data).toEqual([
      expect.objectContaining({ client_id: 'launcher', signed_in: true, last_used_ip: '127.0.0.1' }),
    ]);
    // The launcher's login session shows where it came from.
    const sessions = (await (
      await fetch(`${base}/v1/me/sessions`, { headers: { authorization: `Bearer ${refreshed.access_token}` } })
    ).json()) as { data: Array<{ current: boolean; device_authorization_id: string | null }> };
    expect(sessions.data.find((session) => session.current)).toMatchObject({
      device_authorization_id: devices.data[0]!.id,
    });
    expect(
      sessions.data.filter((session) => !session.current).map((session) => session.device_authorization_id),
    ).toEqual([null]);
    const revoked = await fetch(`${base}/v1/me/device-authorizations/${devices.data[0]!.id}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${player.token}` },
    });
    expect(revoked.status).toBe(204);

    for (const token of [tokens.access_token, refreshed.access_token]) {
      const refused = await me(token);
      expect({ status: refused.status, body: await refused.json() }).toEqual({
        status: 401,
        body: { error: 'invalid_token' },
      });
    }
    await expect(oidc.refreshTokenGrant(client, refreshed.refresh_token!)).rejects.toMatchObject({
      error: 'invalid_grant',
    });
    // The player's own sign-in is another session: untouched.
    expect((await me(player.token)).status).toBe(200);
  }, 20_000);
});
