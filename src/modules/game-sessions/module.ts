import { defineArea } from '../../composition/platform.js';
import { registerMyGameSessionRoutes, registerRuntimeSessionRoutes } from './routes.js';

/** Game sessions: players start and stop them on the runtime; staff watch and stop them. */
export const gameSessionsModule = defineArea(['config', 'db', 'log', 'runtime', 'write'], {
  name: 'game-sessions',
  routes: [registerMyGameSessionRoutes, registerRuntimeSessionRoutes],
  tags: {
    'game sessions': "Game sessions on the runtime: a player's own, and every session for staff.",
  },
  jobs: {},
  permissions: {},
  cacheTopics: [],
  events: [],
});
