import type { AreaModule } from '../../kernel/areas/module.js';
import { registerHealthRoutes } from './routes.js';

/** Health: GET /health, liveness with the database state. */
export const healthModule = {
  name: 'health',
  routes: [registerHealthRoutes],
  tags: {
    system: 'Liveness of the service and its database, for load balancers and uptime checks.',
  },
  jobs: {},
  permissions: {},
  cacheTopics: [],
  events: [],
} satisfies AreaModule;
