import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, eventually, startTestApp, type TestApp, type TestUser } from '../../../helpers/app.js';

type App = Awaited<ReturnType<typeof startTestApp>>;

describe('site settings (operations 3 and 5) and the public site payload', () => {
  let t: App;
  let siteEditor: TestUser;
  let billingEditor: TestUser;
  let reader: TestUser;

  beforeAll(async () => {
    t = await startTestApp();
    siteEditor = await createUser(t.db, ['site.write', 'site.read']);
    billingEditor = await createUser(t.db, ['billing.write']);
    reader = await createUser(t.db, ['roles.read']);
  });
  afterAll(async () => t.close());

  const saveDraft = (user: TestUser, section: string, payload: unknown) =>
    t.request({
      method: 'PUT',
      url: `/v1/admin/site/settings/${section}`,
      token: user.token,
      payload: payload as object,
    });
  const publish = (user: TestUser, section: string, payload?: object) =>
    t.request({ method: 'POST', url: `/v1/admin/site/settings/${section}/publish`, token: user.token, payload });
  const section = (name: string) =>
    t.db.selectFrom('site_settings').selectAll().where('section', '=', name).executeTakeFirstOrThrow();
  const auditRows = (action: string, target: string) =>
    t.db
      .selectFrom('audit_log')
      .selectAll()
      .where('action', '=', action)
      .where('target_id', '=', target)
      .orderBy('created_at')
      .execute();
  const publicSite = (headers: Record<string, string> = {}) =>
    t.request({ method: 'GET', url: '/v1/public/site', headers });

  it('saves a draft without changing anything live, and audits it', async () => {
    const before = await publicSite();
    const res = await saveDraft(siteEditor, 'seo', { draft: { title: 'Play anywhere' } });
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    const row = await section('seo');
    expect(row.draft).toEqual({ title: 'Play anywhere' });
    expect(row.draft_updated_by).toBe(siteEditor.id);
    expect(row.published_version).toBeNull();
    const [audit] = await auditRows('site.settings.save_draft', 'seo');
    expect(audit).toMatchObject({
      actor_id: siteEditor.id,
      target_type: 'site_settings',
      request_id: res.headers['x-request-id'],
      summary: { before: { keys: [] }, after: { keys: ['title'] } },
    });
    const after = await publicSite();
    expect(after.json().settings).toEqual(before.json().settings);
    expect(after.json().settings.seo).toBeUndefined();
  });

  it.each([
    ['a site editor on a billing section', () => billingEditor, 'general', 'site.write'],
    ['a billing editor on a site section', () => siteEditor, 'credits', 'billing.write'],
    ['a site editor on the limits section', () => siteEditor, 'limits', 'settings.write'],
  ])('refuses %s with 403 naming the section key, changing nothing', async (_name, who, name, perm) => {
    const before = await section(name);
    const res = await saveDraft(who(), name, { draft: { x: 1 } });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual({ error: 'forbidden', details: { perm } });
    expect(await section(name)).toEqual(before);
    expect(await auditRows('site.settings.save_draft', name)).toEqual([]);
  });

  it('admits the route only with one of the three write keys', async () => {
    const res = await saveDraft(reader, 'general', { draft: {} });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual({
      error: 'forbidden',
      details: { perm: 'site.write | billing.write | settings.write' },
    });
  });

  it('answers 404 not_found for an unknown section (write, publish and history)', async () => {
    for (const res of [
      await saveDraft(siteEditor, 'nonsense', { draft: {} }),
      await publish(siteEditor, 'nonsense'),
      await t.request({ method: 'GET', url: '/v1/admin/site/settings/nonsense/versions', token: siteEditor.token }),
    ]) {
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ error: 'not_found', details: { section: 'nonsense' } });
    }
  });

  it.each([
    ['no draft', {}],
    ['a draft that is not an object', { draft: [1, 2] }],
    ['an unknown field', { draft: {}, extra: true }],
  ])('refuses %s with a SchemaError', async (_name, payload) => {
    const res = await saveDraft(siteEditor, 'general', payload);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ success: false, error: { name: 'SchemaError' } });
  });

  it('publishes the draft as rising versions, keeps each, audits, emits and invalidates the public payload', async () => {
    await saveDraft(siteEditor, 'branding', { draft: { color: 'teal' } });
    const etagBefore = (await publicSite()).headers.etag;

    const first = await publish(siteEditor, 'branding', { note: 'launch colours' });
    expect(first.statusCode).toBe(200);
    expect(first.json()).toEqual({ version: 1 });
    expect((await publicSite()).json().settings.branding).toEqual({ color: 'teal' });

    await saveDraft(siteEditor, 'branding', { draft: { color: 'navy' } });
    expect((await publicSite()).json().settings.branding).toEqual({ color: 'teal' });
    const second = await publish(siteEditor, 'branding');
    expect(second.json()).toEqual({ version: 2 });
    const latest = await publicSite();
    expect(latest.json().settings.branding).toEqual({ color: 'navy' });
    expect(latest.headers.etag).not.toBe(etagBefore);

    const versions = await t.db
      .selectFrom('site_settings_versions')
      .selectAll()
      .where('section', '=', 'branding')
      .orderBy('version')
      .execute();
    expect(versions.map((v) => [v.version, v.value, v.note, v.published_by])).toEqual([
      [1, { color: 'teal' }, 'launch colours', siteEditor.id],
      [2, { color: 'navy' }, null, siteEditor.id],
    ]);
    const audits = await auditRows('site.settings.publish', 'branding');
    expect(audits.map((a) => [a.reason, (a.summary as { after: { version: number } }).after.version])).toEqual([
      ['launch colours', 1],
      [null, 2],
    ]);
    await eventually(() =>
      expect(t.events.filter((e) => e.name === 'site.settings_published').map((e) => e.payload)).toEqual([
        { section: 'branding', version: 1, restored_version: null },
        { section: 'branding', version: 2, restored_version: null },
      ]),
    );
    const outbox = await t.db
      .selectFrom('event_outbox')
      .select(['kind', 'name'])
      .where('name', '=', 'site.settings_published')
      .execute();
    expect(outbox).toEqual([
      { kind: 'dashboard', name: 'site.settings_published' },
      { kind: 'dashboard', name: 'site.settings_published' },
    ]);
  });

  it('refuses a publish note over 500 characters and a publish without the section key', async () => {
    const long = await publish(siteEditor, 'general', { note: 'x'.repeat(501) });
    expect(long.statusCode).toBe(400);
    expect(long.json().error.issues[0]).toMatchObject({ code: 'too_big', path: ['note'], maximum: 500 });
    const denied = await publish(billingEditor, 'general');
    expect(denied.statusCode).toBe(403);
    expect(denied.json()).toEqual({ error: 'forbidden', details: { perm: 'site.write' } });
    expect((await section('general')).published_version).toBeNull();
  });

  it('lists versions newest first and rolls back by publishing an old value as a new version', async () => {
    await saveDraft(siteEditor, 'legal', { draft: { terms: 'v1' } });
    await publish(siteEditor, 'legal');
    await saveDraft(siteEditor, 'legal', { draft: { terms: 'v2' } });
    await publish(siteEditor, 'legal');

    const rollback = await t.request({
      method: 'POST',
      url: '/v1/admin/site/settings/legal/rollback',
      token: siteEditor.token,
      payload: { version: 1, note: 'revert' },
    });
    expect(rollback.json()).toEqual({ version: 3 });
    expect((await publicSite()).json().settings.legal).toEqual({ terms: 'v1' });
    const [audit] = await auditRows('site.settings.rollback', 'legal');
    expect(audit?.summary).toMatchObject({ after: { version: 3, restored_version: 1 } });

    const missing = await t.request({
      method: 'POST',
      url: '/v1/admin/site/settings/legal/rollback',
      token: siteEditor.token,
      payload: { version: 9 },
    });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual({ error: 'not_found', details: { section: 'legal', version: 9 } });

    const history = await t.request({
      method: 'GET',
      url: '/v1/admin/site/settings/legal/versions?per_page=2',
      token: siteEditor.token,
    });
    expect(history.json().meta).toEqual({ page: 1, per_page: 2, total: 3 });
    expect(
      history
        .json()
        .data.map((v: { version: number; restored_version: number | null; published_by_email: string }) => [
          v.version,
          v.restored_version,
          v.published_by_email,
        ]),
    ).toEqual([
      [3, 1, siteEditor.email],
      [2, null, siteEditor.email],
    ]);
  });

  it('shows every section to staff with its draft, published value and pending changes', async () => {
    await saveDraft(siteEditor, 'support', { draft: { email: 'help@example.test' } });
    const res = await t.request({ method: 'GET', url: '/v1/admin/site/settings', token: siteEditor.token });
    expect(res.statusCode).toBe(200);
    const sections = res.json().data as Array<{
      section: string;
      write_permission: string;
      has_unpublished_changes: boolean;
      draft: unknown;
    }>;
    expect(sections.map((s) => s.section)).toEqual([
      'general',
      'branding',
      'seo',
      'auth_ui',
      'billing',
      'credits',
      'limits',
      'support',
      'legal',
      'maintenance',
    ]);
    expect(sections.find((s) => s.section === 'support')).toMatchObject({
      write_permission: 'site.write',
      has_unpublished_changes: true,
      draft: { email: 'help@example.test' },
    });
    expect(sections.find((s) => s.section === 'maintenance')).toMatchObject({
      write_permission: 'settings.write',
      has_unpublished_changes: false,
      known_fields: [],
    });
  });

  it('lists the fields the sites read from each section with their types, and still stores any draft as given', async () => {
    const res = await t.request({ method: 'GET', url: '/v1/admin/site/settings', token: siteEditor.token });
    const sections = res.json().data as Array<{ section: string; known_fields: Array<{ name: string; type: string }> }>;
    const support = sections.find((s) => s.section === 'support')?.known_fields ?? [];
    expect(support.map(({ name, type }) => `${name}:${type}`)).toEqual([
      'email:email',
      'hours:text',
      'response_time_hours:integer',
      'help_center_url:url',
    ]);
    const branding = sections.find((s) => s.section === 'branding')?.known_fields ?? [];
    expect(branding.find((known) => known.name === 'primary_color')?.type).toBe('color');
    // A guide, not a rule: a known field of another type and an unknown field are stored as given.
    await saveDraft(siteEditor, 'support', { draft: { email: 42, anything: { nested: true } } });
    const after = await t.request({ method: 'GET', url: '/v1/admin/site/settings', token: siteEditor.token });
    const draft = (after.json().data as Array<{ section: string; draft: unknown }>).find(
      (s) => s.section === 'support',
    );
    expect(draft?.draft).toEqual({ email: 42, anything: { nested: true } });
  });

  it('answers 304 to a matching If-None-Match and tells caches to revalidate', async () => {
    const first = await publicSite();
    expect(first.headers['cache-control']).toBe('public, max-age=0, must-revalidate');
    const etag = first.headers.etag as string;
    expect(etag).toMatch(/^".+"$/);
    const again = await publicSite({ 'if-none-match': etag });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    expect(again.headers.etag).toBe(etag);
    expect((await publicSite({ 'if-none-match': '"stale"' })).statusCode).toBe(200);
  });

  it('invalidates the public payload on another instance of the service when a section is published', async () => {
    const other: TestApp = await startTestApp({ database: await t.testDatabase!.openAnother() });
    try {
      const read = async () => (await other.request({ method: 'GET', url: '/v1/public/site' })).json().settings.auth_ui;
      expect(await read()).toBeUndefined();
      await saveDraft(siteEditor, 'auth_ui', { draft: { providers: ['github'] } });
      await publish(siteEditor, 'auth_ui');
      await eventually(async () => expect(await read()).toEqual({ providers: ['github'] }), 1_000);
    } finally {
      await other.close();
    }
  });
});
