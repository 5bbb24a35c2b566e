import type { Kysely } from 'kysely';
import type { Tables } from '../../../db/tables.js';
import { invalidRequest } from '../../../kernel/errors.js';
import { anyPaymentOf } from '../payments/index.js';
import { promotionCodeWithCoupon, promotionRedemptions } from './queries.js';

type Db = Kysely<Tables>;

/** Why a code cannot be used: each is what the player is told, in `details.reason`. */
export type PromotionRefusal =
  | 'unknown_code'
  | 'code_inactive'
  | 'code_expired'
  | 'coupon_ended'
  | 'fully_redeemed'
  | 'first_purchase_only'
  | 'currency_mismatch';

export interface CheckoutPromotion {
  id: string;
  providerPromotionCodeId: string;
}

const refused = (reason: PromotionRefusal) => invalidRequest({ field: 'promotionCode', reason });

/**
 * The promotion code a player typed at checkout, checked against the mirror of what staff made:
 * active, not expired, its coupon not deleted or past `redeem_by`, redemptions (completed
 * checkouts carrying the code or any code of its coupon) under both limits, a first-purchase-only
 * code only for a player with nothing bought yet, and an amount-off coupon only in its currency.
 * The provider checks again when the player pays (two players racing for a code's last
 * redemption are settled there); this check is what gives the player a clear answer up front.
 */
export async function promotionForCheckout(
  db: Db,
  input: { code: string; userId: string; currency: string; now: Date },
): Promise<CheckoutPromotion> {
  const found = await promotionCodeWithCoupon(db, input.code);
  if (found === undefined) throw refused('unknown_code');
  if (!found.active) throw refused('code_inactive');
  if (found.expires_at !== null && found.expires_at <= input.now) throw refused('code_expired');
  if (found.coupon_deleted_at !== null || (found.coupon_redeem_by !== null && found.coupon_redeem_by <= input.now))
    throw refused('coupon_ended');
  if (found.coupon_currency !== null && found.coupon_currency !== input.currency) throw refused('currency_mismatch');

  const [redemptions, bought] = await Promise.all([
    promotionRedemptions(db, found.id, found.coupon_id),
    found.first_time_only ? anyPaymentOf(db, input.userId) : Promise.resolve(undefined),
  ]);
  if (found.max_redemptions !== null && redemptions.of_code >= found.max_redemptions) throw refused('fully_redeemed');
  if (found.coupon_max_redemptions !== null && redemptions.of_coupon >= found.coupon_max_redemptions)
    throw refused('fully_redeemed');
  if (bought !== undefined) throw refused('first_purchase_only');
  return { id: found.id, providerPromotionCodeId: found.provider_promotion_code_id };
}
