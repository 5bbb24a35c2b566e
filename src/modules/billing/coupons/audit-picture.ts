import { auditPicture } from '../../../kernel/audit.js';
import type { BillingCouponsTable, BillingPromotionCodesTable } from './tables.js';

/**
 * What a coupon's creation keeps of it: its terms as its view shows them (amounts as numbers),
 * not who made it or when, nor its deletion (the delete's audit row says that).
 */
export const couponPicture = auditPicture<BillingCouponsTable>({
  id: false,
  provider_coupon_id: true,
  name: true,
  percent_off: true,
  amount_off: true,
  currency: true,
  duration: true,
  duration_in_months: true,
  max_redemptions: true,
  redeem_by: true,
  deleted_at: false,
  created_by: false,
  deleted_by: false,
  created_at: false,
});

/**
 * What a promotion code's audit rows keep of it: its terms and whether it is active (a creation
 * keeps them all; a toggle only `active`, its code going to the row's extra).
 */
export const promotionCodePicture = auditPicture<BillingPromotionCodesTable>({
  id: false,
  provider_promotion_code_id: true,
  coupon_id: true,
  code: true,
  max_redemptions: true,
  expires_at: true,
  first_time_only: true,
  active: true,
  created_by: false,
  updated_by: false,
  created_at: false,
  updated_at: false,
});
