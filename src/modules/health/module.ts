import type { AreaModule } from '../../kernel/module.js';
import { registerHealthRoutes } from './routes.js';

/** Health: the liveness and readiness probes. */
export const healthModule = {
  name: 'health',
  routes: [registerHealthRoutes],
  jobs: {},
  permissions: {},
  cacheTopics: [],
  events: [],
} satisfies AreaModule;
