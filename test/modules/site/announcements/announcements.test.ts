import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SITE_CONFIG_TOPIC } from '../../../../src/modules/site/public/site-cache.js';
import { createUser, eventually, startTestApp, type TestUser } from '../../../helpers/app.js';

type App = Awaited<ReturnType<typeof startTestApp>>;

const HOUR = 3_600_000;
const iso = (offsetMs: number) => new Date(Date.now() + offsetMs).toISOString();

describe('announcements: staff upsert, list and get', () => {
  let t: App;
  let editor: TestUser;
  let reader: TestUser;
  let outsider: TestUser;
  let invalidations = 0;

  beforeAll(async () => {
    t = await startTestApp();
    editor = await createUser(t.db, ['site.write', 'site.read']);
    reader = await createUser(t.db, ['site.read']);
    outsider = await createUser(t.db, ['content.write', 'email.read']);
    t.kernel.bus.on(SITE_CONFIG_TOPIC, () => {
      invalidations += 1;
    });
  });
  afterAll(async () => t.close());

  const put = (payload: object, user = editor) =>
    t.request({ method: 'PUT', url: '/v1/admin/site/announcements', token: user.token, payload });
  const row = (id: string) => t.db.selectFrom('announcements').selectAll().where('id', '=', id).executeTakeFirst();
  const count = async () =>
    (await t.db.selectFrom('announcements').select(sql<number>`count(*)::int`.as('n')).executeTakeFirstOrThrow()).n;
  const auditRows = (target: string) =>
    t.db.selectFrom('audit_log').selectAll().where('target_id', '=', target).orderBy('created_at').execute();
  const outbox = (id: string) =>
    t.db
      .selectFrom('event_outbox')
      .select(['kind', 'name', 'payload', 'actor_id', 'request_id'])
      .execute()
      .then((rows) => rows.filter((r) => (r.payload as { announcement_id?: string }).announcement_id === id));
  /** Every notification committed so far has arrived once a marker notified now has (commit order). */
  const settled = async () => {
    const topic = `test-marker-${randomUUID()}`;
    let heard = false;
    const off = t.kernel.bus.on(topic, () => {
      heard = true;
    });
    await t.kernel.bus.notify(t.db, topic);
    await eventually(() => expect(heard).toBe(true));
    off();
    return invalidations;
  };

  it('creates an announcement with defaults, audits it, emits the event and invalidates the site cache', async () => {
    const heard = await settled();
    const res = await put({ title: 'Scheduled maintenance' });
    expect(res.statusCode).toBe(200);
    const { id } = res.json();
    expect(res.json()).toEqual({ id: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    expect(await row(id)).toMatchObject({
      title: 'Scheduled maintenance',
      body: '',
      severity: 'info',
      surface: 'all',
      action_url: null,
      starts_at: null,
      ends_at: null,
      is_active: true,
      created_by: editor.id,
      updated_by: editor.id,
    });
    const [audit, ...more] = await auditRows(id);
    expect(more).toEqual([]);
    expect(audit).toMatchObject({
      action: 'site.announcement.create',
      actor_id: editor.id,
      target_type: 'announcement',
      request_id: res.headers['x-request-id'],
      summary: {
        after: {
          title: 'Scheduled maintenance',
          body_length: 0,
          severity: 'info',
          surface: 'all',
          action_url: null,
          starts_at: null,
          ends_at: null,
          is_active: true,
        },
      },
    });
    const event = {
      kind: 'dashboard',
      name: 'site.announcement_updated',
      payload: { announcement_id: id, created: true, surface: 'all', is_active: true },
      actor_id: editor.id,
      request_id: res.headers['x-request-id'],
    };
    expect(await outbox(id)).toEqual([event]);
    await eventually(() =>
      expect(t.events.filter((e) => e.payload.announcement_id === id).map((e) => [e.name, e.payload])).toEqual([
        [event.name, event.payload],
      ]),
    );
    expect(await settled()).toBe(heard + 1);

    const get = await t.request({ method: 'GET', url: `/v1/admin/site/announcements/${id}`, token: reader.token });
    expect(get.json()).toEqual({
      id,
      title: 'Scheduled maintenance',
      body: '',
      severity: 'info',
      surface: 'all',
      action_url: null,
      starts_at: null,
      ends_at: null,
      is_active: true,
      active_now: true,
      created_by: editor.id,
      updated_by: editor.id,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
  });

  it('replaces the whole announcement when given its id: omitted fields go back to their defaults', async () => {
    const starts = iso(HOUR);
    const ends = iso(2 * HOUR);
    const { id } = (
      await put({
        title: 'Sale',
        body: 'Half price',
        severity: 'success',
        surface: 'landing',
        action_url: 'https://example.test/sale',
        starts_at: starts,
        ends_at: ends,
      })
    ).json();
    const other = await createUser(t.db, ['site.write']);
    const heard = await settled();
    const res = await put({ id, title: 'Sale extended', severity: 'warning' }, other);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ id });
    expect(await row(id)).toMatchObject({
      title: 'Sale extended',
      body: '',
      severity: 'warning',
      surface: 'all',
      action_url: null,
      starts_at: null,
      ends_at: null,
      is_active: true,
      created_by: editor.id,
      updated_by: other.id,
    });
    const audits = await auditRows(id);
    expect(audits.map((a) => a.action)).toEqual(['site.announcement.create', 'site.announcement.update']);
    expect(audits[1]).toMatchObject({
      actor_id: other.id,
      request_id: res.headers['x-request-id'],
      summary: {
        before: {
          title: 'Sale',
          body_length: 10,
          severity: 'success',
          surface: 'landing',
          action_url: 'https://example.test/sale',
          starts_at: starts,
          ends_at: ends,
          is_active: true,
        },
        after: {
          title: 'Sale extended',
          body_length: 0,
          severity: 'warning',
          surface: 'all',
          action_url: null,
          starts_at: null,
          ends_at: null,
          is_active: true,
        },
      },
    });
    expect((await outbox(id)).map((e) => e.payload)).toEqual([
      { announcement_id: id, created: true, surface: 'landing', is_active: true },
      { announcement_id: id, created: false, surface: 'all', is_active: true },
    ]);
    expect(await settled()).toBe(heard + 1);
  });

  it('answers 404 not_found for an unknown id, creating nothing', async () => {
    const id = randomUUID();
    const before = await count();
    const heard = await settled();
    const res = await put({ id, title: 'Ghost' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: 'not_found' });
    expect(await count()).toBe(before);
    expect(await auditRows(id)).toEqual([]);
    expect(await outbox(id)).toEqual([]);
    expect(await settled()).toBe(heard);
    const get = await t.request({ method: 'GET', url: `/v1/admin/site/announcements/${id}`, token: reader.token });
    expect(get.statusCode).toBe(404);
    expect(get.json()).toEqual({ error: 'not_found' });
    expect(
      (await t.request({ method: 'GET', url: '/v1/admin/site/announcements/nope', token: reader.token })).statusCode,
    ).toBe(400);
  });

  const start = '2031-05-01T10:00:00.000Z';
  it.each([
    ['no title', {}, ['title']],
    ['an empty title', { title: '' }, ['title']],
    ['a blank title', { title: '  ' }, ['title']],
    ['a title of 201 characters', { title: 't'.repeat(201) }, ['title']],
    ['a body of 4001 characters', { title: 'x', body: 'b'.repeat(4001) }, ['body']],
    ['an unknown severity', { title: 'x', severity: 'urgent' }, ['severity']],
    ['an unknown surface', { title: 'x', surface: 'home' }, ['surface']],
    ['a starts_at that is not a date-time', { title: 'x', starts_at: 'tomorrow' }, ['starts_at']],
    ['an ends_at equal to starts_at', { title: 'x', starts_at: start, ends_at: start }, ['ends_at']],
    ['an ends_at before starts_at', { title: 'x', starts_at: start, ends_at: '2031-05-01T09:59:59Z' }, ['ends_at']],
    ['a javascript: action_url', { title: 'x', action_url: 'javascript:alert(1)' }, ['action_url']],
    [
      'an action_url of 2001 characters',
      { title: 'x', action_url: `https://example.test/${'a'.repeat(1980)}` },
      ['action_url'],
    ],
    ['an id that is not a uuid', { id: 'abc', title: 'x' }, ['id']],
    ['a non-boolean is_active', { title: 'x', is_active: 'yes' }, ['is_active']],
    ['an unknown field', { title: 'x', priority: 1 }, []],
  ])('refuses %s with a SchemaError, storing nothing', async (_name, payload, path) => {
    const before = await count();
    const res = await put(payload);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ success: false, error: { name: 'SchemaError' } });
    expect(res.json().error.issues[0].path).toEqual(path);
    expect(await count()).toBe(before);
  });

  it('accepts every field at its largest, and a window given with offsets', async () => {
    const url = `https://example.test/${'a'.repeat(1979)}`;
    expect(url).toHaveLength(2000);
    const res = await put({
      title: 't'.repeat(200),
      body: 'b'.repeat(4000),
      action_url: url,
      starts_at: '2031-05-01T12:00:00+02:00',
      ends_at: '2031-05-01T10:00:01Z',
      is_active: false,
    });
    expect(res.statusCode).toBe(200);
    const stored = await row(res.json().id);
    expect(stored).toMatchObject({ title: 't'.repeat(200), action_url: url, is_active: false });
    expect(stored!.body).toHaveLength(4000);
    expect([stored!.starts_at!.toISOString(), stored!.ends_at!.toISOString()]).toEqual([
      '2031-05-01T10:00:00.000Z',
      '2031-05-01T10:00:01.000Z',
    ]);
  });

  it.each([
    [
      'a reader writing',
      () => put({ title: 'x' }, reader),
      403,
      { error: 'forbidden', details: { perm: 'site.write | announcements.write' } },
    ],
    [
      'an outsider listing',
      () => t.request({ method: 'GET', url: '/v1/admin/site/announcements', token: outsider.token }),
      403,
      { error: 'forbidden', details: { perm: 'site.read | announcements.read' } },
    ],
    [
      'an outsider reading one',
      () => t.request({ method: 'GET', url: `/v1/admin/site/announcements/${randomUUID()}`, token: outsider.token }),
      403,
      { error: 'forbidden', details: { perm: 'site.read | announcements.read' } },
    ],
    [
      'a caller without a token',
      () => t.request({ method: 'PUT', url: '/v1/admin/site/announcements', payload: { title: 'x' } }),
      401,
      { error: 'missing_token' },
    ],
  ])('refuses %s, changing nothing', async (_name, call, status, body) => {
    const before = await count();
    const res = await call();
    expect(res.statusCode).toBe(status);
    expect(res.json()).toEqual(body);
    expect(await count()).toBe(before);
  });

  it('lists paged, filtered by surface, by active_now and by q, sorted', async () => {
    const tag = randomUUID().slice(0, 8);
    const make = async (title: string, extra: object) =>
      (await put({ title: `${title} ${tag}`, ...extra })).json().id as string;
    const live = await make('Live', { surface: 'landing', starts_at: iso(-HOUR), ends_at: iso(HOUR) });
    const future = await make('Future', { surface: 'landing', starts_at: iso(HOUR) });
    const ended = await make('Ended', { surface: 'portal', starts_at: iso(-2 * HOUR), ends_at: iso(-HOUR) });
    const off = await make('Off', { surface: 'all', is_active: false, body: `secret ${tag}-body` });

    const list = (query: string) =>
      t.request({ method: 'GET', url: `/v1/admin/site/announcements?q=${tag}&${query}`, token: reader.token });
    const ids = async (query: string) => (await list(query)).json().data.map((a: { id: string }) => a.id);
    const all = await list('sort=title:asc&per_page=3');
    expect(all.statusCode).toBe(200);
    expect(all.json().meta).toEqual({ page: 1, per_page: 3, total: 4 });
    expect(all.json().data.map((a: { id: string; active_now: boolean }) => [a.id, a.active_now])).toEqual([
      [ended, false],
      [future, false],
      [live, true],
    ]);
    expect(await ids('sort=title:asc&per_page=3&page=2')).toEqual([off]);
    expect(await ids('surface=landing&sort=title:asc')).toEqual([future, live]);
    expect(await ids('surface=all')).toEqual([off]);
    expect(await ids('active_now=true')).toEqual([live]);
    expect(await ids('active_now=false&sort=title:asc')).toEqual([ended, future, off]);
    expect(await ids('sort=starts_at:asc')).toEqual([off, ended, live, future]);
    expect(
      (await t.request({ method: 'GET', url: `/v1/admin/site/announcements?q=${tag}-body`, token: reader.token }))
        .json()
        .data.map((a: { id: string }) => a.id),
    ).toEqual([off]);
    for (const query of ['surface=home', 'active_now=yes', 'sort=severity:asc', 'per_page=0']) {
      const res = await list(query);
      expect(res.statusCode).toBe(400);
      expect(res.json().error.name).toBe('SchemaError');
    }
  });
});
