import type { AreaModule } from '../../kernel/areas/module.js';
import { registerAlertSubscriptionRoutes } from './routes.js';

/** Alert subscriptions: which roles hear which alerts. */
export const alertSubscriptionsModule = {
  name: 'alert-subscriptions',
  routes: [registerAlertSubscriptionRoutes],
  tags: {},
  jobs: {},
  permissions: {},
  cacheTopics: [],
  events: ['roles.alerts_changed'],
} satisfies AreaModule;
