import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, startTestApp, type TestApp, type TestUser } from '../../../helpers/app.js';
import { signToken } from '../../../helpers/tokens.js';

/**
 * `GET /v1/me/maintenance`: every staff member, whatever their role, reads the maintenance level
 * with who set it (by name) and why; a player holding no permission key is refused; only
 * `ops.panic` changes the level.
 */

const url = '/v1/me/maintenance';
let t: TestApp;
let setter: TestUser;

beforeAll(async () => {
  t = await startTestApp();
  setter = await createUser(t.db, ['ops.panic']);
  await t.db.updateTable('users').set({ display_name: 'Olive Setter' }).where('id', '=', setter.id).execute();
});
afterAll(async () => {
  await t.close();
});

describe('GET /v1/me/maintenance', () => {
  it('answers off with nobody named before any change', async () => {
    const reader = await createUser(t.db, ['support.read']);
    const response = await t.request({ method: 'GET', url, token: reader.token });
    expect({ status: response.statusCode, body: response.json() }).toEqual({
      status: 200,
      body: { level: 'off', reason: null, set_by: null, set_at: null, auto: false, set_by_name: null },
    });
  });

  it.each([
    { name: 'a support agent', held: ['support.read', 'support.write', 'users.read'] },
    { name: 'a content editor', held: ['content.write', 'announcements.write'] },
    { name: 'marketing', held: ['email.send'] },
    { name: 'a holder of a resource wildcard', held: ['billing.*'] },
    { name: 'the owner', held: ['*'] },
  ])('$name reads the level, who set it (named) and why → 200', async ({ held }) => {
    const set = await t.request({
      method: 'POST',
      url: '/v1/admin/ops/panic',
      token: setter.token,
      payload: { level: 'degraded', reason: 'Payment provider outage' },
    });
    expect(set.statusCode).toBe(200);
    const reader = await createUser(t.db, held);
    const response = await t.request({ method: 'GET', url, token: reader.token });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      level: 'degraded',
      reason: 'Payment provider outage',
      set_by: setter.id,
      set_by_name: 'Olive Setter',
      set_at: expect.any(String),
      auto: false,
    });
  });

  it('names the setter by email when they have no display name', async () => {
    const plain = await createUser(t.db, ['ops.panic']);
    await t.request({
      method: 'POST',
      url: '/v1/admin/ops/panic',
      token: plain.token,
      payload: { level: 'lockdown', reason: 'Database failover' },
    });
    const reader = await createUser(t.db, ['users.read']);
    const body = (await t.request({ method: 'GET', url, token: reader.token })).json();
    expect(body).toMatchObject({ level: 'lockdown', set_by: plain.id, set_by_name: plain.email });
  });

  it('a player holding no permission key → 403 staff_only', async () => {
    const player = await createUser(t.db);
    const response = await t.request({ method: 'GET', url, token: player.token });
    expect({ status: response.statusCode, body: response.json() }).toMatchObject({
      status: 403,
      body: { error: 'forbidden', details: { reason: 'staff_only' } },
    });
  });

  it('a first-time subject (no user row) → 403; no token → 401', async () => {
    const token = await signToken({ sub: crypto.randomUUID(), email: 'newcomer@example.test' });
    const response = await t.request({ method: 'GET', url, token });
    expect(response.statusCode).toBe(403);
    expect(response.json()).toMatchObject({ error: 'forbidden', details: { reason: 'staff_only' } });
    const anonymous = await t.request({ method: 'GET', url });
    expect({ status: anonymous.statusCode, error: anonymous.json().error }).toEqual({
      status: 401,
      error: 'missing_token',
    });
  });

  it('reading is not changing: a support agent cannot set the level (403 naming ops.panic)', async () => {
    const agent = await createUser(t.db, ['support.read', 'users.read']);
    const response = await t.request({
      method: 'POST',
      url: '/v1/admin/ops/panic',
      token: agent.token,
      payload: { level: 'off', reason: 'Not mine to say' },
    });
    expect({ status: response.statusCode, body: response.json() }).toMatchObject({
      status: 403,
      body: { error: 'forbidden', details: { perm: 'ops.panic' } },
    });
  });
});
