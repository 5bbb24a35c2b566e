import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activeAnnouncements, nextAnnouncementBoundary } from '../../../../src/modules/site/announcements/queries.js';
import { createUser, startTestApp, type TestUser } from '../../../helpers/app.js';

type App = Awaited<ReturnType<typeof startTestApp>>;

/** A fixed "now" far from the real clock, so the windows below mean the same on every run. */
const NOW = new Date('2040-06-01T12:00:00.000Z');
const at = (minutes: number) => new Date(NOW.getTime() + minutes * 60_000).toISOString();

describe('announcements shown on the public site (activeAnnouncements, nextAnnouncementBoundary)', () => {
  let t: App;
  let editor: TestUser;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    t = await startTestApp();
    editor = await createUser(t.db, ['site.write']);
  });
  afterAll(async () => t.close());

  const put = async (name: string, payload: object) => {
    const res = await t.request({
      method: 'PUT',
      url: '/v1/admin/site/announcements',
      token: editor.token,
      payload: { title: name, ...payload },
    });
    expect(res.statusCode).toBe(200);
    ids[name] = res.json().id;
  };
  const shown = async (surface: 'landing' | 'portal', now = NOW) =>
    (await activeAnnouncements(t.db, surface, now)).map((a) => a.title);

  it('has no boundary and nothing to show before any announcement exists', async () => {
    expect(await nextAnnouncementBoundary(t.db, NOW)).toBeNull();
    expect(await activeAnnouncements(t.db, 'landing', NOW)).toEqual([]);
  });

  it("shows the surface's own and the all-surface announcements inside their window, most severe first", async () => {
    await put('info-all-open', { severity: 'info', surface: 'all' });
    await put('critical-landing-started', {
      severity: 'critical',
      surface: 'landing',
      starts_at: at(-60),
      ends_at: at(60),
    });
    await put('warning-portal', { severity: 'warning', surface: 'portal', starts_at: at(-30) });
    await put('warning-all-earlier', {
      severity: 'warning',
      surface: 'all',
      starts_at: at(-90),
      body: 'Read this',
      action_url: 'https://example.test/x',
    });
    await put('success-landing-open', { severity: 'success', surface: 'landing' });
    await put('starts-exactly-now', { severity: 'info', surface: 'landing', starts_at: at(0) });
    await put('ends-exactly-now', { severity: 'critical', surface: 'landing', starts_at: at(-10), ends_at: at(0) });
    await put('not-yet', { severity: 'critical', surface: 'all', starts_at: at(15) });
    await put('over', { severity: 'critical', surface: 'all', starts_at: at(-120), ends_at: at(-60) });
    await put('switched-off', {
      severity: 'critical',
      surface: 'all',
      is_active: false,
      starts_at: at(5),
      ends_at: at(10),
    });

    expect(await shown('landing')).toEqual([
      'critical-landing-started',
      'warning-all-earlier',
      'success-landing-open',
      'info-all-open',
      'starts-exactly-now',
    ]);
    expect(await shown('portal')).toEqual(['warning-all-earlier', 'warning-portal', 'info-all-open']);
    const [critical] = await activeAnnouncements(t.db, 'landing', NOW);
    expect(critical).toEqual({
      id: ids['critical-landing-started'],
      title: 'critical-landing-started',
      body: '',
      severity: 'critical',
      surface: 'landing',
      action_url: null,
      starts_at: new Date(at(-60)),
      ends_at: new Date(at(60)),
    });
    const warning = (await activeAnnouncements(t.db, 'portal', NOW))[0];
    expect(warning).toMatchObject({
      title: 'warning-all-earlier',
      body: 'Read this',
      action_url: 'https://example.test/x',
      ends_at: null,
    });
  });

  it('follows the clock: what starts and ends later shows then', async () => {
    expect(await shown('landing', new Date(at(20)))).toContain('not-yet');
    expect(await shown('landing', new Date(at(60)))).not.toContain('critical-landing-started');
    expect(await shown('landing', new Date(at(-5)))).toContain('ends-exactly-now');
    expect(await shown('landing', new Date(at(-61)))).toEqual(expect.arrayContaining(['over']));
  });

  it('gives the next start or end of an active announcement after now, ignoring switched-off ones', async () => {
    // not-yet starts at +15; switched-off (+5, +10) is inactive; critical-landing-started ends at +60.
    expect(await nextAnnouncementBoundary(t.db, NOW)).toEqual(new Date(at(15)));
    expect(await nextAnnouncementBoundary(t.db, new Date(at(15)))).toEqual(new Date(at(60)));
    expect(await nextAnnouncementBoundary(t.db, new Date(at(60)))).toBeNull();
  });

  it('drops an announcement from the public list as soon as it is switched off', async () => {
    const res = await t.request({
      method: 'PUT',
      url: '/v1/admin/site/announcements',
      token: editor.token,
      payload: { id: ids['info-all-open'], title: 'info-all-open', is_active: false },
    });
    expect(res.statusCode).toBe(200);
    expect(await shown('portal')).toEqual(['warning-all-earlier', 'warning-portal']);
  });
});
