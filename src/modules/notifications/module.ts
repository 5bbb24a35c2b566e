import { defineArea } from '../../composition/platform.js';
import { registerMyNotificationRoutes, registerNotificationBroadcastRoutes } from './routes.js';

/** Notifications: staff broadcasts, and players' in-app notifications. */
export const notificationsModule = defineArea(['db', 'write'], {
  name: 'notifications',
  routes: [registerNotificationBroadcastRoutes, registerMyNotificationRoutes],
  tags: {
    notifications: 'Broadcasts of in-app notifications (and email) to players.',
    'me: notifications': "The caller's in-app notifications.",
  },
  jobs: {},
  permissions: {},
  cacheTopics: [],
  events: ['notifications.broadcast_sent'],
});
