import { defineArea } from '../../../composition/platform.js';
import { registerCreditGiftRoutes } from './gift-routes.js';
import { expireCreditLotsJob } from './ledger.js';
import { registerCreditRoutes } from './routes.js';

/** Credits: the credit ledger, grants, gift packs and expiring lots. */
export const creditsModule = defineArea(['db', 'write'], {
  name: 'billing/credits',
  routes: [registerCreditRoutes, registerCreditGiftRoutes],
  tags: {
    billing:
      'Credits, checkout, coupons and promotion codes, payments and refunds, subscriptions, and the billing overview.',
  },
  jobs: {
    'expire-credit-lots': expireCreditLotsJob,
  },
  permissions: {
    // Support compensates a player without the refunds, coupons and settings of billing.write.
    'billing.grant': 'Grant credits to a user (a compensation), without the other billing writes.',
  },
  cacheTopics: [],
  events: ['billing.credits_granted', 'billing.credits_gifted'],
});
