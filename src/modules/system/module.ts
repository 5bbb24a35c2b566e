import type { AreaModule } from '../../kernel/areas/module.js';
import { SYSTEM_JOBS } from './job-handlers.js';
import { registerSystemRoutes } from './routes.js';

/** System: scheduled jobs, their runs, and this instance's scheduler. */
export const systemModule = {
  name: 'system',
  routes: [registerSystemRoutes],
  tags: {
    'scheduled jobs': "The service's scheduled jobs: enable, disable, run now, run history.",
  },
  jobs: SYSTEM_JOBS,
  permissions: {},
  cacheTopics: [],
  events: [],
} satisfies AreaModule;
