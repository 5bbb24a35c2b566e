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
          'Gives a user the credits of `quantity` packs of an active credit pack as one lot, charging nothing. ' +
          'Idempotent with an `Idempotency-Key` header. In depth: ' +
          '[docs/api/billing.md](docs/api/billing.md#gift-credit-packs-to-a-user).',
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
          'What a support agent may give: every plan tier by rank with the active products and prices that sell ' +
          'it, and every active credit pack. Not paged. In depth: ' +
          '[docs/api/billing.md](docs/api/billing.md#what-staff-can-hand-out).',
        response: { 200: giftablesResult },
      },
    },
    () => gifts.giftables(),
  );
}
