import { defineArea } from '../../../composition/platform.js';
import { registerPublicStoreRoutes } from './routes.js';

/** The public store: published games, served from a cache every store write drops (the `public` tag is site's). */
export const publicStoreModule = defineArea(['bus', 'db'], {
  name: 'store/public',
  routes: [registerPublicStoreRoutes],
  tags: {},
  jobs: {},
  permissions: {},
  cacheTopics: [],
  events: [],
});
