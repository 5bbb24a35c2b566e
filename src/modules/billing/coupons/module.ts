import type { AreaModule } from '../../../kernel/areas/module.js';
import { registerBillingCouponRoutes } from './routes.js';

/** Coupons: coupons and promotion codes at the payment provider. */
export const couponsModule = {
  name: 'billing/coupons',
  routes: [registerBillingCouponRoutes],
  tags: {},
  jobs: {},
  permissions: {},
  cacheTopics: [],
  events: [],
} satisfies AreaModule;
