import { defineArea } from '../../../composition/platform.js';
import { registerBillingPaymentRoutes } from './routes.js';

/** Payments: the records of payments, invoices and refunds (fulfilment writes them through index.ts), for staff. */
export const paymentsModule = defineArea(['db', 'payments', 'write'], {
  name: 'billing/payments',
  routes: [registerBillingPaymentRoutes],
  tags: {},
  jobs: {},
  permissions: {},
  cacheTopics: [],
  events: [],
});
