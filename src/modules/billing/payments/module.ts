import type { AreaModule } from '../../../kernel/areas/module.js';
import { registerBillingPaymentRoutes } from './routes.js';

/** Payments: payments, invoices and refunds, for staff. */
export const paymentsModule = {
  name: 'billing/payments',
  routes: [registerBillingPaymentRoutes],
  tags: {},
  jobs: {},
  permissions: {},
  cacheTopics: [],
  events: [],
} satisfies AreaModule;
