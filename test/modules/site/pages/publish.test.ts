import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publishedPagesIndex } from '../../../../src/modules/site/pages/queries.js';
import { SITE_CONFIG_TOPIC } from '../../../../src/modules/site/public/site-cache.js';
import { createUser, eventually, startTestApp, type TestUser } from '../../../helpers/app.js';

type App = Awaited<ReturnType<typeof startTestApp>>;

describe('site pages: publish, unpublish and the public read', () => {
  let t: App;
  let editor: TestUser;
  let reader: TestUser;
  /** Site-config invalidations heard by this instance (after commit). */
  let invalidations = 0;

  beforeAll(async () => {
    t = await startTestApp();
    editor = await createUser(t.db, ['site.write', 'site.read']);
    reader = await createUser(t.db, ['site.read']);
    t.kernel.bus.on(SITE_CONFIG_TOPIC, () => {
      invalidations += 1;
    });
  });
  afterAll(async () => t.close());

  const post = (url: string, payload?: object, user = editor) =>
    t.request({ method: 'POST', url, token: user.token, payload });
  /** A page with these versions stored (1, 2, …), none published. */
  const pageWithVersions = async (...markdowns: string[]) => {
    const slug = `p-${randomUUID().slice(0, 12)}`;
    const { id } = (await post('/v1/admin/site/pages', { slug, title: `Title of ${slug}` })).json();
    for (const markdown of markdowns)
      expect((await post(`/v1/admin/site/pages/${id}/versions`, { markdown })).statusCode).toBe(200);
    return { id: id as string, slug };
  };
  const publish = (id: string, payload: object, user = editor) =>
    post(`/v1/admin/site/pages/${id}/publish`, payload, user);
  const unpublish = (id: string, user = editor) => post(`/v1/admin/site/pages/${id}/unpublish`, undefined, user);
  const publicPage = (slug: string, headers: Record<string, string> = {}) =>
    t.request({ method: 'GET', url: `/v1/public/site/pages/${slug}`, headers });
  const pageRow = (id: string) =>
    t.db.selectFrom('site_pages').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const auditRows = (action: string, target: string) =>
    t.db
      .selectFrom('audit_log')
      .selectAll()
      .where('action', '=', action)
      .where('target_id', '=', target)
      .orderBy('created_at')
      .execute();
  const eventsFor = (name: string, pageId: string) =>
    t.events.filter((e) => e.name === name && e.payload.page_id === pageId);
  const outboxFor = (name: string, pageId: string) =>
    t.db
      .selectFrom('event_outbox')
      .select(['kind', 'name', 'payload', 'actor_id', 'request_id'])
      .where('name', '=', name)
      .execute()
      .then((rows) => rows.filter((row) => (row.payload as { page_id: string }).page_id === pageId));
  /**
   * Returns once every notification committed so far has been heard: a marker notified now
   * arrives after them (notifications are delivered in commit order).
   */
  const settled = async () => {
    const topic = `test-marker-${randomUUID()}`;
    let heard = false;
    const off = t.kernel.bus.on(topic, () => {
      heard = true;
    });
    try {
      await t.kernel.bus.notify(t.db, topic);
      await eventually(() => expect(heard).toBe(true));
    } finally {
      off();
    }
    return invalidations;
  };
  const expectInvalidations = async (since: number, more: number) => expect(await settled()).toBe(since + more);

  it('publishes a stored version: live on the public read, audited, a dashboard event, the site cache invalidated', async () => {
    const { id, slug } = await pageWithVersions('# Terms v1', '# Terms v2');
    const heard = await settled();
    const res = await publish(id, { version: 2 });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ version: 2 });

    expect(await pageRow(id)).toMatchObject({
      published_version: 2,
      published_by: editor.id,
      published_at: expect.any(Date),
    });
    const live = await publicPage(slug);
    expect(live.statusCode).toBe(200);
    expect(live.json()).toEqual({
      slug,
      title: `Title of ${slug}`,
      markdown: '# Terms v2',
      version: 2,
      published_at: (await pageRow(id)).published_at!.toISOString(),
    });

    const [audit] = await auditRows('site.page.publish', id);
    expect(audit).toMatchObject({
      actor_id: editor.id,
      target_type: 'site_page',
      request_id: res.headers['x-request-id'],
      summary: { before: { version: null }, after: { version: 2 } },
    });
    await eventually(() =>
      expect(eventsFor('site.page_published', id).map((e) => e.payload)).toEqual([{ page_id: id, slug, version: 2 }]),
    );
    expect(await outboxFor('site.page_published', id)).toEqual([
      {
        kind: 'dashboard',
        name: 'site.page_published',
        payload: { page_id: id, slug, version: 2 },
        actor_id: editor.id,
        request_id: res.headers['x-request-id'],
      },
    ]);
    await expectInvalidations(heard, 1);
  });

  it('rolls back by publishing an older version, and a new version changes nothing live', async () => {
    const { id, slug } = await pageWithVersions('old words', 'new words');
    await publish(id, { version: 2 });
    expect((await publish(id, { version: 1 })).json()).toEqual({ version: 1 });
    expect((await publicPage(slug)).json()).toMatchObject({ markdown: 'old words', version: 1 });
    const audits = await auditRows('site.page.publish', id);
    expect(audits.map((a) => a.summary)).toEqual([
      { before: { version: null }, after: { version: 2 } },
      { before: { version: 2 }, after: { version: 1 } },
    ]);

    const heard = await settled();
    expect((await post(`/v1/admin/site/pages/${id}/versions`, { markdown: 'unreviewed' })).json()).toEqual({
      version: 3,
    });
    expect((await publicPage(slug)).json()).toMatchObject({ markdown: 'old words', version: 1 });
    expect((await pageRow(id)).published_version).toBe(1);
    await expectInvalidations(heard, 0);
  });

  it.each([
    [
      'an unknown version',
      async () => (await pageWithVersions('only one')).id,
      { version: 2 },
      { error: 'not_found', details: { version: 2 } } as object,
      true,
    ],
    [
      'a page with no versions',
      async () => (await pageWithVersions()).id,
      { version: 1 },
      { error: 'not_found', details: { version: 1 } },
      true,
    ],
    ['an unknown page', async () => randomUUID(), { version: 1 }, { error: 'not_found' }, false],
  ])('answers 404 for %s, changing nothing', async (_name, makeId, payload, body, pageExists) => {
    const id = await makeId();
    const heard = await settled();
    const res = await publish(id, payload);
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual(body);
    expect(
      await t.db.selectFrom('site_pages').select('published_version').where('id', '=', id).executeTakeFirst(),
    ).toEqual(pageExists ? { published_version: null } : undefined);
    expect(await auditRows('site.page.publish', id)).toEqual([]);
    expect(await outboxFor('site.page_published', id)).toEqual([]);
    await expectInvalidations(heard, 0);
  });

  it.each([
    ['no version', {}],
    ['version 0', { version: 0 }],
    ['a fractional version', { version: 1.5 }],
    ['a version past the integer range', { version: 2_147_483_648 }],
    ['a version as a string', { version: '1' }],
    ['an unknown field', { version: 1, note: 'x' }],
  ])('refuses a publish with %s (SchemaError)', async (_name, payload) => {
    const { id } = await pageWithVersions('text');
    const res = await publish(id, payload);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ success: false, error: { name: 'SchemaError' } });
    expect((await pageRow(id)).published_version).toBeNull();
  });

  it('refuses publish and unpublish without site.write, changing nothing', async () => {
    const { id } = await pageWithVersions('text');
    await publish(id, { version: 1 });
    for (const res of [await publish(id, { version: 1 }, reader), await unpublish(id, reader)]) {
      expect(res.statusCode).toBe(403);
      expect(res.json()).toEqual({ error: 'forbidden', details: { perm: 'site.write' } });
    }
    expect(await pageRow(id)).toMatchObject({ published_version: 1, published_by: editor.id });
    expect(await auditRows('site.page.unpublish', id)).toEqual([]);
  });

  it('unpublishes: gone from the public read, versions kept, audited, an event, the cache invalidated; again is a no-op', async () => {
    const { id, slug } = await pageWithVersions('bye');
    await publish(id, { version: 1 });
    const heard = await settled();
    const res = await unpublish(id);
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    expect(await pageRow(id)).toMatchObject({ published_version: null, published_at: null, published_by: null });
    expect(await t.db.selectFrom('site_page_versions').select('version').where('page_id', '=', id).execute()).toEqual([
      { version: 1 },
    ]);
    expect((await publicPage(slug)).json()).toEqual({ error: 'not_found' });
    const [audit] = await auditRows('site.page.unpublish', id);
    expect(audit).toMatchObject({
      actor_id: editor.id,
      request_id: res.headers['x-request-id'],
      summary: { before: { version: 1 }, after: { version: null } },
    });
    await eventually(() =>
      expect(eventsFor('site.page_unpublished', id).map((e) => e.payload)).toEqual([{ page_id: id, slug, version: 1 }]),
    );
    await expectInvalidations(heard, 1);

    expect((await unpublish(id)).statusCode).toBe(204);
    expect(await auditRows('site.page.unpublish', id)).toHaveLength(1);
    expect(await outboxFor('site.page_unpublished', id)).toHaveLength(1);
    await expectInvalidations(heard, 1);

    const unknown = await unpublish(randomUUID());
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toEqual({ error: 'not_found' });
    const stray = await post(`/v1/admin/site/pages/${id}/unpublish`, { reason: 'x' });
    expect(stray.statusCode).toBe(400);
  });

  it("shows a live page's new slug and title at once (and invalidates the site cache), but not a draft page's", async () => {
    const { id, slug } = await pageWithVersions('content');
    await publish(id, { version: 1 });
    let heard = await settled();
    const newSlug = `${slug}-moved`;
    expect(
      (
        await t.request({
          method: 'PATCH',
          url: `/v1/admin/site/pages/${id}`,
          token: editor.token,
          payload: { slug: newSlug, title: 'Moved' },
        })
      ).statusCode,
    ).toBe(204);
    expect((await publicPage(slug)).statusCode).toBe(404);
    expect((await publicPage(newSlug)).json()).toMatchObject({ slug: newSlug, title: 'Moved', markdown: 'content' });
    await expectInvalidations(heard, 1);

    const draft = await pageWithVersions('draft');
    heard = await settled();
    await t.request({
      method: 'PATCH',
      url: `/v1/admin/site/pages/${draft.id}`,
      token: editor.token,
      payload: { title: 'Still a draft' },
    });
    await expectInvalidations(heard, 0);
  });

  it('answers the public read with an ETag and a 304 on If-None-Match; unknown slugs are 404', async () => {
    const { id, slug } = await pageWithVersions('cached', 'cached again');
    await publish(id, { version: 1 });
    const first = await publicPage(slug);
    expect(first.headers['cache-control']).toBe('public, max-age=0, must-revalidate');
    const etag = first.headers.etag as string;
    expect(etag).toMatch(/^".+"$/);
    const again = await publicPage(slug, { 'if-none-match': etag });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    await publish(id, { version: 2 });
    const changed = await publicPage(slug, { 'if-none-match': etag });
    expect(changed.statusCode).toBe(200);
    expect(changed.json().markdown).toBe('cached again');
    expect(changed.headers.etag).not.toBe(etag);

    for (const unknown of ['no-such-page', 'NOT A SLUG', 'x'.repeat(200)]) {
      const res = await publicPage(encodeURIComponent(unknown));
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ error: 'not_found' });
    }
    expect((await publicPage('x'.repeat(201))).statusCode).toBe(400);
  });

  it('serves a page whose slug has the longest allowed length', async () => {
    const slug = `l${randomUUID().replace(/-/g, '')}`.padEnd(128, '7');
    const { id } = (await post('/v1/admin/site/pages', { slug, title: 'Long' })).json();
    await post(`/v1/admin/site/pages/${id}/versions`, { markdown: 'long slug' });
    await publish(id, { version: 1 });
    const res = await publicPage(slug);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ slug, markdown: 'long slug' });
  });

  it('lists only live pages, by slug, in the index for the public site payload', async () => {
    const live = await pageWithVersions('a', 'b');
    const hidden = await pageWithVersions('c');
    const draft = await pageWithVersions('d');
    await publish(live.id, { version: 2 });
    await publish(hidden.id, { version: 1 });
    await unpublish(hidden.id);

    const index = await publishedPagesIndex(t.db);
    const slugs = index.map((entry) => entry.slug);
    expect(slugs).toEqual([...slugs].sort());
    expect(slugs).not.toContain(hidden.slug);
    expect(slugs).not.toContain(draft.slug);
    expect(index.find((entry) => entry.slug === live.slug)).toEqual({
      slug: live.slug,
      title: `Title of ${live.slug}`,
      version: 2,
      published_at: (await pageRow(live.id)).published_at,
    });
    const rows = await t.db
      .selectFrom('site_pages')
      .select('slug')
      .where('published_version', 'is not', null)
      .orderBy('slug')
      .execute();
    expect(slugs).toEqual(rows.map((row) => row.slug));
  });
});
