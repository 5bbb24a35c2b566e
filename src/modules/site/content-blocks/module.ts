import { defineArea } from '../../../composition/platform.js';
import { SITE_CONFIG_TOPIC } from '../public/index.js';
import { registerContentBlockRoutes } from './routes.js';

/** Content blocks: pieces of site content with a publishing status. */
export const contentBlocksModule = defineArea(['db', 'write'], {
  name: 'site/content-blocks',
  routes: [registerContentBlockRoutes],
  tags: {
    'content blocks': 'Content blocks of the site: drafts, publishing and archiving.',
  },
  jobs: {},
  permissions: {
    'content.read': 'Read content blocks and catalog entries.',
    'content.write': 'Edit content blocks, achievements and referral rules.',
  },
  cacheTopics: [SITE_CONFIG_TOPIC],
  events: ['site.content_block_updated', 'site.content_block_status_changed'],
});
