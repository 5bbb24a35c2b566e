import type { Kysely } from 'kysely';
import type { PaymentProvider } from '../../../adapters/payments/index.js';
import { atProvider as atProviderOf } from '../provider-errors.js';
import type { Tables } from '../../../db/tables.js';
import type { Actor } from '../../../kernel/actor.js';
import { conflict, invalidState, notFound } from '../../../kernel/errors.js';
import { paged } from '../../../kernel/pagination.js';
import type { Writes } from '../../../kernel/write.js';
import {
  codeTaken,
  couponView,
  findCoupon,
  insertCoupon,
  insertPromotionCode,
  listCoupons,
  listPromotionCodes,
  lockCoupon,
  lockPromotionCode,
  markCouponDeleted,
  promotionCodeView,
  setPromotionCodeActive,
} from './queries.js';
import type {
  CouponView,
  CreateCouponInput,
  CreatePromotionCodeInput,
  ListCouponsQuery,
  ListPromotionCodesQuery,
  PromotionCodeView,
  UpdatePromotionCodeInput,
} from './schemas.js';
import { couponPicture, promotionCodePicture } from './audit-picture.js';

const UNIQUE_VIOLATION = '23505';

const atProvider = <T>(call: () => Promise<T>) => atProviderOf(call, { withMessage: true });

const codeConflict = (code: string) =>
  conflict({ reason: 'a promotion code with this code exists (codes are compared case-insensitively)', code });

/**
 * Staff coupons and promotion codes. Every write goes to the provider first; only once it has
 * accepted is the local mirror written, with its audit row, in one transaction. A provider
 * refusal or outage therefore leaves nothing stored.
 */
export class BillingCouponsService {
  constructor(
    private readonly db: Kysely<Tables>,
    private readonly write: Writes,
    private readonly payments: PaymentProvider,
  ) {}

  async listCoupons(query: ListCouponsQuery) {
    const { rows, total } = await listCoupons(this.db, query);
    return paged(rows.map(couponView), query, total);
  }

  async createCoupon(actor: Actor, input: CreateCouponInput): Promise<CouponView> {
    const created = await atProvider(() =>
      this.payments.createCoupon({
        name: input.name,
        duration: input.duration,
        ...(input.percent_off !== undefined ? { percentOff: input.percent_off } : {}),
        ...(input.amount_off !== undefined ? { amountOff: input.amount_off, currency: input.currency! } : {}),
        ...(input.duration_in_months !== undefined ? { durationInMonths: input.duration_in_months } : {}),
        ...(input.max_redemptions !== undefined ? { maxRedemptions: input.max_redemptions } : {}),
        ...(input.redeem_by !== undefined ? { redeemBy: input.redeem_by } : {}),
      }),
    );
    return this.write(actor, async (w) => {
      const row = await insertCoupon(
        w.trx,
        {
          provider_coupon_id: created.id,
          name: input.name,
          percent_off: input.percent_off ?? null,
          amount_off: input.amount_off ?? null,
          currency: input.currency ?? null,
          duration: input.duration,
          duration_in_months: input.duration_in_months ?? null,
          max_redemptions: input.max_redemptions ?? null,
          redeem_by: input.redeem_by ?? null,
        },
        actor.userId,
      );
      const view = couponView(row);
      await w.auditRow(couponPicture, {
        action: 'billing.coupon.create',
        targetType: 'billing_coupon',
        targetId: row.id,
        after: view,
      });
      return view;
    });
  }

  /**
   * Deletes at the provider, then marks the row deleted (history kept) and deactivates its codes.
   * A coupon already deleted answers 404, as an unknown one: there is nothing left to delete.
   * If the provider deleted it but the local write failed, a retry finds the row still live and
   * the provider's "already gone" counts as deleted (the Stripe adapter treats it so).
   */
  async deleteCoupon(actor: Actor, id: string): Promise<void> {
    const known = await findCoupon(this.db, id);
    if (known === undefined || known.deleted_at !== null) throw notFound();
    await atProvider(() => this.payments.deleteCoupon(known.provider_coupon_id));
    await this.write(actor, async (w) => {
      const current = await lockCoupon(w.trx, id);
      // A concurrent delete got here first: it wrote the row and the audit.
      if (current === undefined || current.deleted_at !== null) throw notFound();
      const deactivated = await markCouponDeleted(w.trx, id, actor.userId);
      await w.audit({
        action: 'billing.coupon.delete',
        targetType: 'billing_coupon',
        targetId: id,
        extra: { provider_coupon_id: current.provider_coupon_id, promotion_codes_deactivated: deactivated },
      });
    });
  }

