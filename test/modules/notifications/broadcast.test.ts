import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, eventually, startTestApp, type TestApp, type TestUser } from '../../helpers/app.js';
import { auditOf, expectRefusedUnchanged, requestIdOf, schemaError } from '../../helpers/expectations.js';
import { storedState } from '../../helpers/stored-state.js';

/**
 * Operation 19, `POST /v1/admin/notifications/broadcast`: the in-app channel (one row for
 * everyone, or one per matched user), the email channel (queued from a published template),
 * per-channel permissions with nothing stored on a refusal, and every documented error.
 */

const url = '/v1/admin/notifications/broadcast';
let t: TestApp;
let both: TestUser;
let inApp: TestUser;
let mailer: TestUser;
let neither: TestUser;

beforeAll(async () => {
  t = await startTestApp();
  both = await createUser(t.db, ['announcements.write', 'email.send', 'announcements.read']);
  inApp = await createUser(t.db, ['announcements.write']);
  mailer = await createUser(t.db, ['email.send']);
  neither = await createUser(t.db, ['users.read']);
  await template('weekly-news', 'marketing', true);
  await template('receipt-mail', 'transactional', true);
  await template('draft-only', 'marketing', false);
});
afterAll(async () => {
  await t.close();
});

async function template(key: string, category: 'marketing' | 'transactional', published: boolean) {
  const row = await t.db
    .insertInto('email_templates')
    .values({ key, name: key, description: null, category, created_by: null, updated_by: null })
    .returning('id')
    .executeTakeFirstOrThrow();
  await t.db
    .insertInto('email_template_versions')
    .values({
      template_id: row.id,
      version: 1,
      subject: 'Hi {{display_name}}',
      html: '<p>{{news}}</p>',
      text: '{{news}}',
      note: null,
      created_by: null,
    })
    .execute();
  if (published)
    await t.db
      .updateTable('email_templates')
      .set({ published_version: 1, published_at: new Date() })
      .where('id', '=', row.id)
      .execute();
  return row.id;
}

/** Players whose email carries `marker`, so a `q` segment matches exactly them. */
async function players(marker: string, count: number, overrides: { status?: 'active' | 'banned' } = {}) {
  const made: TestUser[] = [];
  for (let i = 0; i < count; i++)
    made.push(await createUser(t.db, [], { email: `${marker}-${i}@example.test`, ...overrides }));
  return made;
}

const send = (payload: unknown, user: TestUser | null = both) =>
  t.request({ method: 'POST', url, token: user?.token, payload: payload as object });

/** What a refusal must leave as it was: how many broadcasts, notifications, recipients, mails and audit entries. */
const broadcastState = () =>
  storedState(t.db, {}, [
    'notification_broadcasts',
    'notifications',
    'notification_recipients',
    'email_messages',
    'audit_log',
  ]);

const activeUsers = async () =>
  Number(
    (
      await t.db
        .selectFrom('users')
        .select(sql<number>`count(*)::int`.as('n'))
        .where('status', '=', 'active')
        .executeTakeFirstOrThrow()
    ).n,
  );

