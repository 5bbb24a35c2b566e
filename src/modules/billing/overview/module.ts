import type { AreaModule } from '../../../kernel/areas/module.js';
import { registerBillingOverviewRoutes } from './routes.js';

/** Billing overview: staff's summary of billing and deep links to the provider. */
export const billingOverviewModule = {
  name: 'billing/overview',
  routes: [registerBillingOverviewRoutes],
  tags: {},
  jobs: {},
  permissions: {},
  cacheTopics: [],
  events: [],
} satisfies AreaModule;
