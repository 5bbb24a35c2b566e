import { sql, type Kysely } from 'kysely';
import type { Tables } from '../../../db/tables.js';
import { likePattern, readPage } from '../../../kernel/pagination.js';
import type { CouponView, ListCouponsQuery, ListPromotionCodesQuery, PromotionCodeView } from './schemas.js';
import type { CouponDuration, CouponRow, PromotionCodeRow } from './tables.js';
import './tables.js';

type Db = Kysely<Tables>;

/** numeric and bigint columns arrive as text from the PostgreSQL driver and as numbers from PGlite. */
const numberOrNull = (value: string | number | null) => (value === null ? null : Number(value));

/** What a coupon's view reads. */
const COUPON_VIEW_COLUMNS = [
  'id',
  'provider_coupon_id',
  'name',
  'percent_off',
  'amount_off',
  'currency',
  'duration',
  'duration_in_months',
  'max_redemptions',
  'redeem_by',
  'deleted_at',
  'created_by',
  'created_at',
] as const;
type CouponListed = Pick<CouponRow, (typeof COUPON_VIEW_COLUMNS)[number]>;

/** A promotion code's view: every column but who changed it last. */
const PROMOTION_CODE_VIEW_COLUMNS = [
  'id',
  'provider_promotion_code_id',
  'coupon_id',
  'code',
  'max_redemptions',
  'expires_at',
  'first_time_only',
  'active',
  'created_by',
  'created_at',
  'updated_at',
] as const;
type PromotionCodeListed = Pick<PromotionCodeRow, (typeof PROMOTION_CODE_VIEW_COLUMNS)[number]>;

export function couponView(row: CouponListed): CouponView {
  return {
    id: row.id,
    provider_coupon_id: row.provider_coupon_id,
    name: row.name,
    percent_off: numberOrNull(row.percent_off),
    amount_off: numberOrNull(row.amount_off),
    currency: row.currency,
    duration: row.duration,
    duration_in_months: row.duration_in_months,
    max_redemptions: row.max_redemptions,
    redeem_by: row.redeem_by,
    active: row.deleted_at === null,
    deleted_at: row.deleted_at,
    created_by: row.created_by,
    created_at: row.created_at,
  };
}

export function promotionCodeView(row: PromotionCodeListed & { updated_by?: string | null }): PromotionCodeView {
  const { updated_by: _updatedBy, ...view } = row;
  return view;
}

export async function listCoupons(db: Db, query: ListCouponsQuery): Promise<{ rows: CouponListed[]; total: number }> {
  let filtered = db.selectFrom('billing_coupons');
  if (query.status === 'active') filtered = filtered.where('deleted_at', 'is', null);
  if (query.status === 'deleted') filtered = filtered.where('deleted_at', 'is not', null);
  if (query.q !== undefined) filtered = filtered.where('name', 'ilike', likePattern(query.q));
  return readPage(filtered, query, (matching) =>
    matching.select(COUPON_VIEW_COLUMNS).orderBy(query.sort.field, query.sort.direction).orderBy('id'),
  );
}

export function findCoupon(db: Db, id: string): Promise<CouponRow | undefined> {
  return db.selectFrom('billing_coupons').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Locked so a delete and a new promotion code for the same coupon queue up. */
export function lockCoupon(trx: Db, id: string): Promise<CouponRow | undefined> {
  return trx.selectFrom('billing_coupons').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
}

export interface NewCoupon {
  provider_coupon_id: string;
  name: string;
  percent_off: number | null;
  amount_off: number | null;
  currency: string | null;
  duration: CouponDuration;
  duration_in_months: number | null;
  max_redemptions: number | null;
  redeem_by: string | null;
}

export function insertCoupon(trx: Db, coupon: NewCoupon, actorId: string): Promise<CouponRow> {
  return trx
    .insertInto('billing_coupons')
    .values({ ...coupon, created_by: actorId })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Marks the coupon deleted and deactivates its codes; answers how many codes were deactivated. */
export async function markCouponDeleted(trx: Db, id: string, actorId: string): Promise<number> {
  await trx
    .updateTable('billing_coupons')
    .set({ deleted_at: new Date(), deleted_by: actorId })
    .where('id', '=', id)
    .execute();
  const result = await trx
    .updateTable('billing_promotion_codes')
    .set({ active: false, updated_by: actorId, updated_at: new Date() })
    .where('coupon_id', '=', id)
    .where('active', '=', true)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

export async function listPromotionCodes(
  db: Db,
  query: ListPromotionCodesQuery,
): Promise<{ rows: PromotionCodeListed[]; total: number }> {
  let filtered = db.selectFrom('billing_promotion_codes');
  if (query.coupon_id !== undefined) filtered = filtered.where('coupon_id', '=', query.coupon_id);
  if (query.active !== undefined) filtered = filtered.where('active', '=', query.active);
  if (query.q !== undefined) filtered = filtered.where('code', 'ilike', likePattern(query.q));
  return readPage(filtered, query, (matching) =>
    matching.select(PROMOTION_CODE_VIEW_COLUMNS).orderBy(query.sort.field, query.sort.direction).orderBy('id'),
  );
}

/** Case-insensitive, as the unique index compares. */
export async function codeTaken(db: Db, code: string): Promise<boolean> {
  const row = await db
    .selectFrom('billing_promotion_codes')
    .select('id')
    .where(sql`upper(code)`, '=', code.toUpperCase())
    .executeTakeFirst();
  return row !== undefined;
}

export interface NewPromotionCode {
  provider_promotion_code_id: string;
  coupon_id: string;
  code: string;
  max_redemptions: number | null;
  expires_at: string | null;
  first_time_only: boolean;
  active: boolean;
}

export function insertPromotionCode(trx: Db, code: NewPromotionCode, actorId: string): Promise<PromotionCodeRow> {
  return trx
    .insertInto('billing_promotion_codes')
    .values({ ...code, created_by: actorId, updated_by: actorId })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export function lockPromotionCode(trx: Db, id: string): Promise<PromotionCodeListed | undefined> {
  return trx
    .selectFrom('billing_promotion_codes')
    .select(PROMOTION_CODE_VIEW_COLUMNS)
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst();
}

export function setPromotionCodeActive(
  trx: Db,
  id: string,
  active: boolean,
  actorId: string,
): Promise<PromotionCodeRow> {
  return trx
    .updateTable('billing_promotion_codes')
    .set({ active, updated_by: actorId, updated_at: new Date() })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}
