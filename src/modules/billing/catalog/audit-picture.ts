import { auditPicture } from '../../../kernel/audit.js';
import type { BillingPricesTable } from './tables.js';

/** What a price's audit rows keep: its terms, under the names the console API gives them. */
export const pricePicture = auditPicture<BillingPricesTable>({
  id: false,
  product_id: { key: 'productId' },
  product_kind: false,
  provider_price_id: { key: 'providerPriceId' },
  currency: true,
  unit_amount: { key: 'unitAmount' },
  interval: true,
  is_active: { key: 'isActive' },
  created_by: false,
  updated_by: false,
  created_at: false,
  updated_at: false,
});
