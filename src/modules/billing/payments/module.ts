import { defineArea } from '../../../composition/platform.js';
import { registerBillingPaymentRoutes } from './routes.js';

/** Payments: payments, invoices and refunds, for staff. */
export const paymentsModule = defineArea(['db', 'payments', 'write'], {
  name: 'billing/payments',
  routes: [registerBillingPaymentRoutes],
  tags: {},
  jobs: {},
  permissions: {},
  cacheTopics: [],
  events: [],
});
