import { z } from 'zod';
import { pageQuery, pagedResponse } from '../../../kernel/pagination.js';
import { offsetDateTime } from '../../../lib/instant.js';

// Billing routes write snake_case. Coupon terms mirror what the payment provider accepts.

export const COUPON_DURATIONS = ['once', 'repeating', 'forever'] as const;
export const PROMOTION_CODE_PATTERN = /^[A-Z0-9][A-Z0-9_-]{2,49}$/i;
const MAX_AMOUNT_OFF = 999_999_999_999;
const MAX_REDEMPTIONS = 1_000_000_000;

/** Two decimals at most: the provider (and the numeric(5,2) column) keeps no more. */
const hasAtMostTwoDecimals = (value: number) => Math.abs(value * 100 - Math.round(value * 100)) < 1e-9;
const future = (value: string) => Date.parse(value) > Date.now();
const futureInstant = (field: string) => offsetDateTime.refine(future, { error: `${field} must be in the future` });

export const idParams = z.object({ id: z.guid() });

export const createCouponBody = z
  .object({
    name: z.string().trim().min(1).max(100),
    percent_off: z
      .number()
      .gt(0)
      .max(100)
      .refine(hasAtMostTwoDecimals, { error: 'percent_off takes at most two decimals' })
      .optional(),
    amount_off: z.number().int().min(1).max(MAX_AMOUNT_OFF).optional().describe('Minor units of `currency`.'),
    currency: z
      .string()
      .regex(/^[A-Za-z]{3}$/)
      .transform((value) => value.toLowerCase())
      .optional()
      .describe('ISO 4217; required with `amount_off`, refused otherwise.'),
    duration: z.enum(COUPON_DURATIONS),
    duration_in_months: z
      .number()
      .int()
      .min(1)
      .max(36)
      .optional()
      .describe('Required when `duration` is `repeating`, refused otherwise.'),
    max_redemptions: z.number().int().min(1).max(MAX_REDEMPTIONS).optional(),
    redeem_by: futureInstant('redeem_by').optional().describe('The last instant the coupon can be redeemed.'),
  })
  .strict()
  .superRefine((body, ctx) => {
    if ((body.percent_off === undefined) === (body.amount_off === undefined)) {
      ctx.addIssue({
        code: 'custom',
        path: ['percent_off'],
        message: 'exactly one of percent_off and amount_off is required',
      });
    }
    if ((body.amount_off === undefined) !== (body.currency === undefined)) {
      ctx.addIssue({
        code: 'custom',
        path: ['currency'],
        message: 'currency goes with amount_off, and only with it',
      });
    }
    if ((body.duration === 'repeating') !== (body.duration_in_months !== undefined)) {
      ctx.addIssue({
        code: 'custom',
        path: ['duration_in_months'],
        message: 'duration_in_months is required when duration is repeating, and only then',
      });
    }
  });
export type CreateCouponInput = z.infer<typeof createCouponBody>;

export const listCouponsQuery = pageQuery(['created_at', 'name'], { field: 'created_at', direction: 'desc' }).extend({
  status: z
    .enum(['active', 'deleted'])
    .optional()
    .describe('`active`: not deleted; `deleted`: deleted at the provider, kept for history.'),
});
export type ListCouponsQuery = z.infer<typeof listCouponsQuery>;

export const couponBody = z
  .object({
    id: z.guid(),
    provider_coupon_id: z.string(),
    name: z.string(),
    percent_off: z.number().nullable(),
    amount_off: z.number().int().nullable(),
    currency: z.string().nullable(),
    duration: z.enum(COUPON_DURATIONS),
    duration_in_months: z.number().int().nullable(),
    max_redemptions: z.number().int().nullable(),
    redeem_by: z.date().nullable(),
    active: z.boolean().describe('False once deleted.'),
    deleted_at: z.date().nullable(),
    created_by: z.guid().nullable(),
    created_at: z.date(),
  })
  .meta({ id: 'Coupon', description: 'A coupon at the payment provider.' });
export type CouponView = z.infer<typeof couponBody>;
export const couponsBody = pagedResponse(couponBody);

const booleanQuery = z.enum(['true', 'false']).transform((value) => value === 'true');

export const createPromotionCodeBody = z
  .object({
    code: z
      .string()
      .regex(PROMOTION_CODE_PATTERN, 'code must be 3..50 letters, digits, `_` or `-`, starting with a letter or digit')
      .describe('Unique whatever its case.'),
    coupon_id: z.guid().describe('A coupon of this service that is not deleted (404 `not_found` otherwise).'),
    max_redemptions: z.number().int().min(1).max(MAX_REDEMPTIONS).optional(),
    expires_at: futureInstant('expires_at').optional(),
    first_time_only: z.boolean().default(false).describe("Only for a customer's first purchase."),
    active: z.boolean().default(true),
  })
  .strict();
export type CreatePromotionCodeInput = z.infer<typeof createPromotionCodeBody>;

// The provider lets a promotion code change only whether it is active after it is created.
export const updatePromotionCodeBody = z.object({ active: z.boolean() }).strict();
export type UpdatePromotionCodeInput = z.infer<typeof updatePromotionCodeBody>;

export const listPromotionCodesQuery = pageQuery(['created_at', 'code'], {
  field: 'created_at',
  direction: 'desc',
}).extend({
  coupon_id: z.guid().optional(),
  active: booleanQuery.optional(),
});
export type ListPromotionCodesQuery = z.infer<typeof listPromotionCodesQuery>;

export const promotionCodeBody = z
  .object({
    id: z.guid(),
    provider_promotion_code_id: z.string(),
    coupon_id: z.guid(),
    code: z.string(),
    max_redemptions: z.number().int().nullable(),
    expires_at: z.date().nullable(),
    first_time_only: z.boolean(),
    active: z.boolean(),
    created_by: z.guid().nullable(),
    created_at: z.date(),
    updated_at: z.date(),
  })
  .meta({ id: 'PromotionCode', description: 'A promotion code of a coupon.' });
export type PromotionCodeView = z.infer<typeof promotionCodeBody>;
export const promotionCodesBody = pagedResponse(promotionCodeBody);
