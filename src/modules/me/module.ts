import type { AreaModule } from '../../kernel/areas/module.js';
import { registerMeRoutes } from './routes.js';

/** Me: the signed-in player's own profile and permissions. */
export const meModule = {
  name: 'me',
  routes: [registerMeRoutes],
  jobs: {},
  permissions: {},
  cacheTopics: [],
  events: [],
} satisfies AreaModule;
