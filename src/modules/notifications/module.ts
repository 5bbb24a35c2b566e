import type { AreaModule } from '../../kernel/areas/module.js';
import { registerNotificationRoutes } from './routes.js';

/** Notifications: staff broadcasts, and players' in-app notifications. */
export const notificationsModule = {
  name: 'notifications',
  routes: [registerNotificationRoutes],
  tags: {
    notifications: 'Broadcasts of in-app notifications (and email) to players.',
    'me: notifications': "The caller's in-app notifications.",
  },
  jobs: {},
  permissions: {},
  cacheTopics: [],
  events: ['notifications.broadcast_sent'],
} satisfies AreaModule;
