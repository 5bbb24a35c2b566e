import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, startTestApp, type TestApp, type TestUser } from '../../helpers/app.js';

/**
 * `POST /v1/admin/notifications/broadcast/preview`: the count a broadcast to a segment would reach
 * (active users by default, as the broadcast counts them), for either channel's sender; it stores
 * nothing and refuses no segment for its size.
 */

const url = '/v1/admin/notifications/broadcast/preview';
let t: TestApp;
let inApp: TestUser;
let mailer: TestUser;

beforeAll(async () => {
  t = await startTestApp();
  inApp = await createUser(t.db, ['announcements.write']);
  mailer = await createUser(t.db, ['email.send']);
  for (const n of [1, 2, 3]) await createUser(t.db, [], { email: `preview-${n}@segment.test` });
  await createUser(t.db, [], { email: 'preview-banned@segment.test', status: 'banned' });
});
afterAll(async () => {
  await t.close();
});

const activeUsers = async () =>
  Number(
    (
      await t.db
        .selectFrom('users')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('status', '=', 'active')
        .executeTakeFirstOrThrow()
    ).n,
  );

describe('POST /v1/admin/notifications/broadcast/preview', () => {
  it.each([
    { name: 'the in-app sender', who: () => inApp },
    { name: 'the email sender', who: () => mailer },
  ])('$name counts a segment: active users only unless status says otherwise → 200', async ({ who }) => {
    const active = await t.request({
      method: 'POST',
      url,
      token: who().token,
      payload: { segment: { q: 'segment.test' } },
    });
    expect({ status: active.statusCode, body: active.json() }).toEqual({
      status: 200,
      body: { recipients: 3, max: 10000 },
    });
    const banned = await t.request({
      method: 'POST',
      url,
      token: who().token,
      payload: { segment: { q: 'segment.test', status: 'banned' } },
    });
    expect(banned.json()).toEqual({ recipients: 1, max: 10000 });
  });

  it('an empty segment counts every active user; nothing is stored', async () => {
    const response = await t.request({ method: 'POST', url, token: inApp.token, payload: {} });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ recipients: await activeUsers(), max: 10000 });
    const stored = await t.db.selectFrom('notification_broadcasts').select('id').execute();
    expect(stored).toEqual([]);
  });

  it('a segment nobody matches is a count of 0, not an error', async () => {
    const response = await t.request({
      method: 'POST',
      url,
      token: mailer.token,
      payload: { segment: { q: 'nobody-here' } },
    });
    expect({ status: response.statusCode, body: response.json() }).toEqual({
      status: 200,
      body: { recipients: 0, max: 10000 },
    });
  });

  it('a field the segment does not know → 400 validation', async () => {
    const response = await t.request({
      method: 'POST',
      url,
      token: inApp.token,
      payload: { segment: { colour: 'red' } },
    });
    expect(response.statusCode).toBe(400);
  });

  it('a caller holding neither channel permission → 403 naming both; no token → 401', async () => {
    const reader = await createUser(t.db, ['users.read', 'announcements.read']);
    const refused = await t.request({ method: 'POST', url, token: reader.token, payload: {} });
    expect({ status: refused.statusCode, body: refused.json() }).toMatchObject({
      status: 403,
      body: { error: 'forbidden', details: { perm: 'announcements.write | email.send' } },
    });
    const anonymous = await t.request({ method: 'POST', url, payload: {} });
    expect(anonymous.statusCode).toBe(401);
  });
});
