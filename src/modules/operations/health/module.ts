import { defineArea } from '../../../composition/platform.js';
import { registerHealthRoutes } from './routes.js';

/** Health: GET /health (liveness with the database state), /health/live and /health/ready for probes. */
export const healthModule = defineArea(['db', 'drain', 'limiter'], {
  name: 'operations/health',
  routes: [registerHealthRoutes],
  tags: {
    system:
      'Liveness and readiness of the service and its dependencies, for load balancers, orchestrators and uptime checks.',
  },
  jobs: {},
  permissions: {},
  cacheTopics: [],
  events: [],
});
