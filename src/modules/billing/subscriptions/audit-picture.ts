import type { BillingSubscriptionsTable } from '../../../db/tables.js';
import { auditPicture } from '../../../kernel/audit.js';

/**
 * What a staff change of a subscription keeps of it: its state (status, and whether it cancels at
 * the period's end). Whose it is and its provider id are the audit row's extra; the rest is the
 * provider's bookkeeping.
 */
export const subscriptionPicture = auditPicture<BillingSubscriptionsTable>({
  id: false,
  user_id: false,
  provider: false,
  provider_subscription_id: false,
  product_id: false,
  provider_price_id: false,
  status: true,
  cancel_at_period_end: true,
  current_period_end: false,
  created_at: false,
  updated_at: false,
  provider_customer_id: false,
  canceled_at: false,
  last_event_at: false,
});