  async listPromotionCodes(query: ListPromotionCodesQuery) {
    const { rows, total } = await listPromotionCodes(this.db, query);
    return paged(rows.map(promotionCodeView), query, total);
  }

  async createPromotionCode(actor: Actor, input: CreatePromotionCodeInput): Promise<PromotionCodeView> {
    const coupon = await findCoupon(this.db, input.coupon_id);
    if (coupon === undefined || coupon.deleted_at !== null) throw notFound('not_found', { coupon_id: input.coupon_id });
    if (await codeTaken(this.db, input.code)) throw codeConflict(input.code);
    const created = await atProvider(() =>
      this.payments.createPromotionCode({
        couponId: coupon.provider_coupon_id,
        code: input.code,
        firstTimeTransaction: input.first_time_only,
        active: input.active,
        ...(input.max_redemptions !== undefined ? { maxRedemptions: input.max_redemptions } : {}),
        ...(input.expires_at !== undefined ? { expiresAt: input.expires_at } : {}),
      }),
    );
    try {
      return await this.write(actor, async (w) => {
        const current = await lockCoupon(w.trx, coupon.id);
        if (current === undefined || current.deleted_at !== null)
          throw notFound('not_found', { coupon_id: input.coupon_id });
        const row = await insertPromotionCode(
          w.trx,
          {
            provider_promotion_code_id: created.id,
            coupon_id: coupon.id,
            code: input.code,
            max_redemptions: input.max_redemptions ?? null,
            expires_at: input.expires_at ?? null,
            first_time_only: input.first_time_only,
            active: input.active,
          },
          actor.userId,
        );
        const view = promotionCodeView(row);
        await w.auditRow(promotionCodePicture, {
          action: 'billing.promotion_code.create',
          targetType: 'billing_promotion_code',
          targetId: row.id,
          after: view,
        });
        return view;
      });
    } catch (error) {
      // Lost a race (the same code, or the coupon deleted meanwhile): the provider's new code must not stay redeemable.
      await this.payments.updatePromotionCode(created.id, { active: false }).catch(() => undefined);
      const { code } = (error ?? {}) as { code?: unknown };
      if (code === UNIQUE_VIOLATION) throw codeConflict(input.code);
      throw error;
    }
  }

  /** Only `active` changes (the provider's rule). Same value: answered as is, nothing written. */
  async updatePromotionCode(actor: Actor, id: string, input: UpdatePromotionCodeInput): Promise<PromotionCodeView> {
    return this.write(actor, async (w) => {
      const current = await lockPromotionCode(w.trx, id);
      if (current === undefined) throw notFound();
      if (current.active === input.active) return promotionCodeView(current);
      if (input.active) {
        const coupon = await findCoupon(w.trx, current.coupon_id);
        if (coupon?.deleted_at !== null)
          throw invalidState({ reason: 'the coupon of this promotion code is deleted', coupon_id: current.coupon_id });
      }
      // The row stays locked during the provider call so two toggles cannot interleave.
      await atProvider(() =>
        this.payments.updatePromotionCode(current.provider_promotion_code_id, { active: input.active }),
      );
      const row = await setPromotionCodeActive(w.trx, id, input.active, actor.userId);
      await w.auditRow(promotionCodePicture, {
        action: 'billing.promotion_code.update',
        targetType: 'billing_promotion_code',
        targetId: id,
        before: current,
        after: input,
        only: ['active'],
        extra: { code: current.code },
      });
      return promotionCodeView(row);
    });
  }
}
