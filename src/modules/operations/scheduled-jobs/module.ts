import { defineArea } from '../../../composition/platform.js';
import { SYSTEM_JOBS } from './job-handlers.js';
import { registerSystemRoutes } from './routes.js';

/** System: scheduled jobs, their runs, and this instance's scheduler. */
export const systemModule = defineArea(
  ['config', 'db', 'drain', 'events', 'identity', 'jobs', 'log', 'metrics', 'storage', 'write'],
  {
    name: 'operations/scheduled-jobs',
    routes: [registerSystemRoutes],
    tags: {
      'scheduled jobs': "The service's scheduled jobs: enable, disable, run now, run history.",
    },
    jobs: SYSTEM_JOBS,
    permissions: {},
    cacheTopics: [],
    events: [],
  },
);
