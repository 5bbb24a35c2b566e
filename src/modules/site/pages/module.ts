import { defineArea } from '../../../composition/platform.js';
import { SITE_CONFIG_TOPIC } from '../public/index.js';
import { registerPageVersionRoutes, registerPagesRoutes, registerPublicPageRoutes } from './routes.js';

/** Site pages: versioned pages, published and unpublished. */
export const sitePagesModule = defineArea(['db', 'write'], {
  name: 'site/pages',
  routes: [registerPagesRoutes, registerPageVersionRoutes, registerPublicPageRoutes],
  tags: {
    'site pages': 'Site pages in markdown, with stored versions and the live one.',
  },
  jobs: {},
  permissions: {},
  cacheTopics: [SITE_CONFIG_TOPIC],
  events: ['site.page_published', 'site.page_unpublished'],
});
