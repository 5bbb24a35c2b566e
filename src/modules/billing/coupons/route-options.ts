// What each route of routes.ts is (permission, errors, schemas, OpenAPI text), named by its operationId.
import { z } from 'zod';
import {
  couponBody,
  couponsBody,
  createCouponBody,
  createPromotionCodeBody,
  idParams,
  listCouponsQuery,
  listPromotionCodesQuery,
  promotionCodeBody,
  promotionCodesBody,
  updatePromotionCodeBody,
} from './schemas.js';

const tags = ['billing'];
const read = { perms: ['billing.read'] } as const;
const write = { perms: ['billing.write'] } as const;
const PROVIDER_ERRORS =
  '422 `invalid_request` when the payment provider refuses (`details.provider_code` is its code); 503 ' +
  '`unavailable` when it cannot be reached or fails. Either way nothing is stored.';

export const listBillingCoupons = {
  config: read,
  schema: {
    operationId: 'listBillingCoupons',
    tags,
    summary: 'List coupons',
    description:
      'Paged with `meta.total`, newest first by default. `status=active|deleted` filters; `q` matches the ' +
      'name. Deleted coupons are kept for history.',
    querystring: listCouponsQuery,
    response: { 200: couponsBody },
  },
} as const;

export const createBillingCoupon = {
  config: { ...write, errors: { 422: ['invalid_request'] } },
  schema: {
    operationId: 'createBillingCoupon',
    tags,
    summary: 'Create a coupon',
    description:
      'Creates a coupon at the payment provider, then mirrors it; answers 201 with it. Exactly one of ' +
      '`percent_off` or `amount_off`; nothing is stored when the provider refuses. In depth: ' +
      '[docs/api/billing.md](docs/api/billing.md#create-a-coupon).',
    body: createCouponBody,
    response: { 201: couponBody },
  },
} as const;

export const deleteBillingCoupon = {
  config: { ...write, errors: { 404: ['not_found'], 422: ['invalid_request'] } },
  schema: {
    operationId: 'deleteBillingCoupon',
    tags,
    summary: 'Delete a coupon',
    description:
      `Deleted at the payment provider; the row is kept, marked deleted, and its promotion codes become ` +
      `inactive. Checkouts already discounted keep their discount. 404 \`not_found\` for an unknown or already ` +
      `deleted coupon. ${PROVIDER_ERRORS} Answers 204. Audited (\`billing.coupon.delete\`).`,
    params: idParams,
    response: { 204: z.null().describe('Deleted') },
  },
} as const;

export const listBillingPromotionCodes = {
  config: read,
  schema: {
    operationId: 'listBillingPromotionCodes',
    tags,
    summary: 'List promotion codes',
    description:
      'Paged with `meta.total`, newest first by default. `coupon_id` and `active` (`true|false`) filter; `q` ' +
      'matches the code.',
    querystring: listPromotionCodesQuery,
    response: { 200: promotionCodesBody },
  },
} as const;

export const createBillingPromotionCode = {
  config: { ...write, errors: { 404: ['not_found'], 409: ['conflict'], 422: ['invalid_request'] } },
  schema: {
    operationId: 'createBillingPromotionCode',
    tags,
    summary: 'Create a promotion code',
    description:
      `A code players enter at checkout for a coupon. Created at the payment provider, then mirrored. 404 ` +
      `\`not_found\` when \`coupon_id\` is unknown or deleted; 409 \`conflict\` when the code exists in any ` +
      `case. ${PROVIDER_ERRORS} Answers 201 with the code. Audited (\`billing.promotion_code.create\`).`,
    body: createPromotionCodeBody,
    response: { 201: promotionCodeBody },
  },
} as const;

export const setBillingPromotionCodeActive = {
  config: { ...write, errors: { 404: ['not_found'], 422: ['invalid_request', 'invalid_state'] } },
  schema: {
    operationId: 'setBillingPromotionCodeActive',
    tags,
    summary: 'Activate or deactivate a promotion code',
    description:
      'Activates or deactivates a promotion code at the payment provider (only `active` can change). Answers ' +
      'the code; when the provider refuses (422 `invalid_request`) nothing is stored. In depth: ' +
      '[docs/api/billing.md](docs/api/billing.md#activate-or-deactivate-a-promotion-code).',
    params: idParams,
    body: updatePromotionCodeBody,
    response: { 200: promotionCodeBody },
  },
} as const;