describe('POST /v1/admin/notifications/broadcast: the in-app channel', () => {
  it('an empty segment makes one row for everyone (recipients null) that a user who signs up later also sees; audited; a dashboard event', async () => {
    const response = await send({
      notification: { title: 'Servers are back', body: 'Thanks for waiting', kind: 'success', action_url: '/status' },
    });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({ recipients: null, notification: { created: 1 }, email: null });
    const broadcast = await t.db
      .selectFrom('notification_broadcasts')
      .selectAll()
      .orderBy('created_at', 'desc')
      .executeTakeFirstOrThrow();
    expect(broadcast).toMatchObject({
      recipients: null,
      notifications_created: 1,
      emails_queued: null,
      created_by: both.id,
      segment: {},
    });
    const rows = await t.db.selectFrom('notifications').selectAll().where('broadcast_id', '=', broadcast.id).execute();
    expect(rows).toMatchObject([
      {
        audience: 'everyone',
        kind: 'success',
        title: 'Servers are back',
        body: 'Thanks for waiting',
        action_url: '/status',
      },
    ]);
    expect(
      await t.db
        .selectFrom('notification_recipients')
        .select('user_id')
        .where('notification_id', '=', rows[0]!.id)
        .execute(),
    ).toEqual([]);

    const audit = await auditOf(t.db, requestIdOf(response));
    expect(audit).toMatchObject([
      {
        actor_id: both.id,
        action: 'notifications.broadcast',
        target_type: 'notification_broadcast',
        target_id: broadcast.id,
      },
    ]);
    expect(audit[0]!.summary).toMatchObject({
      recipients: null,
      notification: { created: 1 },
      email: null,
      title: 'Servers are back',
      kind: 'success',
    });
    await eventually(() =>
      expect(t.events).toContainEqual(
        expect.objectContaining({
          kind: 'dashboard',
          name: 'notifications.broadcast_sent',
          payload: { broadcast_id: broadcast.id, recipients: null, notification: { created: 1 }, email: null },
        }),
      ),
    );

    const newcomer = await createUser(t.db);
    const seen = await t.request({ method: 'GET', url: '/v1/me/notifications', token: newcomer.token });
    expect(seen.json().data).toContainEqual(
      expect.objectContaining({ id: rows[0]!.id, title: 'Servers are back', read: false }),
    );
  });

  it('a segment makes one recipient row per matched active user; others do not see it', async () => {
    const marker = `seg-${randomUUID().slice(0, 8)}`;
    const matched = await players(marker, 3);
    const [banned] = await players(marker, 1, { status: 'banned' });
    const outsider = await createUser(t.db);
    const response = await send({ segment: { q: marker }, notification: { title: 'For you three' } });
    expect(response.json()).toEqual({ recipients: 3, notification: { created: 3 }, email: null });
    const notification = await t.db
      .selectFrom('notifications')
      .select(['id', 'audience', 'kind'])
      .where('title', '=', 'For you three')
      .executeTakeFirstOrThrow();
    expect(notification).toMatchObject({ audience: 'recipients', kind: 'info' });
    const recipients = await t.db
      .selectFrom('notification_recipients')
      .select('user_id')
      .where('notification_id', '=', notification.id)
      .execute();
    expect(recipients.map((row) => row.user_id).sort()).toEqual(matched.map((user) => user.id).sort());
    for (const user of [outsider, banned!]) {
      const list = await t.request({ method: 'GET', url: '/v1/me/notifications', token: user.token });
      expect(list.json().data?.map((n: { id: string }) => n.id) ?? []).not.toContain(notification.id);
    }
    // `status` overrides the active-only default.
    const toBanned = await send({ segment: { q: marker, status: 'banned' }, notification: { title: 'Banned only' } });
    expect(toBanned.json()).toEqual({ recipients: 1, notification: { created: 1 }, email: null });
  });
});

describe('POST /v1/admin/notifications/broadcast: the email channel', () => {
  it('queues one templated message per matched user with an address, skipping unsubscribed addresses for marketing mail', async () => {
    const marker = `mail-${randomUUID().slice(0, 8)}`;
    const [first, second, suppressed] = await players(marker, 3);
    await t.db.updateTable('users').set({ display_name: 'Ada' }).where('id', '=', first!.id).execute();
    await t.db
      .insertInto('email_suppressions')
      .values({ email: suppressed!.email.toLowerCase(), reason: 'unsubscribed', source: 'link', message_id: null })
      .execute();
    const response = await send(
      { segment: { q: marker }, email: { template_key: 'weekly-news', vars: { news: 'Season 2 is live' } } },
      mailer,
    );
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({ recipients: 3, notification: null, email: { queued: 2 } });
    const broadcast = await t.db
      .selectFrom('notification_broadcasts')
      .selectAll()
      .orderBy('created_at', 'desc')
      .executeTakeFirstOrThrow();
    expect(broadcast).toMatchObject({
      recipients: 3,
      notifications_created: null,
      emails_queued: 2,
      email_template_version: 1,
    });
    const messages = await t.db
      .selectFrom('email_messages')
      .select(['to_email', 'user_id', 'category', 'template_version', 'vars', 'status', 'broadcast_id'])
      .where('broadcast_id', '=', broadcast.id)
      .orderBy('to_email')
      .execute();
    expect(messages).toEqual([
      {
        to_email: first!.email,
        user_id: first!.id,
        category: 'marketing',
        template_version: 1,
        vars: { display_name: 'Ada', news: 'Season 2 is live' },
        status: 'queued',
        broadcast_id: broadcast.id,
      },
      {
        to_email: second!.email,
        user_id: second!.id,
        category: 'marketing',
        template_version: 1,
        vars: { display_name: '', news: 'Season 2 is live' },
        status: 'queued',
        broadcast_id: broadcast.id,
      },
    ]);
    // Transactional mail goes to unsubscribed addresses too.
    const receipt = await send({ segment: { q: marker }, email: { template_key: 'receipt-mail' } }, mailer);
    expect(receipt.json()).toEqual({ recipients: 3, notification: null, email: { queued: 3 } });
  });

  it('both channels to an empty segment: the notification reaches everyone, the email every active user', async () => {
    const active = await activeUsers();
    const response = await send({ notification: { title: 'Both ways' }, email: { template_key: 'receipt-mail' } });
    expect(response.json()).toEqual({ recipients: active, notification: { created: 1 }, email: { queued: active } });
    expect(
      await t.db
        .selectFrom('notifications')
        .select('audience')
        .where('title', '=', 'Both ways')
        .executeTakeFirstOrThrow(),
    ).toEqual({ audience: 'everyone' });
  });
});

