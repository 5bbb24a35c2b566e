import type { ColumnType, Generated, Selectable } from 'kysely';
import type { DefaultedTimestamp, NullableTimestamp } from '../../../db/column-types.js';

export type CouponDuration = 'once' | 'repeating' | 'forever';

export interface BillingCouponsTable {
  id: Generated<string>;
  // The terms of a coupon never change after creation (the provider does not allow it either).
  provider_coupon_id: ColumnType<string, string, never>;
  name: ColumnType<string, string, never>;
  /** numeric(5,2): read as text by the PostgreSQL driver, so views convert it. */
  percent_off: ColumnType<string | number | null, number | null, never>;
  /** Minor units (bigint, read as text by some drivers: views convert it). */
  amount_off: ColumnType<string | number | null, number | null, never>;
  currency: ColumnType<string | null, string | null, never>;
  duration: ColumnType<CouponDuration, CouponDuration, never>;
  duration_in_months: ColumnType<number | null, number | null, never>;
  max_redemptions: ColumnType<number | null, number | null, never>;
  redeem_by: ColumnType<Date | null, Date | string | null, never>;
  deleted_at: NullableTimestamp;
  created_by: ColumnType<string | null, string | null, never>;
  deleted_by: string | null;
  created_at: ColumnType<Date, Date | string | undefined, never>;
}

export interface BillingPromotionCodesTable {
  id: Generated<string>;
  provider_promotion_code_id: ColumnType<string, string, never>;
  coupon_id: ColumnType<string, string, never>;
  code: ColumnType<string, string, never>;
  max_redemptions: ColumnType<number | null, number | null, never>;
  expires_at: ColumnType<Date | null, Date | string | null, never>;
  first_time_only: ColumnType<boolean, boolean, never>;
  active: boolean;
  created_by: ColumnType<string | null, string | null, never>;
  updated_by: string | null;
  created_at: ColumnType<Date, Date | string | undefined, never>;
  updated_at: DefaultedTimestamp;
}

declare module '../../../db/tables.js' {
  interface Tables {
    billing_coupons: BillingCouponsTable;
    billing_promotion_codes: BillingPromotionCodesTable;
  }
}

export type CouponRow = Selectable<BillingCouponsTable>;
export type PromotionCodeRow = Selectable<BillingPromotionCodesTable>;
