import { asBrief, auditPicture } from '../../../kernel/audit.js';
import type { BillingPricesTable, BillingProductsTable } from './tables.js';

/**
 * What a product's audit rows keep: what staff define, under the names the console API gives
 * them; long texts cut and `metadata` as its keys (`briefAuditValue`).
 */
export const productPicture = auditPicture<BillingProductsTable>({
  id: false,
  kind: true,
  name: asBrief('name'),
  description: asBrief('description'),
  credits: true,
  tier_key: { key: 'tierKey' },
  is_active: { key: 'isActive' },
  sort_order: { key: 'sortOrder' },
  metadata: asBrief('metadata'),
  created_by: false,
  updated_by: false,
  created_at: false,
  updated_at: false,
});

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