describe('refusals: nothing is stored', () => {
  it('403 for a requested channel the caller may not use, naming its permission; 403 without either permission', async () => {
    await expectRefusedUnchanged(
      broadcastState,
      () => send({ notification: { title: 'x' }, email: { template_key: 'weekly-news' } }, mailer),
      403,
      { error: 'forbidden', details: { perm: 'announcements.write' } },
    );
    await expectRefusedUnchanged(
      broadcastState,
      () => send({ notification: { title: 'x' }, email: { template_key: 'weekly-news' } }, inApp),
      403,
      { error: 'forbidden', details: { perm: 'email.send' } },
    );
    await expectRefusedUnchanged(broadcastState, () => send({ notification: { title: 'x' } }, neither), 403, {
      error: 'forbidden',
      details: { perm: 'announcements.write | email.send' },
    });
    await expectRefusedUnchanged(broadcastState, () => send({ notification: { title: 'x' } }, null), 401, {
      error: 'missing_token',
    });
  });

  it('404 for an unknown template, 422 invalid_request for one without a published version', async () => {
    await expectRefusedUnchanged(broadcastState, () => send({ email: { template_key: 'no-such-template' } }), 404, {
      error: 'not_found',
      details: { template_key: 'no-such-template' },
    });
    await expectRefusedUnchanged(
      broadcastState,
      () => send({ notification: { title: 'x' }, email: { template_key: 'draft-only' } }),
      422,
      {
        error: 'invalid_request',
        details: { reason: expect.any(String), template_key: 'draft-only' },
      },
    );
  });

  it('422 empty_segment when no user matches; 422 segment_too_large past 10000', async () => {
    await expectRefusedUnchanged(
      broadcastState,
      () => send({ segment: { q: 'nobody-matches-this' }, notification: { title: 'x' } }),
      422,
      {
        error: 'empty_segment',
        details: { segment: { q: 'nobody-matches-this' } },
      },
    );
    await sql`INSERT INTO users (id, email, status) SELECT gen_random_uuid(), 'crowd-' || g || '@example.test', 'active' FROM generate_series(1, 10001) g`.execute(
      t.db,
    );
    await expectRefusedUnchanged(
      broadcastState,
      () => send({ segment: { q: 'crowd-' }, notification: { title: 'x' } }),
      422,
      {
        error: 'segment_too_large',
        details: { max: 10000 },
      },
    );
    await expectRefusedUnchanged(broadcastState, () => send({ email: { template_key: 'weekly-news' } }), 422, {
      error: 'segment_too_large',
      details: { max: 10000 },
    });
    // 10000 exactly is allowed.
    await sql`UPDATE users SET status = 'banned' WHERE email = 'crowd-10001@example.test'`.execute(t.db);
    expect((await send({ segment: { q: 'crowd-' }, notification: { title: 'Crowd' } })).json()).toEqual({
      recipients: 10000,
      notification: { created: 10000 },
      email: null,
    });
    await sql`DELETE FROM users WHERE email LIKE 'crowd-%'`.execute(t.db);
  });

  it('422 invalid_request for a window that ends before it starts or is already over', async () => {
    await expectRefusedUnchanged(
      broadcastState,
      () => send({ notification: { title: 'x', starts_at: '2030-01-02T00:00:00Z', ends_at: '2030-01-01T00:00:00Z' } }),
      422,
      { error: 'invalid_request', details: { field: 'notification.ends_at', reason: expect.any(String) } },
    );
    await expectRefusedUnchanged(
      broadcastState,
      () => send({ notification: { title: 'x', ends_at: '2020-01-01T00:00:00Z' } }),
      422,
      {
        error: 'invalid_request',
        details: { field: 'notification.ends_at', reason: expect.any(String) },
      },
    );
  });

  it.each([
    ['neither channel', {}, 'notification'],
    ['an unknown kind', { notification: { title: 'x', kind: 'urgent' } }, 'kind'],
    ['an empty title', { notification: { title: '' } }, 'title'],
    ['a title over 200', { notification: { title: 'x'.repeat(201) } }, 'title'],
    ['a body over 4000', { notification: { title: 'x', body: 'x'.repeat(4001) } }, 'body'],
    ['a javascript: action_url', { notification: { title: 'x', action_url: 'javascript:alert(1)' } }, 'action_url'],
    ['a protocol-relative action_url', { notification: { title: 'x', action_url: '//evil.example/x' } }, 'action_url'],
    ['an action_url over 2000', { notification: { title: 'x', action_url: `/${'x'.repeat(2000)}` } }, 'action_url'],
    ['a bad starts_at', { notification: { title: 'x', starts_at: 'tomorrow' } }, 'starts_at'],
    ['an empty template_key', { email: { template_key: '' } }, 'template_key'],
    ['vars not an object', { email: { template_key: 'weekly-news', vars: [1] } }, 'vars'],
    ['an unknown segment field', { segment: { country: 'de' }, notification: { title: 'x' } }, 'segment'],
    ['a segment tier over 32', { segment: { tier: 'x'.repeat(33) }, notification: { title: 'x' } }, 'tier'],
    ['an unknown top-level field', { notification: { title: 'x' }, priority: 'high' }, undefined],
  ])('400 for %s', async (_name, payload, field) => {
    const before = await broadcastState();
    const response = await send(payload);
    expect(response.statusCode).toBe(400);
    const body = response.json();
    expect(body).toMatchObject({ success: false, error: { name: 'SchemaError' } });
    if (field !== undefined)
      expect(body.error.issues.some((issue: { path: unknown[] }) => issue.path.includes(field))).toBe(true);
    expect(await broadcastState()).toEqual(before);
    void schemaError;
  });
});

