import { defineArea } from '../../../composition/platform.js';
import { registerBillingOverviewRoutes } from './routes.js';

/** Billing overview: staff's summary of billing and deep links to the provider. */
export const billingOverviewModule = defineArea(['db', 'payments'], {
  name: 'billing/overview',
  routes: [registerBillingOverviewRoutes],
  tags: {},
  jobs: {},
  permissions: {},
  cacheTopics: [],
  events: [],
});
