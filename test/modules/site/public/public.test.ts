import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, eventually, startTestApp, type TestUser } from '../../../helpers/app.js';

type App = Awaited<ReturnType<typeof startTestApp>>;

describe('GET /v1/public/site: pages and announcements', () => {
  let t: App;
  let editor: TestUser;

  beforeAll(async () => {
    t = await startTestApp();
    editor = await createUser(t.db, ['site.write']);
  });
  afterAll(async () => t.close());

  const site = async (query = '') => (await t.request({ method: 'GET', url: `/v1/public/site${query}` })).json();
  const announce = (payload: object) =>
    t.request({ method: 'PUT', url: '/v1/admin/site/announcements', token: editor.token, payload });

  it('lists published pages only, and shows a publish on the next read', async () => {
    const { id } = (
      await t.request({
        method: 'POST',
        url: '/v1/admin/site/pages',
        token: editor.token,
        payload: { slug: 'terms', title: 'Terms' },
      })
    ).json();
    const { version } = (
      await t.request({
        method: 'POST',
        url: `/v1/admin/site/pages/${id}/versions`,
        token: editor.token,
        payload: { markdown: '# Terms' },
      })
    ).json();
    expect((await site()).pages).toEqual([]);
    const published = await t.request({
      method: 'POST',
      url: `/v1/admin/site/pages/${id}/publish`,
      token: editor.token,
      payload: { version },
    });
    expect(published.statusCode).toBe(200);
    const [entry] = (await site()).pages;
    expect(entry).toEqual({ slug: 'terms', title: 'Terms', version: 1, published_at: expect.any(String) });
    await t.request({ method: 'POST', url: `/v1/admin/site/pages/${id}/unpublish`, token: editor.token });
    expect((await site()).pages).toEqual([]);
  });

  it('shows active announcements for the surface, most severe first', async () => {
    await announce({ title: 'Portal only', surface: 'portal', severity: 'info' });
    await announce({ title: 'Everywhere', surface: 'all', severity: 'critical' });
    await announce({ title: 'Switched off', surface: 'all', is_active: false });
    await announce({
      title: 'Over',
      surface: 'all',
      starts_at: '2020-01-01T00:00:00Z',
      ends_at: '2020-01-02T00:00:00Z',
    });
    expect((await site('?surface=portal')).announcements.map((a: { title: string }) => a.title)).toEqual([
      'Everywhere',
      'Portal only',
    ]);
    expect((await site('?surface=landing')).announcements.map((a: { title: string }) => a.title)).toEqual([
      'Everywhere',
    ]);
  });

  it('serves an announcement once its window opens, with no write in between', async () => {
    await site('?surface=landing'); // a cached copy exists before the window opens
    const opensAt = new Date(Date.now() + 1_500);
    await announce({ title: 'Soon', surface: 'landing', starts_at: opensAt.toISOString() });
    const titles = async () => (await site('?surface=landing')).announcements.map((a: { title: string }) => a.title);
    expect(await titles()).not.toContain('Soon');
    // Read (no write) until it shows: the cached copy must not outlive the window's start by more than a second.
    await eventually(async () => expect(await titles()).toContain('Soon'), opensAt.getTime() - Date.now() + 1_000);
  });
});
