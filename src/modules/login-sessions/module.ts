import { defineArea } from '../../composition/platform.js';
import { pruneLoginSessionsJob } from './retention.js';
import { registerLoginSessionRoutes } from './routes.js';

/** Login sessions: a player's sessions and their sign-out, for the player and staff. */
export const loginSessionsModule = defineArea(['db', 'identity', 'log', 'write'], {
  name: 'login-sessions',
  routes: [registerLoginSessionRoutes],
  tags: {
    'login sessions': 'Login sessions (one per sign-in): list and revoke.',
  },
  jobs: {
    'prune-login-sessions': pruneLoginSessionsJob,
  },
  permissions: {},
  cacheTopics: [],
  events: [],
});
