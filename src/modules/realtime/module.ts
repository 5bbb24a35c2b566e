import type { AreaModule } from '../../kernel/areas/module.js';
import { registerRealtimeRoutes } from './routes.js';

/** Realtime: the socket that carries events, alerts and notifications to clients. */
export const realtimeModule = {
  name: 'realtime',
  routes: [registerRealtimeRoutes],
  tags: {
    realtime: 'Realtime credentials and the realtime socket (alerts, dashboard events, notifications).',
  },
  jobs: {},
  permissions: {},
  cacheTopics: [],
  events: [],
} satisfies AreaModule;
