import { defineArea } from '../../../composition/platform.js';
import { registerAlertSubscriptionRoutes } from './routes.js';

/** Alert subscriptions: which roles hear which alerts. */
export const alertSubscriptionsModule = defineArea(['db', 'write'], {
  name: 'operations/alert-subscriptions',
  routes: [registerAlertSubscriptionRoutes],
  tags: {},
  jobs: {},
  permissions: {},
  cacheTopics: [],
  events: ['roles.alerts_changed'],
});
