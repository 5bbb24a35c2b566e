import type { AreaModule } from '../../../kernel/areas/module.js';
import { registerBillingCatalogRoutes } from './routes.js';

// What the local payment provider charges (the kernel's AreaServices.priceLookup).
export { catalogPriceLookup } from './price-lookup.js';

/** Billing catalog: products and prices. */
export const billingCatalogModule = {
  name: 'billing/catalog',
  routes: [registerBillingCatalogRoutes],
  tags: {},
  jobs: {},
  permissions: {},
  cacheTopics: [],
  events: [],
} satisfies AreaModule;
