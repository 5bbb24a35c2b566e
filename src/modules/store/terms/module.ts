import { defineArea } from '../../../composition/platform.js';
import { PUBLIC_STORE_TOPIC } from '../cache.js';
import { registerStoreTermsRoutes } from './routes.js';

/** Store terms: the genres, developers and publishers games link to (staff; the `store` tag and keys are games'). */
export const storeTermsModule = defineArea(['db', 'write'], {
  name: 'store/terms',
  routes: [registerStoreTermsRoutes],
  tags: {},
  jobs: {},
  permissions: {},
  cacheTopics: [PUBLIC_STORE_TOPIC],
  events: [],
});
