import { defineArea } from '../../../composition/platform.js';
import { registerBillingSubscriptionRoutes } from './routes.js';

/** Subscriptions: staff cancel, resume and migrate subscriptions. */
export const subscriptionsModule = defineArea(['db', 'log', 'payments', 'write'], {
  name: 'billing/subscriptions',
  routes: [registerBillingSubscriptionRoutes],
  tags: {},
  jobs: {},
  permissions: {},
  cacheTopics: [],
  events: ['billing.subscription_canceled', 'billing.subscription_resumed'],
});
