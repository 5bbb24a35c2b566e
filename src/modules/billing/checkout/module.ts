import { defineArea } from '../../../composition/platform.js';
import { registerCheckoutRoutes, registerProviderRoutes } from './routes.js';

/** Checkout: players' checkouts and billing, the payment provider's webhook and its fulfilment. */
export const checkoutModule = defineArea(['config', 'db', 'log', 'metrics', 'payments', 'write'], {
  name: 'billing/checkout',
  routes: [registerCheckoutRoutes, registerProviderRoutes],
  tags: {},
  jobs: {},
  permissions: {
    'billing.read': 'Read billing: payments, invoices, subscriptions, coupons, credit ledger.',
    'billing.write': 'Change billing: refunds, cancellations, coupons, credit grants, billing and credits settings.',
  },
  cacheTopics: [],
  events: ['billing.payment_refunded', 'billing.subscription_started', 'billing.credits_purchased'],
});
