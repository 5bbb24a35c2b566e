import { defineArea } from '../../../composition/platform.js';
import { SITE_CONFIG_TOPIC } from '../public/index.js';
import { registerSiteSettingsRoutes } from './routes.js';

/** Site settings: sections edited as drafts and published. */
export const siteSettingsModule = defineArea(['db', 'write'], {
  name: 'site/settings',
  routes: [registerSiteSettingsRoutes],
  tags: {
    'site settings': 'Site settings sections: drafts, publishing, versions and rollback.',
  },
  jobs: {},
  permissions: {
    'site.read': 'Read site settings drafts, pages and announcements.',
    'site.write':
      'Edit the general, branding, seo, auth_ui, support and legal settings sections, pages and announcements.',
    'settings.read': 'Read operational settings and scheduled jobs.',
    'settings.write': 'Edit the limits and maintenance settings sections and scheduled jobs.',
  },
  cacheTopics: [SITE_CONFIG_TOPIC],
  events: ['site.settings_published'],
});
