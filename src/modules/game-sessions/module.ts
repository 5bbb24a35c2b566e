import type { AreaModule } from '../../kernel/areas/module.js';
import { registerGameSessionRoutes } from './routes.js';

/** Game sessions: players start and stop them on the runtime; staff watch and stop them. */
export const gameSessionsModule = {
  name: 'game-sessions',
  routes: [registerGameSessionRoutes],
  jobs: {},
  permissions: {},
  cacheTopics: [],
  events: [],
} satisfies AreaModule;
