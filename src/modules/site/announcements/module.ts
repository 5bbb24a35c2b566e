import { defineArea } from '../../../composition/platform.js';
import { SITE_CONFIG_TOPIC } from '../public/index.js';
import { registerAnnouncementsRoutes } from './routes.js';

/** Announcements: site announcements in their time windows. */
export const announcementsModule = defineArea(['db', 'write'], {
  name: 'site/announcements',
  routes: [registerAnnouncementsRoutes],
  tags: {
    announcements: 'Announcements shown on the site within their time windows.',
  },
  jobs: {},
  permissions: {
    'announcements.read': 'Read announcements and in-app notifications.',
    'announcements.write': 'Publish announcements and in-app notification broadcasts.',
  },
  cacheTopics: [SITE_CONFIG_TOPIC],
  events: ['site.announcement_updated'],
});
