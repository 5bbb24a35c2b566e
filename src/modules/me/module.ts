import { defineArea } from '../../composition/platform.js';
import { registerMeRoutes } from './routes.js';

/** Me: the signed-in player's own profile and permissions. */
export const meModule = defineArea(['db', 'permissions', 'storage', 'userChanges', 'write'], {
  name: 'me',
  routes: [registerMeRoutes],
  tags: {
    me: "The signed-in caller's own profile and effective permissions.",
  },
  jobs: {},
  permissions: {},
  cacheTopics: [],
  events: [],
});
