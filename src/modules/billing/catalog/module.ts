import { defineArea } from '../../../composition/platform.js';
import { registerBillingCatalogRoutes, registerPublicProductRoutes } from './routes.js';

// What the local payment provider charges (the composition root gives it to the local provider).
export { catalogPriceLookup } from './price-lookup.js';

/** Billing catalog: products and prices. */
export const billingCatalogModule = defineArea(['db', 'payments', 'write'], {
  name: 'billing/catalog',
  routes: [registerBillingCatalogRoutes, registerPublicProductRoutes],
  tags: {},
  jobs: {},
  permissions: {},
  cacheTopics: [],
  events: [],
});
