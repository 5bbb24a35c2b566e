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

/** Migration 0052's views: what coupons publish of a coupon and its promotion codes for checkout to apply them. */
export interface CouponDirectoryView {
  id: string;
  currency: string | null;
  max_redemptions: number | null;
  redeem_by: Date | null;
  deleted_at: Date | null;
}

export interface PromotionCodeDirectoryView {
  id: string;
  provider_promotion_code_id: string;
  coupon_id: string;
  code: string;
  max_redemptions: number | null;
  expires_at: Date | null;
  first_time_only: boolean;
  active: boolean;
}

declare module '../../../db/tables.js' {
  interface Tables {
    billing_coupons: BillingCouponsTable;
    billing_promotion_codes: BillingPromotionCodesTable;
    /** @published (a view: what limits a coupon's use at checkout) */
    coupon_directory: CouponDirectoryView;
    /** @published (a view: a promotion code as checkout matches and counts it) */
    promotion_code_directory: PromotionCodeDirectoryView;
  }
}

export type CouponRow = Selectable<BillingCouponsTable>;
export type PromotionCodeRow = Selectable<BillingPromotionCodesTable>;
