import { actorOf } from '../../../kernel/auth.js';
import type { Deps } from '../../../composition/platform.js';
import type { ZodApp } from '../../../kernel/http/zod-app.js';
import { BillingCouponsService } from './service.js';
import {
  createBillingCoupon,
  createBillingPromotionCode,
  deleteBillingCoupon,
  listBillingCoupons,
  listBillingPromotionCodes,
  setBillingPromotionCodeActive,
} from './route-options.js';

/** Coupons: the discounts themselves. */
export function registerBillingCouponRoutes(app: ZodApp, deps: Deps<'db' | 'payments' | 'write'>): void {
  const coupons = new BillingCouponsService(deps.db, deps.write, deps.payments);

  app.get('/v1/admin/billing/coupons', listBillingCoupons, (request) => coupons.listCoupons(request.query));

  app.post('/v1/admin/billing/coupons', createBillingCoupon, async (request, reply) =>
    reply.code(201).send(await coupons.createCoupon(actorOf(request), request.body)),
  );

  app.delete('/v1/admin/billing/coupons/:id', deleteBillingCoupon, async (request, reply) => {
    await coupons.deleteCoupon(actorOf(request), request.params.id);
    return reply.code(204).send(null);
  });
}

/** Promotion codes: what a player types to get a coupon's discount. */
export function registerBillingPromotionCodeRoutes(app: ZodApp, deps: Deps<'db' | 'payments' | 'write'>): void {
  const coupons = new BillingCouponsService(deps.db, deps.write, deps.payments);

  app.get('/v1/admin/billing/promotion-codes', listBillingPromotionCodes, (request) =>
    coupons.listPromotionCodes(request.query),
  );

  app.post('/v1/admin/billing/promotion-codes', createBillingPromotionCode, async (request, reply) =>
    reply.code(201).send(await coupons.createPromotionCode(actorOf(request), request.body)),
  );

  app.patch('/v1/admin/billing/promotion-codes/:id', setBillingPromotionCodeActive, (request) =>
    coupons.updatePromotionCode(actorOf(request), request.params.id, request.body),
  );
}
