import { defineArea } from '../../../composition/platform.js';
import { registerPublicSiteRoutes } from './routes.js';

/** Public site: the site's published payload, cached until a site area invalidates it. */
export const publicSiteModule = defineArea(['bus', 'db'], {
  name: 'site/public',
  routes: [registerPublicSiteRoutes],
  tags: {
    public: 'Unauthenticated reads for the landing site and the store: site configuration, pages, games, products.',
  },
  jobs: {},
  permissions: {},
  cacheTopics: [],
  events: [],
});
