import { sql, type Kysely } from 'kysely';
import type { Tables } from '../../../db/tables.js';
import { invalidRequest } from '../../../kernel/errors.js';
import './tables.js';

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
  const found = await db
    .selectFrom('billing_promotion_codes as pc')
    .innerJoin('billing_coupons as c', 'c.id', 'pc.coupon_id')
    .select([
      'pc.id',
      'pc.provider_promotion_code_id',
      'pc.active',
      'pc.expires_at',
      'pc.max_redemptions',
      'pc.first_time_only',
      'pc.coupon_id',
      'c.deleted_at as coupon_deleted_at',
      'c.redeem_by as coupon_redeem_by',
      'c.max_redemptions as coupon_max_redemptions',
      'c.currency as coupon_currency',
    ])
    .where(sql<string>`upper(pc.code)`, '=', input.code.toUpperCase())
    .executeTakeFirst();
  if (found === undefined) throw refused('unknown_code');
  if (!found.active) throw refused('code_inactive');
  if (found.expires_at !== null && found.expires_at <= input.now) throw refused('code_expired');
  if (found.coupon_deleted_at !== null || (found.coupon_redeem_by !== null && found.coupon_redeem_by <= input.now))
    throw refused('coupon_ended');
  if (found.coupon_currency !== null && found.coupon_currency !== input.currency) throw refused('currency_mismatch');

  const [redemptions, bought] = await Promise.all([
    db
      .selectFrom('billing_checkout_sessions as s')
      .innerJoin('billing_promotion_codes as pc', 'pc.id', 's.promotion_code_id')
      .select([
        sql<number>`count(*) filter (where s.promotion_code_id = ${found.id})::int`.as('of_code'),
        sql<number>`count(*)::int`.as('of_coupon'),
      ])
      .where('pc.coupon_id', '=', found.coupon_id)
      .where('s.status', '=', 'completed')
      .executeTakeFirstOrThrow(),
    found.first_time_only
      ? db.selectFrom('billing_payments').select('id').where('user_id', '=', input.userId).limit(1).executeTakeFirst()
      : Promise.resolve(undefined),
  ]);
  if (found.max_redemptions !== null && redemptions.of_code >= found.max_redemptions) throw refused('fully_redeemed');
  if (found.coupon_max_redemptions !== null && redemptions.of_coupon >= found.coupon_max_redemptions)
    throw refused('fully_redeemed');
  if (bought !== undefined) throw refused('first_purchase_only');
  return { id: found.id, providerPromotionCodeId: found.provider_promotion_code_id };
}
