import type { AreaModule } from '../../../kernel/areas/module.js';
import { registerBillingSubscriptionRoutes } from './routes.js';

/** Subscriptions: staff cancel, resume and migrate subscriptions. */
export const subscriptionsModule = {
  name: 'billing/subscriptions',
  routes: [registerBillingSubscriptionRoutes],
  tags: {},
  jobs: {},
  permissions: {},
  cacheTopics: [],
  events: ['billing.subscription_canceled', 'billing.subscription_resumed'],
} satisfies AreaModule;
