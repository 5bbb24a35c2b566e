import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, startTestApp, type TestUser } from '../../../helpers/app.js';

type App = Awaited<ReturnType<typeof startTestApp>>;

describe('site pages: create, list, get, rename and versions (operation 10)', () => {
  let t: App;
  let editor: TestUser;
  let reader: TestUser;
  let outsider: TestUser;
  let slugCounter = 0;

  beforeAll(async () => {
    t = await startTestApp();
    editor = await createUser(t.db, ['site.write', 'site.read']);
    reader = await createUser(t.db, ['site.read']);
    outsider = await createUser(t.db, ['content.write']);
  });
  afterAll(async () => t.close());

  const freshSlug = () => `page-${++slugCounter}-${randomUUID().slice(0, 6)}`;
  const createPage = (payload: object, user = editor) =>
    t.request({ method: 'POST', url: '/v1/admin/site/pages', token: user.token, payload });
  const newPage = async (title = 'A page') => {
    const res = await createPage({ slug: freshSlug(), title });
    expect(res.statusCode).toBe(201);
    return res.json().id as string;
  };
  const saveVersion = (id: string, payload: object, user = editor) =>
    t.request({ method: 'POST', url: `/v1/admin/site/pages/${id}/versions`, token: user.token, payload });
  const pageRow = (id: string) => t.db.selectFrom('site_pages').selectAll().where('id', '=', id).executeTakeFirst();
  const versionRows = (id: string) =>
    t.db.selectFrom('site_page_versions').selectAll().where('page_id', '=', id).orderBy('version').execute();
  const auditRows = (action: string, target: string) =>
    t.db
      .selectFrom('audit_log')
      .selectAll()
      .where('action', '=', action)
      .where('target_id', '=', target)
      .orderBy('created_at')
      .execute();
  const pageCount = async () =>
    (await t.db.selectFrom('site_pages').select(sql<number>`count(*)::int`.as('n')).executeTakeFirstOrThrow()).n;

  it('creates a page with no versions, unpublished, and audits it', async () => {
    const slug = freshSlug();
    const res = await createPage({ slug, title: 'About us' });
    expect(res.statusCode).toBe(201);
    const { id } = res.json();
    expect(res.json()).toEqual({ id: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    expect(await pageRow(id)).toMatchObject({
      slug,
      title: 'About us',
      created_by: editor.id,
      published_version: null,
      published_at: null,
    });
    const [audit, ...more] = await auditRows('site.page.create', id);
    expect(more).toEqual([]);
    expect(audit).toMatchObject({
      actor_id: editor.id,
      target_type: 'site_page',
      request_id: res.headers['x-request-id'],
      summary: { after: { slug, title: 'About us' } },
    });

    const get = await t.request({ method: 'GET', url: `/v1/admin/site/pages/${id}`, token: reader.token });
    expect(get.statusCode).toBe(200);
    expect(get.json()).toEqual({
      id,
      slug,
      title: 'About us',
      published_version: null,
      published_at: null,
      published_by: null,
      latest_version: null,
      created_by: editor.id,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
  });

  it('refuses a taken slug with 409 conflict, storing nothing', async () => {
    const slug = freshSlug();
    await createPage({ slug, title: 'First' });
    const before = await pageCount();
    const res = await createPage({ slug, title: 'Second' });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual({ error: 'conflict', details: { reason: 'slug taken', slug } });
    expect(await pageCount()).toBe(before);
    const audits = await t.db
      .selectFrom('audit_log')
      .select('summary')
      .where('action', '=', 'site.page.create')
      .execute();
    expect(audits.filter((a) => (a.summary as { after: { slug: string } }).after.slug === slug)).toHaveLength(1);
  });

  it.each([
    ['an empty slug', { slug: '', title: 'x' }, ['slug']],
    ['an upper-case slug', { slug: 'About', title: 'x' }, ['slug']],
    ['a slug starting with a dash', { slug: '-about', title: 'x' }, ['slug']],
    ['a slug of 129 characters', { slug: `a${'b'.repeat(128)}`, title: 'x' }, ['slug']],
    ['an empty title', { slug: 'ok-slug', title: '' }, ['title']],
    ['a blank title', { slug: 'ok-slug', title: '   ' }, ['title']],
    ['a title of 201 characters', { slug: 'ok-slug', title: 't'.repeat(201) }, ['title']],
    ['a missing title', { slug: 'ok-slug' }, ['title']],
    ['an unknown field', { slug: 'ok-slug', title: 'x', body: 'y' }, []],
  ])('refuses %s with a SchemaError, storing nothing', async (_name, payload, path) => {
    const before = await pageCount();
    const res = await createPage(payload);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ success: false, error: { name: 'SchemaError' } });
    expect(res.json().error.issues[0].path).toEqual(path);
    expect(await pageCount()).toBe(before);
  });

  it('accepts the longest slug and title', async () => {
    const slug = `z${randomUUID().replace(/-/g, '')}`.padEnd(128, '9');
    const res = await createPage({ slug, title: 't'.repeat(200) });
    expect(res.statusCode).toBe(201);
    expect(await pageRow(res.json().id)).toMatchObject({ slug, title: 't'.repeat(200) });
  });

  it.each([
    [
      'a reader creating',
      () => createPage({ slug: 'nope', title: 'x' }, reader),
      403,
      { error: 'forbidden', details: { perm: 'site.write' } },
    ],
    [
      'an outsider listing',
      () => t.request({ method: 'GET', url: '/v1/admin/site/pages', token: outsider.token }),
      403,
      { error: 'forbidden', details: { perm: 'site.read' } },
    ],
    [
      'a reader saving a version',
      () => saveVersion(randomUUID(), { markdown: 'x' }, reader),
      403,
      { error: 'forbidden', details: { perm: 'site.write' } },
    ],
    [
      'a caller without a token',
      () => t.request({ method: 'POST', url: '/v1/admin/site/pages', payload: { slug: 'nope', title: 'x' } }),
      401,
      { error: 'missing_token' },
    ],
  ])('refuses %s', async (_name, call, status, body) => {
    const before = await pageCount();
    const res = await call();
    expect(res.statusCode).toBe(status);
    expect(res.json()).toEqual(body);
    expect(await pageCount()).toBe(before);
  });

  it('stores immutable, rising versions without publishing anything, and audits each', async () => {
    const id = await newPage();
    const createdAt = (await pageRow(id))!.updated_at;
    const first = await saveVersion(id, { markdown: '# Hello', note: 'first draft' });
    expect(first.statusCode).toBe(200);
    expect(first.json()).toEqual({ version: 1 });
    const second = await saveVersion(id, { markdown: '# Hello again' });
    expect(second.json()).toEqual({ version: 2 });

    expect((await versionRows(id)).map((v) => [v.version, v.markdown, v.note, v.created_by])).toEqual([
      [1, '# Hello', 'first draft', editor.id],
      [2, '# Hello again', null, editor.id],
    ]);
    const page = await pageRow(id);
    expect(page).toMatchObject({ published_version: null, published_at: null });
    expect(page!.updated_at.getTime()).toBeGreaterThanOrEqual(createdAt.getTime());
    const audits = await auditRows('site.page.version', id);
    expect(audits.map((a) => [a.actor_id, a.reason, a.summary, a.request_id])).toEqual([
      [editor.id, 'first draft', { after: { version: 1, markdown_length: 7 } }, first.headers['x-request-id']],
      [editor.id, null, { after: { version: 2, markdown_length: 13 } }, second.headers['x-request-id']],
    ]);
    expect(
      (await t.request({ method: 'GET', url: `/v1/admin/site/pages/${id}`, token: reader.token })).json(),
    ).toMatchObject({ latest_version: 2, published_version: null });
    // Not live: the public read does not know the page.
    expect((await t.request({ method: 'GET', url: `/v1/public/site/pages/${page!.slug}` })).statusCode).toBe(404);
    // The database itself refuses to edit a stored version.
    await expect(
      t.db.updateTable('site_page_versions').set({ markdown: 'changed' }).where('page_id', '=', id).execute(),
    ).rejects.toThrow(/immutable/);
  });

  it('answers 404 not_found for a version of an unknown page, storing nothing', async () => {
    const id = randomUUID();
    const res = await saveVersion(id, { markdown: 'text' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: 'not_found' });
    expect(await versionRows(id)).toEqual([]);
    expect(await auditRows('site.page.version', id)).toEqual([]);
  });

  it.each([
    ['an empty markdown', { markdown: '' }, ['markdown']],
    ['a missing markdown', { note: 'x' }, ['markdown']],
    ['markdown of 200001 characters', { markdown: 'm'.repeat(200_001) }, ['markdown']],
    ['a note of 501 characters', { markdown: 'x', note: 'n'.repeat(501) }, ['note']],
    ['a null note', { markdown: 'x', note: null }, ['note']],
    ['an unknown field', { markdown: 'x', title: 'y' }, []],
  ])('refuses a version with %s (SchemaError), storing nothing', async (_name, payload, path) => {
    const id = await newPage();
    const res = await saveVersion(id, payload);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ success: false, error: { name: 'SchemaError' } });
    expect(res.json().error.issues[0].path).toEqual(path);
    expect(await versionRows(id)).toEqual([]);
  });

  it('accepts the largest markdown and note, and refuses a page id that is not a uuid', async () => {
    const id = await newPage();
    const res = await saveVersion(id, { markdown: 'm'.repeat(200_000), note: 'n'.repeat(500) });
    expect(res.json()).toEqual({ version: 1 });
    expect((await versionRows(id))[0]!.markdown).toHaveLength(200_000);
    const bad = await saveVersion('not-a-uuid', { markdown: 'x' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.issues[0].path).toEqual(['id']);
  });

  it('gives concurrent saves of one page distinct version numbers', async () => {
    const id = await newPage();
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => saveVersion(id, { markdown: `edit ${i}` })));
    expect(results.map((r) => r.statusCode)).toEqual(Array(8).fill(200));
    expect(results.map((r) => r.json().version).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect((await versionRows(id)).map((v) => v.version)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });

  it('lists versions newest first with who and when, and reads one with its markdown', async () => {
    const id = await newPage();
    const other = await createUser(t.db, ['site.write']);
    await saveVersion(id, { markdown: 'one' });
    await saveVersion(id, { markdown: 'two, by another editor', note: 'typo' }, other);
    await saveVersion(id, { markdown: 'three' });
    await t.request({
      method: 'POST',
      url: `/v1/admin/site/pages/${id}/publish`,
      token: editor.token,
      payload: { version: 2 },
    });

    const list = await t.request({
      method: 'GET',
      url: `/v1/admin/site/pages/${id}/versions?per_page=2`,
      token: reader.token,
    });
    expect(list.statusCode).toBe(200);
    expect(list.json()).toEqual({
      data: [
        {
          version: 3,
          note: null,
          markdown_length: 5,
          is_published: false,
          created_by: editor.id,
          created_by_email: editor.email,
          created_at: expect.any(String),
        },
        {
          version: 2,
          note: 'typo',
          markdown_length: 22,
          is_published: true,
          created_by: other.id,
          created_by_email: other.email,
          created_at: expect.any(String),
        },
      ],
      meta: { page: 1, per_page: 2, total: 3 },
    });
    const oldestFirst = await t.request({
      method: 'GET',
      url: `/v1/admin/site/pages/${id}/versions?sort=version:asc&page=2&per_page=2`,
      token: reader.token,
    });
    expect(oldestFirst.json().data.map((v: { version: number }) => v.version)).toEqual([3]);

    const one = await t.request({ method: 'GET', url: `/v1/admin/site/pages/${id}/versions/2`, token: reader.token });
    expect(one.json()).toMatchObject({
      version: 2,
      markdown: 'two, by another editor',
      note: 'typo',
      created_by_email: other.email,
      is_published: true,
    });
    const missing = await t.request({
      method: 'GET',
      url: `/v1/admin/site/pages/${id}/versions/9`,
      token: reader.token,
    });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual({ error: 'not_found', details: { version: 9 } });
    for (const url of [
      `/v1/admin/site/pages/${randomUUID()}/versions`,
      `/v1/admin/site/pages/${randomUUID()}/versions/1`,
      `/v1/admin/site/pages/${randomUUID()}`,
    ]) {
      const res = await t.request({ method: 'GET', url, token: reader.token });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ error: 'not_found' });
    }
    const tooBig = await t.request({
      method: 'GET',
      url: `/v1/admin/site/pages/${id}/versions/2147483648`,
      token: reader.token,
    });
    expect(tooBig.statusCode).toBe(400);
  });

  it('renames a page and changes its slug, keeping omitted fields; refuses a taken slug', async () => {
    const id = await newPage('Old title');
    const { slug } = (await pageRow(id))!;
    const patch = (payload: object, pageId = id) =>
      t.request({ method: 'PATCH', url: `/v1/admin/site/pages/${pageId}`, token: editor.token, payload });

    const renamed = await patch({ title: 'New title' });
    expect(renamed.statusCode).toBe(204);
    expect(renamed.body).toBe('');
    expect(await pageRow(id)).toMatchObject({ slug, title: 'New title' });
    const [audit] = await auditRows('site.page.update', id);
    expect(audit).toMatchObject({
      actor_id: editor.id,
      request_id: renamed.headers['x-request-id'],
      summary: { before: { slug, title: 'Old title' }, after: { slug, title: 'New title' } },
    });

    const newSlug = freshSlug();
    expect((await patch({ slug: newSlug })).statusCode).toBe(204);
    expect(await pageRow(id)).toMatchObject({ slug: newSlug, title: 'New title' });

    const takenBy = await newPage();
    const takenSlug = (await pageRow(takenBy))!.slug;
    const taken = await patch({ slug: takenSlug, title: 'Should not stick' });
    expect(taken.statusCode).toBe(409);
    expect(taken.json()).toEqual({ error: 'conflict', details: { reason: 'slug taken', slug: takenSlug } });
    expect(await pageRow(id)).toMatchObject({ slug: newSlug, title: 'New title' });
    expect(await auditRows('site.page.update', id)).toHaveLength(2);

    const unknown = await patch({ title: 'x' }, randomUUID());
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toEqual({ error: 'not_found' });
    for (const payload of [{}, { title: '' }, { slug: 'Bad Slug' }, { title: 'x', published_version: 1 }]) {
      const res = await patch(payload);
      expect(res.statusCode).toBe(400);
      expect(res.json().error.name).toBe('SchemaError');
    }
    expect(await auditRows('site.page.update', id)).toHaveLength(2);
  });

  it('lists pages paged, searching slug and title, filtering by published state, sorted', async () => {
    const tag = randomUUID().slice(0, 8);
    const ids: string[] = [];
    for (const title of [`Beta ${tag}`, `Alpha ${tag}`, `Gamma ${tag}`]) ids.push(await newPage(title));
    await saveVersion(ids[2]!, { markdown: 'live' });
    await t.request({
      method: 'POST',
      url: `/v1/admin/site/pages/${ids[2]}/publish`,
      token: editor.token,
      payload: { version: 1 },
    });

    const list = (query: string) =>
      t.request({ method: 'GET', url: `/v1/admin/site/pages?${query}`, token: reader.token });
    const byTitle = await list(`q=${tag}&sort=title:asc&per_page=2`);
    expect(byTitle.statusCode).toBe(200);
    expect(byTitle.json().meta).toEqual({ page: 1, per_page: 2, total: 3 });
    expect(byTitle.json().data.map((p: { title: string }) => p.title)).toEqual([`Alpha ${tag}`, `Beta ${tag}`]);
    expect(
      (await list(`q=${tag}&sort=title:asc&per_page=2&page=2`)).json().data.map((p: { title: string }) => p.title),
    ).toEqual([`Gamma ${tag}`]);

    const live = await list(`q=${tag}&published=true`);
    expect(live.json().data).toEqual([
      expect.objectContaining({ id: ids[2], published_version: 1, latest_version: 1 }),
    ]);
    expect((await list(`q=${tag}&published=false`)).json().meta.total).toBe(2);

    const slug = (await pageRow(ids[0]!))!.slug;
    expect((await list(`q=${slug}`)).json().data.map((p: { id: string }) => p.id)).toEqual([ids[0]]);
    expect((await list('q=%25')).json().meta.total).toBe(0);
    for (const query of ['sort=slug:asc', 'per_page=101', 'page=0', 'published=yes']) {
      const res = await list(query);
      expect(res.statusCode).toBe(400);
      expect(res.json().error.name).toBe('SchemaError');
    }
  });
});