describe('GET /v1/admin/notifications/broadcasts', () => {
  it('lists broadcasts newest first with their notification, reads and mail counts; gets one; 404 for another id', async () => {
    const marker = `hist-${randomUUID().slice(0, 8)}`;
    const [reader] = await players(marker, 2);
    const made = await send({
      segment: { q: marker },
      notification: { title: 'History' },
      email: { template_key: 'weekly-news' },
    });
    expect(made.json()).toEqual({ recipients: 2, notification: { created: 2 }, email: { queued: 2 } });
    const notification = await t.db
      .selectFrom('notifications')
      .select('id')
      .where('title', '=', 'History')
      .executeTakeFirstOrThrow();
    expect(
      (await t.request({ method: 'POST', url: `/v1/me/notifications/${notification.id}/read`, token: reader!.token }))
        .statusCode,
    ).toBe(204);

    const list = await t.request({
      method: 'GET',
      url: '/v1/admin/notifications/broadcasts?per_page=1',
      token: both.token,
    });
    expect(list.statusCode).toBe(200);
    const [latest] = list.json().data;
    expect(list.json().meta).toMatchObject({ page: 1, per_page: 1, total: expect.any(Number) });
    expect(latest).toMatchObject({
      segment: { q: marker },
      recipients: 2,
      notification: { id: notification.id, audience: 'recipients', title: 'History', read_count: 1 },
      email: { template_version: 1, queued: 2, sent: 0, failed: 0, skipped: 0 },
      created_by: both.id,
    });
    const one = await t.request({
      method: 'GET',
      url: `/v1/admin/notifications/broadcasts/${latest.id}`,
      token: both.token,
    });
    expect(one.json()).toEqual(latest);
    expect(
      (
        await t.request({ method: 'GET', url: `/v1/admin/notifications/broadcasts/${randomUUID()}`, token: both.token })
      ).json(),
    ).toEqual({ error: 'not_found' });
    expect(
      (await t.request({ method: 'GET', url: '/v1/admin/notifications/broadcasts', token: mailer.token })).json(),
    ).toEqual({ error: 'forbidden', details: { perm: 'announcements.read | email.read' } });
  });
});
