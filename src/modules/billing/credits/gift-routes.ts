import { z } from 'zod';
import { isoDateTime } from '../../../lib/instant.js';
import { actorOf } from '../../../kernel/auth.js';
import { idempotentAnswer } from '../../../kernel/idempotency.js';
import type { Deps } from '../../../composition/platform.js';
import type { ZodApp } from '../../../kernel/http/zod-app.js';
import { PRICE_INTERVALS } from '../catalog/index.js';
import { CreditGiftsService } from './gifts.js';
import { grantHeaders } from './schemas.js';

const tags = ['billing'];

export const MAX_GIFT_QUANTITY = 99;

export const giftPackBody = z
  .object({
    user_id: z.guid(),
    product_id: z.guid().describe('An active credit pack (see `GET /v1/admin/billing/giftable-tiers`, `packs`).'),
    quantity: z
      .number()
      .int()
      .min(1)
      .max(MAX_GIFT_QUANTITY)
      .default(1)
      .describe('Packs to gift; they add up to one entry.'),
    reason: z
      .string()
      .min(3)
      .max(500)
      .describe('Kept on the ledger entry and in the audit row; the player sees it in their ledger.'),
    expires_at: isoDateTime()
      .optional()
      .describe('When what is left of these credits lapses (must be in the future); omitted: never.'),
  })
  .strict();

export const giftPackResult = z
  .object({
    entry_id: z.number().int(),
    balance: z.number().int().describe("The user's balance right after this gift."),
    credits: z.number().int().describe("Credits added: the pack's credits × quantity."),
  })
  .describe('The ledger entry made, the credits added and the balance after.');

const giftablePrice = z.object({
  id: z.guid(),
  provider_price_id: z.string(),
  currency: z.string(),
  unit_amount: z.number().int().describe('Minor units of the currency.'),
  interval: z.enum(PRICE_INTERVALS).nullable(),
});

export const giftablesResult = z
  .object({
    tiers: z
      .array(
        z.object({
          key: z.string(),
          name: z.string(),
          rank: z.number().int(),
          products: z
            .array(
              z.object({
                id: z.guid(),
                name: z.string(),
                prices: z.array(giftablePrice).describe('Active prices, by currency then interval.'),
              }),
            )
            .describe('Active plan products selling this tier, by sort order then name; empty when none does.'),
        }),
      )
      .describe('Every plan tier, lowest rank first.'),
    packs: z
      .array(
        z.object({
          id: z.guid(),
          name: z.string(),
          credits: z.number().int().describe('Credits one pack adds.'),
        }),
      )
      .describe('Active credit packs, by sort order then name: what `product_id` of a gift pack may name.'),
  })
  .describe('The tiers and credit packs staff may give.');

/** Staff: POST /v1/admin/billing/credits/gift-pack, GET /v1/admin/billing/giftable-tiers. */
export function registerCreditGiftRoutes(app: ZodApp, deps: Deps<'db' | 'write'>): void {
  const gifts = new CreditGiftsService(deps.db, deps.write);

  app.post(
    '/v1/admin/billing/credits/gift-pack',
    {
      config: {
        errors: { 404: ['not_found'], 409: ['conflict'], 422: ['invalid_request', 'invalid_state'] },
        perms: ['billing.write'],
      },
      schema: {
        operationId: 'giftBillingCreditPack',
        tags,
        summary: 'Gift credit packs to a user',
        description:
          'Adds the credits of `quantity` packs of an active credit pack (`product_id`) as ONE new lot (lapsing ' +
          'at `expires_at`, or never) with one `gift` ledger entry referencing the product (`reference_type` ' +
          '`product`, `reference_id` the product id); audited `billing.credits.gift_pack` (product, quantity, ' +
          'credits per pack, credits, entry, lot, balance), dashboard event `billing.credits_gifted`. Nothing is ' +
          'charged and no payment is recorded. Returns the entry id, the balance after it and the credits added. ' +
          'With an `Idempotency-Key` header a repeat with the same body answers the first gift again (header ' +
          '`idempotent-replayed: true`) and gifts nothing, even if the pack was taken off sale meanwhile; the ' +
          "same key with another body (or after the pack's credits changed) is 409 `conflict`. 404 `not_found` " +
          '(no such user or product); 422 `invalid_state` (a deleted user), `invalid_request` (the product is a ' +
          'plan or an inactive pack, or `expires_at` is not in the future).',
        headers: grantHeaders,
        body: giftPackBody,
        response: { 201: giftPackResult },
      },
    },
    async (request, reply) => {
      const gifted = await gifts.giftPack(actorOf(request), request.body, request.headers['idempotency-key']);
      return reply.code(201).send(idempotentAnswer(reply, gifted));
    },
  );

  app.get(
    '/v1/admin/billing/giftable-tiers',
    {
      config: { perms: ['billing.read'] },
      schema: {
        operationId: 'listBillingGiftableTiers',
        tags,
        summary: 'What staff can hand out',
        description:
          'One answer for a support agent\'s "give them something" screen: `{ tiers, packs }`. `tiers`: every ' +
          'plan tier (key, name, rank) by rank, lowest first, each with the active plan products that sell it and ' +
          'their active prices, so the agent sees which plan and price a tier corresponds to; a tier no active ' +
          'product sells is still listed (with `products: []`), since the tier ladder is what the agent reasons ' +
          'in. `packs`: every active credit pack (id, name, credits), exactly what `POST ' +
          '/v1/admin/billing/credits/gift-pack` accepts, whether or not it has a price (a gift is not a sale). ' +
          'Not paged: tiers and products are a short staff-made catalog.',
        response: { 200: giftablesResult },
      },
    },
    () => gifts.giftables(),
  );
}
