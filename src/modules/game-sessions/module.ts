import type { AreaModule } from '../../kernel/areas/module.js';
import { registerGameSessionRoutes } from './routes.js';

/** Game sessions: players start and stop them on the runtime; staff watch and stop them. */
export const gameSessionsModule = {
  name: 'game-sessions',
  routes: [registerGameSessionRoutes],
  tags: {
    'game sessions': "Game sessions on the runtime: a player's own, and every session for staff.",
  },
  jobs: {},
  permissions: {},
  cacheTopics: [],
  events: [],
} satisfies AreaModule;
