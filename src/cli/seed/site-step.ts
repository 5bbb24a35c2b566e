import { upsertAnnouncementBody } from '../../modules/site/announcements/schemas.js';
import { AnnouncementsService } from '../../modules/site/announcements/service.js';
import { upsertBlockBody } from '../../modules/site/content-blocks/schemas.js';
import { ContentBlocksService } from '../../modules/site/content-blocks/service.js';
import { PagesService } from '../../modules/site/pages/service.js';
import { SiteSettingsService } from '../../modules/site/settings/service.js';
import { staffActor, type SeedContext } from './context.js';
import { announcementExists, blockExists, pageIdBySlug, settingsPublishedVersion } from './queries.js';

const EDITOR = 'tomas.editor.demo@example.com';
const ADMIN = 'marcus.admin.demo@example.com';
const DAY_MS = 86_400_000;

/** Sections the demo publishes: what a storefront reads first. Sections that steer behaviour (limits, maintenance) stay as they are. */
const SETTINGS: Record<string, Record<string, unknown>> = {
  general: { site_name: 'Nimbus Play (demo)', tagline: 'Cloud games, no downloads.', default_locale: 'en' },
  branding: { primary_color: '#5b5bd6', accent_color: '#f5a524', logo_text: 'Nimbus Play' },
  seo: { title: 'Nimbus Play: cloud gaming', description: 'Play twenty games in your browser.' },
  support: { email: 'support.demo@example.com', hours: 'Mon-Fri 9:00-18:00 CET', response_time_hours: 24 },
};

const PAGES: Array<{ slug: string; title: string; markdown: string; publish: boolean }> = [
  {
    slug: 'about',
    title: 'About Nimbus Play',
    markdown: '# About us\n\nNimbus Play streams games to any browser. This page is demo content.',
    publish: true,
  },
  {
    slug: 'terms',
    title: 'Terms of service',
    markdown: '# Terms of service\n\nDemo terms: replace before going live.\n\n1. Play fair.\n2. Be kind.',
    publish: true,
  },
  {
    slug: 'privacy',
    title: 'Privacy policy',
    markdown: '# Privacy policy\n\nDemo policy: we keep what running the service needs, and nothing more.',
    publish: true,
  },
  {
    slug: 'faq',
    title: 'Frequently asked questions',
    markdown: '# FAQ\n\n**Which browsers work?** Any recent one.\n\n_Draft: still being written._',
    publish: false,
  },
];

const BLOCKS: Array<{
  surface: 'landing' | 'portal';
  slot: string;
  draft: Record<string, unknown>;
  sortOrder: number;
}> = [
  {
    surface: 'landing',
    slot: 'hero.title',
    draft: { text: 'Play anywhere. Download nothing.', cta: { label: 'Start free', href: '/signup' } },
    sortOrder: 0,
  },
  {
    surface: 'landing',
    slot: 'hero.subtitle',
    draft: { text: 'Twenty games, streamed to your browser.' },
    sortOrder: 1,
  },
  {
    surface: 'landing',
    slot: 'features.1',
    draft: { title: 'Instant', text: 'Sessions start in seconds.' },
    sortOrder: 2,
  },
  { surface: 'landing', slot: 'features.2', draft: { title: 'Fair plans', text: 'Free, Plus and Pro.' }, sortOrder: 3 },
  { surface: 'portal', slot: 'welcome', draft: { text: 'Welcome back! New this month: Harbor Lights.' }, sortOrder: 0 },
];

/** Published settings, pages (one left a draft), content blocks and announcements. */
export async function seedSite(context: SeedContext): Promise<void> {
  const { platform, tally, now } = context;
  const db = platform.db;
  const editor = staffActor(context, EDITOR);

  const settings = new SiteSettingsService(db, platform.write);
  for (const [section, value] of Object.entries(SETTINGS)) {
    const published = await settingsPublishedVersion(db, section);
    // A section someone published already is theirs: the demo never replaces it.
    const fresh = published === null || published === undefined;
    tally.count('settings sections published', fresh);
    if (!fresh) continue;
    const admin = staffActor(context, ADMIN);
    await settings.saveDraft(admin, section, value);
    await settings.publish(admin, section, 'demo data set');
  }

  const pages = new PagesService(db, platform.write);
  for (const page of PAGES) {
    const exists = (await pageIdBySlug(db, page.slug)) !== undefined;
    tally.count('pages', !exists);
    if (exists) continue;
    const { id } = await pages.create(editor, { slug: page.slug, title: page.title });
    const { version } = await pages.saveVersion(editor, id, { markdown: page.markdown, note: 'first version' });
    if (page.publish) await pages.publish(editor, id, version);
  }

  const blocks = new ContentBlocksService(db, platform.write);
  for (const block of BLOCKS) {
    const exists = await blockExists(db, block.surface, block.slot, 'en');
    tally.count('content blocks', !exists);
    if (exists) continue;
    const { id } = await blocks.upsert(editor, upsertBlockBody.parse(block));
    await blocks.setStatus(editor, id, { status: 'published' });
  }

  const announcements = new AnnouncementsService(db, platform.write);
  const at = (days: number) => new Date(now.getTime() + days * DAY_MS).toISOString();
  const items = [
    { title: 'Harbor Lights is out', body: 'Cozy fishing, now streaming.', severity: 'success', surface: 'all' },
    {
      title: 'Scheduled maintenance',
      body: 'Sessions may not start for up to 30 minutes.',
      severity: 'warning',
      surface: 'portal',
      starts_at: at(5),
      ends_at: at(6),
    },
    {
      title: 'Autumn sale ended',
      body: 'Thanks for joining in.',
      severity: 'info',
      surface: 'landing',
      starts_at: at(-40),
      ends_at: at(-10),
    },
  ];
  for (const item of items) {
    const exists = await announcementExists(db, item.title);
    tally.count('announcements', !exists);
    if (!exists) await announcements.upsert(editor, upsertAnnouncementBody.parse(item));
  }
}
