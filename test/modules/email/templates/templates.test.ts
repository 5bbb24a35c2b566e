import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, startTestApp, type TestUser } from '../../../helpers/app.js';
import { auditOf, requestIdOf, schemaError } from '../../../helpers/expectations.js';

type App = Awaited<ReturnType<typeof startTestApp>>;

const BASE = '/v1/admin/email/templates';
const VERSION = { subject: 'Hello {{ name }}', html: '<p>Hi {{ name | "there" }}</p>', text: 'Hi {{ name }}' };

describe('email templates: create, list, get, change and delete', () => {
  let t: App;
  let editor: TestUser;
  let reader: TestUser;
  let outsider: TestUser;

  beforeAll(async () => {
    t = await startTestApp();
    editor = await createUser(t.db, ['email.write', 'email.read']);
    reader = await createUser(t.db, ['email.read']);
    outsider = await createUser(t.db, ['site.read']);
  });
  afterAll(async () => t.close());

  const freshKey = (prefix = 'tpl') => `${prefix}-${randomUUID().slice(0, 8)}`;
  const create = (payload: object, user = editor) =>
    t.request({ method: 'POST', url: BASE, token: user.token, payload });
  const get = (key: string, user = reader) => t.request({ method: 'GET', url: `${BASE}/${key}`, token: user.token });
  const patch = (key: string, payload: object, user = editor) =>
    t.request({ method: 'PATCH', url: `${BASE}/${key}`, token: user.token, payload });
  const remove = (key: string, user = editor) =>
    t.request({ method: 'DELETE', url: `${BASE}/${key}`, token: user.token });
  const templateRow = (key: string) =>
    t.db.selectFrom('email_templates').selectAll().where('key', '=', key).executeTakeFirst();
  const versionRows = (templateId: string) =>
    t.db
      .selectFrom('email_template_versions')
      .selectAll()
      .where('template_id', '=', templateId)
      .orderBy('version')
      .execute();
  const templateCount = async () =>
    (await t.db.selectFrom('email_templates').select(sql<number>`count(*)::int`.as('n')).executeTakeFirstOrThrow()).n;
  const newTemplate = async (payload: Record<string, unknown> = {}) => {
    const key = freshKey();
    const res = await create({ key, name: `Name of ${key}`, ...payload });
    expect(res.statusCode).toBe(201);
    return { key, id: res.json().id as string };
  };

  describe('POST /v1/admin/email/templates', () => {
    it('creates an unpublished marketing template with no versions, and audits it', async () => {
      const key = freshKey();
      const res = await create({ key, name: '  Weekly digest  ' });
      expect(res.statusCode).toBe(201);
      const body = res.json();
      expect(body).toEqual({
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        key,
        name: 'Weekly digest',
        description: null,
        category: 'marketing',
        published_version: null,
        published_at: null,
        latest_version: null,
        created_by: editor.id,
        updated_by: editor.id,
        created_at: expect.any(String),
        updated_at: expect.any(String),
        versions: [],
        published: null,
      });
      expect(await templateRow(key)).toMatchObject({
        id: body.id,
        name: 'Weekly digest',
        category: 'marketing',
        published_version: null,
        created_by: editor.id,
      });
      expect(await versionRows(body.id)).toEqual([]);
      const audits = await auditOf(t.db, requestIdOf(res));
      expect(audits).toEqual([
        expect.objectContaining({
          action: 'email.template.create',
          actor_id: editor.id,
          target_type: 'email_template',
          target_id: body.id,
          summary: { after: { key, name: 'Weekly digest', description: null, category: 'marketing', version: null } },
        }),
      ]);
    });

    it('stores a first version (1) with it, unpublished', async () => {
      const key = freshKey();
      const res = await create({
        key,
        name: 'Receipt',
        description: 'After a purchase',
        category: 'transactional',
        version: { ...VERSION, note: 'first' },
      });
      expect(res.statusCode).toBe(201);
      expect(res.json()).toMatchObject({
        key,
        description: 'After a purchase',
        category: 'transactional',
        published_version: null,
        latest_version: 1,
        published: null,
        versions: [
          {
            version: 1,
            subject: VERSION.subject,
            note: 'first',
            is_published: false,
            created_by: editor.id,
            created_at: expect.any(String),
          },
        ],
      });
      const [version, ...more] = await versionRows(res.json().id);
      expect(more).toEqual([]);
      expect(version).toMatchObject({ version: 1, ...VERSION, note: 'first', created_by: editor.id });
      expect((await auditOf(t.db, requestIdOf(res)))[0]!.summary).toMatchObject({
        after: { version: 1, category: 'transactional' },
      });
    });

    it('refuses a taken key with 409 conflict, storing nothing', async () => {
      const { key } = await newTemplate();
      const before = await templateCount();
      const res = await create({ key, name: 'Again', version: VERSION });
      expect(res.statusCode).toBe(409);
      expect(res.json()).toEqual({ error: 'conflict', details: { reason: 'key taken', key } });
      expect(await templateCount()).toBe(before);
      expect(await auditOf(t.db, requestIdOf(res))).toEqual([]);
    });

    it('refuses a first version with a malformed placeholder with 422 invalid_request, storing nothing', async () => {
      const key = freshKey();
      const res = await create({ key, name: 'Broken', version: { ...VERSION, html: '<p>\n  {{ name </p>' } });
      expect(res.statusCode).toBe(422);
      expect(res.json()).toEqual({
        error: 'invalid_request',
        details: {
          reason: 'the template has malformed placeholders',
          problems: [{ part: 'html', line: 2, column: 3, problem: expect.any(String) }],
        },
      });
      expect(await templateRow(key)).toBeUndefined();
      expect(await auditOf(t.db, requestIdOf(res))).toEqual([]);
    });

    it.each([
      ['a missing key', { name: 'x' }, ['key']],
      ['an upper-case key', { key: 'Welcome', name: 'x' }, ['key']],
      ['a key starting with a digit', { key: '1welcome', name: 'x' }, ['key']],
      ['a one-character key', { key: 'w', name: 'x' }, ['key']],
      ['a key of 65 characters', { key: `w${'e'.repeat(64)}`, name: 'x' }, ['key']],
      ['a key with an underscore', { key: 'wel_come', name: 'x' }, ['key']],
      ['a blank name', { key: 'welcome', name: '   ' }, ['name']],
      ['a name of 201 characters', { key: 'welcome', name: 'n'.repeat(201) }, ['name']],
      ['a description of 501 characters', { key: 'welcome', name: 'x', description: 'd'.repeat(501) }, ['description']],
      ['an unknown category', { key: 'welcome', name: 'x', category: 'newsletter' }, ['category']],
      [
        'a version without html',
        { key: 'welcome', name: 'x', version: { subject: 's', text: 't' } },
        ['version', 'html'],
      ],
      ['an unknown field', { key: 'welcome', name: 'x', body: 'y' }, []],
    ])('refuses %s with a SchemaError, storing nothing', async (_name, payload, path) => {
      const before = await templateCount();
      const res = await create(payload);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual(schemaError({ path }));
      expect(await templateCount()).toBe(before);
    });

    it('accepts the shortest and longest keys', async () => {
      const short = `a${randomUUID().slice(0, 1)}`.replace(/[^a-z0-9]/g, 'x');
      const long = `z${randomUUID().replace(/-/g, '')}`.padEnd(64, '9');
      for (const key of [short, long]) {
        const res = await create({ key, name: 'edge' });
        expect(res.statusCode, key).toBe(201);
        expect(await templateRow(key)).toMatchObject({ key });
      }
    });
  });

  describe('permissions', () => {
    it.each([
      [
        'a reader creating',
        () => create({ key: 'nope', name: 'x' }, reader),
        403,
        { error: 'forbidden', details: { perm: 'email.write' } },
      ],
      [
        'a reader changing',
        () => patch('nope', { name: 'x' }, reader),
        403,
        { error: 'forbidden', details: { perm: 'email.write' } },
      ],
      [
        'a reader deleting',
        () => remove('nope', reader),
        403,
        { error: 'forbidden', details: { perm: 'email.write' } },
      ],
      [
        'a reader adding a version',
        () => t.request({ method: 'POST', url: `${BASE}/nope/versions`, token: reader.token, payload: VERSION }),
        403,
        { error: 'forbidden', details: { perm: 'email.write' } },
      ],
      [
        'a reader publishing',
        () => t.request({ method: 'POST', url: `${BASE}/nope/publish`, token: reader.token, payload: { version: 1 } }),
        403,
        { error: 'forbidden', details: { perm: 'email.write' } },
      ],
      [
        'a reader unpublishing',
        () => t.request({ method: 'POST', url: `${BASE}/nope/unpublish`, token: reader.token }),
        403,
        { error: 'forbidden', details: { perm: 'email.write' } },
      ],
      [
        'an outsider listing',
        () => t.request({ method: 'GET', url: BASE, token: outsider.token }),
        403,
        { error: 'forbidden', details: { perm: 'email.read' } },
      ],
      [
        'an outsider reading one',
        () => get('nope', outsider),
        403,
        { error: 'forbidden', details: { perm: 'email.read' } },
      ],
      [
        'an outsider reading a version',
        () => t.request({ method: 'GET', url: `${BASE}/nope/versions/1`, token: outsider.token }),
        403,
        { error: 'forbidden', details: { perm: 'email.read' } },
      ],
      [
        'an outsider previewing',
        () => t.request({ method: 'POST', url: `${BASE}/nope/preview`, token: outsider.token, payload: {} }),
        403,
        { error: 'forbidden', details: { perm: 'email.read' } },
      ],
      [
        'a caller without a token',
        () => t.request({ method: 'POST', url: BASE, payload: { key: 'nope', name: 'x' } }),
        401,
        { error: 'missing_token' },
      ],
      [
        'a caller without a token listing',
        () => t.request({ method: 'GET', url: BASE }),
        401,
        { error: 'missing_token' },
      ],
    ])('refuses %s', async (_name, call, status, body) => {
      const before = await templateCount();
      const res = await call();
      expect(res.statusCode).toBe(status);
      expect(res.json()).toEqual(body);
      expect(await templateCount()).toBe(before);
    });
  });

  describe('GET /v1/admin/email/templates', () => {
    it('pages with a total, matches q on key or name, filters category and published, sorts', async () => {
      const tag = randomUUID().slice(0, 6);
      const made: Record<string, string> = {};
      for (const [suffix, name, category] of [
        ['a', 'Alpha news', 'marketing'],
        ['b', `Bravo ${tag}`, 'transactional'],
        ['c', 'Charlie', 'marketing'],
      ] as const) {
        const key = `list-${tag}-${suffix}`;
        made[suffix] = key;
        expect((await create({ key, name, category, version: VERSION })).statusCode).toBe(201);
      }
      await t.request({
        method: 'POST',
        url: `${BASE}/${made.c}/publish`,
        token: editor.token,
        payload: { version: 1 },
      });
      const list = (query: string) => t.request({ method: 'GET', url: `${BASE}?${query}`, token: reader.token });

      const byKey = await list(`q=list-${tag}&sort=key:asc&per_page=2`);
      expect(byKey.statusCode).toBe(200);
      expect(byKey.json().meta).toEqual({ page: 1, per_page: 2, total: 3 });
      expect(byKey.json().data.map((r: { key: string }) => r.key)).toEqual([made.a, made.b]);
      expect(byKey.json().data[0]).toEqual({
        id: expect.any(String),
        key: made.a,
        name: 'Alpha news',
        description: null,
        category: 'marketing',
        published_version: null,
        published_at: null,
        latest_version: 1,
        created_by: editor.id,
        updated_by: editor.id,
        created_at: expect.any(String),
        updated_at: expect.any(String),
      });
      expect(
        (await list(`q=list-${tag}&sort=key:asc&per_page=2&page=2`)).json().data.map((r: { key: string }) => r.key),
      ).toEqual([made.c]);
      // q matches the name too (the tag is only in Bravo's name, and in every key).
      expect((await list(`q=Bravo ${tag}`)).json().data.map((r: { key: string }) => r.key)).toEqual([made.b]);
      expect(
        (await list(`q=list-${tag}&category=transactional`)).json().data.map((r: { key: string }) => r.key),
      ).toEqual([made.b]);
      const published = (await list(`q=list-${tag}&published=true`)).json();
      expect(
        published.data.map((r: { key: string; published_version: number }) => [r.key, r.published_version]),
      ).toEqual([[made.c, 1]]);
      expect(published.meta.total).toBe(1);
      expect(
        (await list(`q=list-${tag}&published=false&sort=name:desc`)).json().data.map((r: { key: string }) => r.key),
      ).toEqual([made.b, made.a]);
      // Newest change first by default: publishing C touched it last.
      expect((await list(`q=list-${tag}`)).json().data[0].key).toBe(made.c);
      // q is literal: a % matches nothing here.
      expect((await list('q=%25%25%25')).json()).toEqual({ data: [], meta: { page: 1, per_page: 25, total: 0 } });
    });

    it.each([
      ['an unknown sort field', 'sort=subject:asc', ['sort']],
      ['an unknown category', 'category=newsletter', ['category']],
      ['a published filter that is not true/false', 'published=yes', ['published']],
      ['per_page over 100', 'per_page=101', ['per_page']],
    ])('refuses %s with a SchemaError', async (_name, query, path) => {
      const res = await t.request({ method: 'GET', url: `${BASE}?${query}`, token: reader.token });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual(schemaError({ path }));
    });
  });

  describe('GET /v1/admin/email/templates/{key}', () => {
    it('shows every version newest first without bodies, and the published version with its bodies', async () => {
      const { key, id } = await newTemplate({ version: VERSION });
      const other = await createUser(t.db, ['email.write']);
      await t.request({
        method: 'POST',
        url: `${BASE}/${key}/versions`,
        token: other.token,
        payload: { subject: 'Second', html: '<b>{{ code }}</b>', text: '{{ code }}', note: 'v2' },
      });
      await t.request({ method: 'POST', url: `${BASE}/${key}/publish`, token: editor.token, payload: { version: 2 } });
      const res = await get(key);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({
        id,
        key,
        published_version: 2,
        published_at: expect.any(String),
        latest_version: 2,
        updated_by: editor.id,
      });
      expect(res.json().versions).toEqual([
        {
          version: 2,
          subject: 'Second',
          note: 'v2',
          is_published: true,
          created_by: other.id,
          created_at: expect.any(String),
        },
        {
          version: 1,
          subject: VERSION.subject,
          note: null,
          is_published: false,
          created_by: editor.id,
          created_at: expect.any(String),
        },
      ]);
      expect(res.json().published).toEqual({
        version: 2,
        subject: 'Second',
        html: '<b>{{ code }}</b>',
        text: '{{ code }}',
        note: 'v2',
        is_published: true,
        created_by: other.id,
        created_at: expect.any(String),
        variables: ['code'],
      });
    });

    it('answers 404 not_found for an unknown key and 400 for a malformed one', async () => {
      const unknown = await get(freshKey('unknown'));
      expect(unknown.statusCode).toBe(404);
      expect(unknown.json()).toEqual({ error: 'not_found' });
      const malformed = await get('Not_A_Key');
      expect(malformed.statusCode).toBe(400);
      expect(malformed.json()).toEqual(schemaError({ path: ['key'] }));
    });
  });

  describe('PATCH /v1/admin/email/templates/{key}', () => {
    it('changes only what is given, answers the template, and audits before and after', async () => {
      const { key, id } = await newTemplate({ description: 'old words' });
      const changer = await createUser(t.db, ['email.write']);
      const res = await patch(key, { category: 'transactional' }, changer);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({
        id,
        key,
        name: `Name of ${key}`,
        description: 'old words',
        category: 'transactional',
        updated_by: changer.id,
        created_by: editor.id,
      });
      expect(await templateRow(key)).toMatchObject({
        name: `Name of ${key}`,
        description: 'old words',
        category: 'transactional',
        updated_by: changer.id,
      });
      expect(await auditOf(t.db, requestIdOf(res))).toEqual([
        expect.objectContaining({
          action: 'email.template.update',
          actor_id: changer.id,
          target_type: 'email_template',
          target_id: id,
          summary: {
            before: { name: `Name of ${key}`, description: 'old words', category: 'marketing' },
            after: { name: `Name of ${key}`, description: 'old words', category: 'transactional' },
          },
        }),
      ]);

      const cleared = await patch(key, { name: 'Renamed', description: null });
      expect(cleared.json()).toMatchObject({ name: 'Renamed', description: null, category: 'transactional' });
      expect(await patch(key, { description: '' }).then((r) => r.json().description)).toBeNull();
      expect(await templateRow(key)).toMatchObject({ name: 'Renamed', description: null });
    });

    it('answers 404 not_found for an unknown key, auditing nothing', async () => {
      const res = await patch(freshKey('unknown'), { name: 'x' });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ error: 'not_found' });
      expect(await auditOf(t.db, requestIdOf(res))).toEqual([]);
    });

    it.each([
      ['an empty body', {}, []],
      ['a blank name', { name: ' ' }, ['name']],
      ['an unknown category', { category: 'spam' }, ['category']],
      ['the key (which never changes)', { name: 'x', key: 'other-key' }, []],
    ])('refuses %s with a SchemaError, changing nothing', async (_name, payload, path) => {
      const { key } = await newTemplate();
      const before = await templateRow(key);
      const res = await patch(key, payload);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual(schemaError({ path }));
      expect(await templateRow(key)).toEqual(before);
    });
  });

  describe('DELETE /v1/admin/email/templates/{key}', () => {
    it('deletes the template with its versions, and audits it', async () => {
      const { key, id } = await newTemplate({ version: VERSION });
      await t.request({ method: 'POST', url: `${BASE}/${key}/publish`, token: editor.token, payload: { version: 1 } });
      const res = await remove(key);
      expect(res.statusCode).toBe(204);
      expect(res.body).toBe('');
      expect(await templateRow(key)).toBeUndefined();
      expect(await versionRows(id)).toEqual([]);
      expect(await auditOf(t.db, requestIdOf(res))).toEqual([
        expect.objectContaining({
          action: 'email.template.delete',
          actor_id: editor.id,
          target_type: 'email_template',
          target_id: id,
          summary: { before: { key, name: `Name of ${key}`, category: 'marketing', published_version: 1 } },
        }),
      ]);
      expect((await get(key)).statusCode).toBe(404);
      // The key is free again.
      expect((await create({ key, name: 'Reborn' })).statusCode).toBe(201);
    });

    it('refuses with 409 conflict while a message references one of its versions, deleting nothing', async () => {
      const { key, id } = await newTemplate({ version: VERSION });
      await t.db
        .insertInto('email_messages')
        .values([
          { to_email: 'a@example.test', category: 'marketing', template_id: id, template_version: 1 },
          {
            to_email: 'b@example.test',
            category: 'marketing',
            template_id: id,
            template_version: 1,
            status: 'cancelled',
          },
        ])
        .execute();
      const res = await remove(key);
      expect(res.statusCode).toBe(409);
      expect(res.json()).toEqual({
        error: 'conflict',
        details: {
          reason: 'the template is in use',
          template_key: key,
          messages: 2,
          constraint: 'email_messages_template_fkey',
        },
      });
      expect(await templateRow(key)).toMatchObject({ id });
      expect(await versionRows(id)).toHaveLength(1);
      expect(await auditOf(t.db, requestIdOf(res))).toEqual([]);
    });

    it('answers 404 not_found for an unknown key and 400 for a malformed one', async () => {
      const unknown = await remove(freshKey('unknown'));
      expect(unknown.statusCode).toBe(404);
      expect(unknown.json()).toEqual({ error: 'not_found' });
      expect(await auditOf(t.db, requestIdOf(unknown))).toEqual([]);
      const malformed = await remove('x');
      expect(malformed.statusCode).toBe(400);
      expect(malformed.json()).toEqual(schemaError({ path: ['key'] }));
    });
  });
});
