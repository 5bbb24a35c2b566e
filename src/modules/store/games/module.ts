import { defineArea } from '../../../composition/platform.js';
import { PUBLIC_STORE_TOPIC } from './public-cache.js';
import { registerStoreRoutes } from './routes.js';

/** Store: games and their terms (genres, developers, publishers), for staff and the public. */
export const storeModule = defineArea(['bus', 'db', 'write'], {
  name: 'store/games',
  routes: [registerStoreRoutes],
  tags: {
    store: 'Store games and their genres, developers and publishers.',
  },
  jobs: {},
  permissions: {
    'store.read': 'Read store games including drafts.',
    'store.write': 'Create and edit store games.',
  },
  cacheTopics: [PUBLIC_STORE_TOPIC],
  events: ['store.game_updated'],
});
