import type { AreaModule } from '../../../kernel/module.js';
import { registerBillingCatalogRoutes } from './routes.js';

export { catalogPriceLookup } from './price-lookup.js';

/** Billing catalog: products and prices. */
export const billingCatalogModule = {
  name: 'billing/catalog',
  routes: [registerBillingCatalogRoutes],
  jobs: {},
  permissions: {},
  cacheTopics: [],
  events: [],
} satisfies AreaModule;
