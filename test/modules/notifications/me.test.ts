import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, startTestApp, type TestApp, type TestUser } from '../../helpers/app.js';

/**
 * The player's in-app notifications: what each user sees (broadcasts to everyone, their own, in
 * their window), the unread count, marking one or all read; nobody reaches another's.
 */

let t: TestApp;
let ada: TestUser;
let bob: TestUser;
const ids: Record<string, string> = {};
const HOUR = 3_600_000;

async function notification(
  key: string,
  values: {
    audience: 'everyone' | 'recipients';
    title?: string;
    starts_at?: Date | null;
    ends_at?: Date | null;
    created_at?: Date;
  },
  recipients: TestUser[] = [],
) {
  const row = await t.db
    .insertInto('notifications')
    .values({
      broadcast_id: null,
      audience: values.audience,
      kind: 'info',
      title: values.title ?? key,
      body: null,
      action_url: null,
      starts_at: values.starts_at ?? null,
      ends_at: values.ends_at ?? null,
      ...(values.created_at ? { created_at: values.created_at } : {}),
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  if (recipients.length > 0)
    await t.db
      .insertInto('notification_recipients')
      .values(recipients.map((user) => ({ notification_id: row.id, user_id: user.id })))
      .execute();
  ids[key] = row.id;
}

beforeAll(async () => {
  t = await startTestApp();
  ada = await createUser(t.db);
  bob = await createUser(t.db);
  const now = Date.now();
  await notification('everyone-old', { audience: 'everyone', created_at: new Date(now - 3 * HOUR) });
  await notification('for-ada', { audience: 'recipients', created_at: new Date(now - 2 * HOUR) }, [ada]);
  await notification('for-bob', { audience: 'recipients', created_at: new Date(now - HOUR) }, [bob]);
  await notification('future', { audience: 'everyone', starts_at: new Date(now + HOUR) });
  await notification('over', { audience: 'everyone', ends_at: new Date(now - 1) });
  await notification('everyone-new', {
    audience: 'everyone',
    starts_at: new Date(now - HOUR),
    ends_at: new Date(now + HOUR),
  });
});
afterAll(async () => {
  await t.close();
});

const list = (user: TestUser, query = '') =>
  t.request({ method: 'GET', url: `/v1/me/notifications${query}`, token: user.token });
const read = (user: TestUser, id: string) =>
  t.request({ method: 'POST', url: `/v1/me/notifications/${id}/read`, token: user.token });
const titles = (response: { json(): { data: { title: string }[] } }) => response.json().data.map((n) => n.title);

describe('GET /v1/me/notifications', () => {
  it("shows everyone-notifications in their window and the caller's own, newest first, with the unread count", async () => {
    const response = await list(ada);
    expect(response.statusCode).toBe(200);
    expect(titles(response)).toEqual(['everyone-new', 'for-ada', 'everyone-old']);
    expect(response.json().meta).toEqual({ page: 1, per_page: 25, total: 3, unread: 3 });
    expect(response.json().data[1]).toEqual({
      id: ids['for-ada'],
      kind: 'info',
      title: 'for-ada',
      body: null,
      action_url: null,
      starts_at: null,
      ends_at: null,
      created_at: expect.any(String),
      read: false,
      read_at: null,
    });
    expect(titles(await list(bob))).toEqual(['everyone-new', 'for-bob', 'everyone-old']);
  });

  it('pages in the list envelope: the same total and unread count on every page; past the last, no rows', async () => {
    const first = await list(ada, '?per_page=2');
    const second = await list(ada, '?per_page=2&page=2');
    expect(titles(first)).toEqual(['everyone-new', 'for-ada']);
    expect(first.json().meta).toEqual({ page: 1, per_page: 2, total: 3, unread: 3 });
    expect(titles(second)).toEqual(['everyone-old']);
    expect(second.json().meta).toEqual({ page: 2, per_page: 2, total: 3, unread: 3 });
    expect((await list(ada, '?per_page=2&page=3')).json()).toEqual({
      data: [],
      meta: { page: 3, per_page: 2, total: 3, unread: 3 },
    });
  });

  it('400 for a bad page or unread value; 401 without a token', async () => {
    expect((await list(ada, '?per_page=101')).statusCode).toBe(400);
    expect((await list(ada, '?unread=yes')).statusCode).toBe(400);
    expect((await t.request({ method: 'GET', url: '/v1/me/notifications' })).json()).toEqual({
      error: 'missing_token',
    });
  });
});

describe('marking read', () => {
  it('marks one read (the first read time stays), for an everyone-notification only for the caller', async () => {
    const user = await createUser(t.db);
    expect((await read(user, ids['everyone-old']!)).statusCode).toBe(204);
    const first = (await list(user)).json().data.find((n: { id: string }) => n.id === ids['everyone-old']);
    expect(first).toMatchObject({ read: true, read_at: expect.any(String) });
    expect((await read(user, ids['everyone-old']!)).statusCode).toBe(204);
    const again = (await list(user)).json().data.find((n: { id: string }) => n.id === ids['everyone-old']);
    expect(again.read_at).toBe(first.read_at);
    // `total` counts what the list shows; `unread` every unread one, whatever the filter.
    expect((await list(user)).json().meta).toEqual({ page: 1, per_page: 25, total: 2, unread: 1 });
    const unreadOnly = await list(user, '?unread=true');
    expect(titles(unreadOnly)).toEqual(['everyone-new']);
    expect(unreadOnly.json().meta).toEqual({ page: 1, per_page: 25, total: 1, unread: 1 });
    // Another user's read state is untouched.
    const other = await createUser(t.db);
    expect((await list(other)).json().meta.unread).toBe(2);
  });

  it("404 alike for another user's notification, one outside its window, and an unknown id; nothing changes", async () => {
    for (const id of [ids['for-bob']!, ids.future!, ids.over!, randomUUID()]) {
      const response = await read(ada, id);
      expect({ status: response.statusCode, body: response.json() }).toEqual({
        status: 404,
        body: { error: 'not_found' },
      });
    }
    expect(
      await t.db
        .selectFrom('notification_recipients')
        .select(['user_id', 'read_at'])
        .where('notification_id', '=', ids['for-bob']!)
        .execute(),
    ).toEqual([{ user_id: bob.id, read_at: null }]);
    expect(
      await t.db
        .selectFrom('notification_recipients')
        .select('user_id')
        .where('notification_id', 'in', [ids.future!, ids.over!])
        .execute(),
    ).toEqual([]);
    expect(
      (await t.request({ method: 'POST', url: '/v1/me/notifications/not-a-uuid/read', token: ada.token })).statusCode,
    ).toBe(400);
  });

  it("read-all marks every unread one the caller sees, answers how many, and leaves others' alone", async () => {
    const user = await createUser(t.db);
    await notification('for-user', { audience: 'recipients' }, [user, bob]);
    const response = await t.request({ method: 'POST', url: '/v1/me/notifications/read-all', token: user.token });
    expect(response.json()).toEqual({ marked: 3 });
    expect((await list(user)).json().meta.unread).toBe(0);
    expect(
      (await t.request({ method: 'POST', url: '/v1/me/notifications/read-all', token: user.token })).json(),
    ).toEqual({ marked: 0 });
    const bobs = (await list(bob)).json().data.find((n: { id: string }) => n.id === ids['for-user']);
    expect(bobs).toMatchObject({ read: false });
  });
});
