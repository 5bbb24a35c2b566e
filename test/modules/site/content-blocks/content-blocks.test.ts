import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, eventually, startTestApp, type TestUser } from '../../../helpers/app.js';

type App = Awaited<ReturnType<typeof startTestApp>>;

describe('content blocks (operation 7) and their place in the public site', () => {
  let t: App;
  let editor: TestUser;

  beforeAll(async () => {
    t = await startTestApp();
    editor = await createUser(t.db, ['content.write']);
  });
  afterAll(async () => t.close());

  const upsert = (payload: object, user = editor) =>
    t.request({ method: 'PUT', url: '/v1/admin/site/content-blocks', token: user.token, payload });
  const setStatus = (id: string, status: string) =>
    t.request({
      method: 'POST',
      url: `/v1/admin/site/content-blocks/${id}/status`,
      token: editor.token,
      payload: { status },
    });
  const block = (id: string) =>
    t.db.selectFrom('content_blocks').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const publicBlocks = async (query = '') =>
    (await t.request({ method: 'GET', url: `/v1/public/site${query}` })).json().content_blocks as Array<{
      slot: string;
      locale: string;
      content: unknown;
      sortOrder: number;
    }>;

  it('creates a block draft, then replaces it under the same id; audits and emits both', async () => {
    const created = await upsert({ surface: 'landing', slot: 'hero', draft: { headline: 'Play' } });
    expect(created.statusCode).toBe(200);
    const { id } = created.json();
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(await block(id)).toMatchObject({
      surface: 'landing',
      slot: 'hero',
      locale: 'en',
      draft: { headline: 'Play' },
      published: null,
      status: 'draft',
      sort_order: 0,
      updated_by: editor.id,
    });

    const replaced = await upsert({
      surface: 'landing',
      slot: 'hero',
      locale: 'en',
      draft: { headline: 'Play now' },
      sortOrder: 5,
    });
    expect(replaced.json()).toEqual({ id });
    expect(await block(id)).toMatchObject({ draft: { headline: 'Play now' }, sort_order: 5 });

    const audits = await t.db
      .selectFrom('audit_log')
      .select(['action', 'actor_id', 'request_id'])
      .where('target_id', '=', id)
      .orderBy('created_at')
      .execute();
    expect(audits).toEqual([
      { action: 'site.content_block.create', actor_id: editor.id, request_id: created.headers['x-request-id'] },
      { action: 'site.content_block.update', actor_id: editor.id, request_id: replaced.headers['x-request-id'] },
    ]);
    await eventually(() =>
      expect(
        t.events
          .filter((e) => e.name === 'site.content_block_updated' && e.payload.id === id)
          .map((e) => e.payload.created),
      ).toEqual([true, false]),
    );
    // Nothing is live until published.
    expect((await publicBlocks()).find((b) => b.slot === 'hero')).toBeUndefined();
  });

  it.each([
    ['an upper-case slot', { surface: 'landing', slot: 'Hero', draft: {} }],
    ['a 65-character slot', { surface: 'landing', slot: `a${'b'.repeat(64)}`, draft: {} }],
    ['a 17-character locale', { surface: 'landing', slot: 'x', locale: 'x'.repeat(17), draft: {} }],
    ['an unknown surface', { surface: 'app', slot: 'x', draft: {} }],
    ['a missing draft', { surface: 'landing', slot: 'x' }],
    ['a fractional sortOrder', { surface: 'landing', slot: 'x', draft: {}, sortOrder: 1.5 }],
    ['an unknown field', { surface: 'landing', slot: 'x', draft: {}, status: 'published' }],
  ])('refuses %s with a SchemaError and stores nothing', async (_name, payload) => {
    const before = await t.db.selectFrom('content_blocks').select('id').execute();
    const res = await upsert(payload);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ success: false, error: { name: 'SchemaError' } });
    expect(await t.db.selectFrom('content_blocks').select('id').execute()).toEqual(before);
  });

  it('refuses callers without content.write', async () => {
    const reader = await createUser(t.db, ['content.read']);
    const res = await upsert({ surface: 'landing', slot: 'x', draft: {} }, reader);
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual({ error: 'forbidden', details: { perm: 'content.write' } });
  });

  it('publishes, keeps the live copy while a new draft is edited, archives and unpublishes', async () => {
    const { id } = (await upsert({ surface: 'portal', slot: 'news', draft: { text: 'v1' } })).json();
    const published = await setStatus(id, 'published');
    expect(published.statusCode).toBe(200);
    expect(published.json()).toMatchObject({
      id,
      status: 'published',
      published: { text: 'v1' },
      publishedBy: editor.id,
      hasUnpublishedChanges: false,
    });
    expect(await publicBlocks('?surface=portal')).toContainEqual({
      slot: 'news',
      locale: 'en',
      content: { text: 'v1' },
      sortOrder: 0,
    });
    expect((await publicBlocks('?surface=landing')).find((b) => b.slot === 'news')).toBeUndefined();

    await upsert({ surface: 'portal', slot: 'news', draft: { text: 'v2' } });
    const edited = (
      await t.request({ method: 'GET', url: `/v1/admin/site/content-blocks/${id}`, token: editor.token })
    ).json();
    expect(edited).toMatchObject({
      status: 'draft',
      draft: { text: 'v2' },
      published: { text: 'v1' },
      hasUnpublishedChanges: true,
    });
    expect((await publicBlocks('?surface=portal')).find((b) => b.slot === 'news')?.content).toEqual({ text: 'v1' });

    await setStatus(id, 'archived');
    expect((await publicBlocks('?surface=portal')).find((b) => b.slot === 'news')).toBeUndefined();
    expect(await block(id)).toMatchObject({ status: 'archived', published: { text: 'v1' } });

    const unpublished = await setStatus(id, 'draft');
    expect(unpublished.json()).toMatchObject({ status: 'draft', published: null, publishedAt: null });
    const audits = await t.db
      .selectFrom('audit_log')
      .select('summary')
      .where('action', '=', 'site.content_block.status')
      .where('target_id', '=', id)
      .orderBy('created_at')
      .execute();
    expect(audits.map((a) => a.summary)).toEqual([
      { before: { status: 'draft' }, after: { status: 'published' } },
      { before: { status: 'draft' }, after: { status: 'archived' } },
      { before: { status: 'archived' }, after: { status: 'draft' } },
    ]);
    await eventually(() =>
      expect(
        t.events
          .filter((e) => e.name === 'site.content_block_status_changed' && e.payload.id === id)
          .map((e) => e.payload.to),
      ).toEqual(['published', 'archived', 'draft']),
    );
  });

  it('serves the requested locale and falls back to en slot by slot, ordered by sortOrder', async () => {
    const en = (await upsert({ surface: 'landing', slot: 'promo', draft: { text: 'Hello' }, sortOrder: 2 })).json().id;
    const enOnly = (
      await upsert({ surface: 'landing', slot: 'footer', draft: { text: 'Footer' }, sortOrder: 9 })
    ).json().id;
    const fr = (
      await upsert({ surface: 'landing', slot: 'promo', locale: 'fr', draft: { text: 'Bonjour' }, sortOrder: 2 })
    ).json().id;
    for (const id of [en, enOnly, fr]) await setStatus(id, 'published');
    const french = await publicBlocks('?locale=fr');
    expect(french.filter((b) => ['promo', 'footer'].includes(b.slot))).toEqual([
      { slot: 'promo', locale: 'fr', content: { text: 'Bonjour' }, sortOrder: 2 },
      { slot: 'footer', locale: 'en', content: { text: 'Footer' }, sortOrder: 9 },
    ]);
    expect((await publicBlocks()).find((b) => b.slot === 'promo')?.content).toEqual({ text: 'Hello' });
  });

  it('lists with filters and paging, and answers 404 for an unknown block', async () => {
    const list = await t.request({
      method: 'GET',
      url: '/v1/admin/site/content-blocks?surface=landing&locale=fr&per_page=1',
      token: editor.token,
    });
    expect(list.statusCode).toBe(200);
    expect(list.json().meta).toEqual({ page: 1, per_page: 1, total: 1 });
    expect(list.json().data[0]).toMatchObject({ slot: 'promo', locale: 'fr' });
    const bad = await t.request({
      method: 'GET',
      url: '/v1/admin/site/content-blocks?status=live',
      token: editor.token,
    });
    expect(bad.statusCode).toBe(400);
    const missing = '00000000-0000-4000-8000-0000000000aa';
    for (const res of [
      await t.request({ method: 'GET', url: `/v1/admin/site/content-blocks/${missing}`, token: editor.token }),
      await setStatus(missing, 'published'),
    ]) {
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ error: 'not_found' });
    }
    const badStatus = await setStatus(missing, 'live');
    expect(badStatus.statusCode).toBe(400);
  });
});
