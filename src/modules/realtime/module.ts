import { defineArea } from '../../composition/platform.js';
import { registerRealtimeRoutes } from './routes.js';

/** Realtime: the socket that carries events, alerts and notifications to clients. */
export const realtimeModule = defineArea(
  ['config', 'db', 'events', 'load', 'log', 'metrics', 'signingKey', 'userChanges', 'write'],
  {
    name: 'realtime',
    routes: [registerRealtimeRoutes],
    tags: {
      realtime: 'Realtime credentials and the realtime socket (alerts, dashboard events, notifications).',
    },
    jobs: {},
    permissions: {},
    cacheTopics: [],
    events: [],
  },
);
