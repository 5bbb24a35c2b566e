import type { Kysely } from 'kysely';
import type { Tables } from '../../../db/tables.js';
import type { Actor } from '../../../kernel/actor.js';
import { invalidRequest, invalidState, notFound } from '../../../kernel/errors.js';
import type { PriceInterval } from '../catalog/index.js';
import type { Writes } from '../../../kernel/write.js';
import { ledgerEntryPicture } from './audit-picture.js';
import { addCredits } from './ledger.js';
import { activeCreditPacks, activePlansWithPrices, productToGift, tiersByRank } from './queries.js';

/** Staff gifts of credit packs, and the list of what staff can hand out (tiers and packs). */

type Db = Kysely<Tables>;

export interface GiftPackInput {
  user_id: string;
  product_id: string;
  quantity: number;
  reason: string;
  expires_at?: string | undefined;
}

export interface GiftPackResult {
  entry_id: number;
  /** The user's balance right after the gift (a replay answers the first gift's). */
  balance: number;
  /** Credits the gift added: the pack's credits × quantity. */
  credits: number;
}

export interface GiftablePrice {
  id: string;
  provider_price_id: string;
  currency: string;
  unit_amount: number;
  interval: PriceInterval | null;
}

export interface GiftableTier {
  key: string;
  name: string;
  rank: number;
  products: Array<{ id: string; name: string; prices: GiftablePrice[] }>;
}

export interface GiftablePack {
  id: string;
  name: string;
  credits: number;
}

export interface Giftables {
  tiers: GiftableTier[];
  packs: GiftablePack[];
}

export class CreditGiftsService {
  constructor(
    private readonly db: Db,
    private readonly write: Writes,
  ) {}

  /**
   * Adds credits × quantity of a credit pack as one `gift` entry (one lot) referencing the
   * product, with its audit row and dashboard event, in one transaction. With an idempotency key
   * a repeat answers the first gift and writes nothing.
   */
  async giftPack(
    actor: Actor,
    input: GiftPackInput,
    idempotencyKey: string | undefined,
  ): Promise<GiftPackResult & { replayed: boolean }> {
    // Retried on a deadlock or serialization failure, like grants (service.ts): all of it goes through `trx`.
    return this.write(actor, async ({ trx, auditRow, publish }) => {
      const product = await productToGift(trx, input.product_id);
      if (product === undefined)
        throw notFound('not_found', { reason: 'no such product', product_id: input.product_id });
      if (product.kind !== 'credit_pack' || product.credits === null) {
        throw invalidRequest({
          reason: 'only a credit pack can be gifted',
          product_id: product.id,
          kind: product.kind,
        });
      }
      const credits = product.credits * input.quantity;
      const result = await addCredits(trx, {
        userId: input.user_id,
        amount: credits,
        kind: 'gift',
        expiresAt: input.expires_at === undefined ? null : new Date(input.expires_at),
        actorId: actor.userId,
        reason: input.reason,
        referenceType: 'product',
        referenceId: product.id,
        // Namespaced apart from grants: ledger keys are unique across every caller.
        idempotencyKey: idempotencyKey === undefined ? undefined : `gift-pack:${idempotencyKey}`,
        // Checked here, after the idempotency check, so a retry of a gift whose pack was taken
        // off sale meanwhile still answers the gift that was made.
        checkAccount: (account) => {
          if (account.status === 'deleted')
            throw invalidState({ reason: 'a deleted user cannot be gifted credits', status: account.status });
          if (!product.is_active)
            throw invalidRequest({ reason: 'this credit pack is inactive', product_id: product.id });
        },
      });
      const answer = { entry_id: result.entryId, balance: result.balance, credits, replayed: result.replayed };
      if (result.replayed) return answer;
      await auditRow(ledgerEntryPicture, {
        action: 'billing.credits.gift_pack',
        targetType: 'user',
        targetId: input.user_id,
        reason: input.reason,
        after: {
          id: result.entryId,
          balance_after: result.balance,
          reference_id: product.id,
          lot_id: result.lotId,
          expires_at: input.expires_at ?? null,
          product_name: product.name,
          quantity: input.quantity,
          credits_per_pack: product.credits,
          credits,
        },
        ...(idempotencyKey === undefined ? {} : { extra: { idempotency_key: idempotencyKey } }),
      });
      await publish({
        kind: 'dashboard',
        name: 'billing.credits_gifted',
        payload: {
          user_id: input.user_id,
          product_id: product.id,
          quantity: input.quantity,
          credits,
          entry_id: result.entryId,
        },
      });
      return answer;
    });
  }

  /**
   * Every plan tier by rank with the active plan products selling it (and their active prices),
   * and every active credit pack: exactly the packs `giftPack` accepts.
   */
  async giftables(): Promise<Giftables> {
    const [tiers, plans, packs] = await Promise.all([
      tiersByRank(this.db),
      activePlansWithPrices(this.db),
      activeCreditPacks(this.db),
    ]);
    const byTier = new Map<string, GiftableTier>(tiers.map((tier) => [tier.key, { ...tier, products: [] }]));
    for (const row of plans) {
      const tier = row.tier_key === null ? undefined : byTier.get(row.tier_key);
      if (tier === undefined) continue;
      let product = tier.products[tier.products.length - 1];
      if (product?.id !== row.id) {
        product = { id: row.id, name: row.name, prices: [] };
        tier.products.push(product);
      }
      if (
        row.price_id !== null &&
        row.provider_price_id !== null &&
        row.currency !== null &&
        row.unit_amount !== null
      ) {
        product.prices.push({
          id: row.price_id,
          provider_price_id: row.provider_price_id,
          currency: row.currency,
          unit_amount: Number(row.unit_amount),
          interval: row.interval,
        });
      }
    }
    return {
      tiers: [...byTier.values()],
      // A credit pack always has credits (a CHECK constraint); the filter only narrows the type.
      packs: packs.flatMap((pack) =>
        pack.credits === null ? [] : [{ id: pack.id, name: pack.name, credits: pack.credits }],
      ),
    };
  }
}
