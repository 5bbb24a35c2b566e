import { auditPicture } from '../../../kernel/audit.js';
import type { BillingPromotionCodesTable } from './tables.js';

/** What a promotion code's audit rows keep of it: whether it is active (its code goes to the row's extra). */
export const promotionCodePicture = auditPicture<BillingPromotionCodesTable>({
  id: false,
  provider_promotion_code_id: false,
  coupon_id: false,
  code: false,
  max_redemptions: false,
  expires_at: false,
  first_time_only: false,
  active: true,
  created_by: false,
  updated_by: false,
  created_at: false,
  updated_at: false,
});
