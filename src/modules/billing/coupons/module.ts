import { defineArea } from '../../../composition/platform.js';
import { registerBillingCouponRoutes, registerBillingPromotionCodeRoutes } from './routes.js';

/** Coupons: coupons and promotion codes at the payment provider. */
export const couponsModule = defineArea(['db', 'payments', 'write'], {
  name: 'billing/coupons',
  routes: [registerBillingCouponRoutes, registerBillingPromotionCodeRoutes],
  tags: {},
  jobs: {},
  permissions: {},
  cacheTopics: [],
  events: [],
});
