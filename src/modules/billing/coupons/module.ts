import { defineArea } from '../../../composition/platform.js';
import { registerBillingCouponRoutes } from './routes.js';

/** Coupons: coupons and promotion codes at the payment provider. */
export const couponsModule = defineArea(['db', 'payments', 'write'], {
  name: 'billing/coupons',
  routes: [registerBillingCouponRoutes],
  tags: {},
  jobs: {},
  permissions: {},
  cacheTopics: [],
  events: [],
});
