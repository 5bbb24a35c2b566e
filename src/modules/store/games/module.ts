import { defineArea } from '../../../composition/platform.js';
import { PUBLIC_STORE_TOPIC } from '../cache.js';
import { registerStoreGamesRoutes } from './routes.js';

/** Store games: staff lists and edits the games, with their links to genres, developers and publishers. */
export const storeGamesModule = defineArea(['db', 'write'], {
  name: 'store/games',
  routes: [registerStoreGamesRoutes],
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
