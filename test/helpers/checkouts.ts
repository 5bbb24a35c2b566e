import { randomBytes } from 'node:crypto';
import type { Kernel } from '../../src/kernel/kernel.js';
import '../../src/modules/billing/checkout/tables.js';
import '../../src/modules/billing/catalog/tables.js';

/**
 * A checkout as operation 6 stores it once the provider made it: fulfilment acts only on such a
 * row, with its player, product, quantity and credits. Tests that deliver the provider's events
 * themselves make it first, as a player's checkout would; the id is the provider's checkout id.
 */
export async function recordCheckout(
  db: Kernel['db'],
  input: {
    userId: string;
    provider: 'local' | 'stripe';
    providerPriceId: string;
    quantity?: number;
    checkoutId?: string;
  },
): Promise<string> {
  const price = await db
    .selectFrom('billing_prices as p')
    .innerJoin('billing_products as pr', 'pr.id', 'p.product_id')
    .select(['p.id', 'p.product_id', 'p.interval', 'pr.credits'])
    .where('p.provider_price_id', '=', input.providerPriceId)
    .executeTakeFirstOrThrow();
  const mode = price.interval === null ? 'payment' : 'subscription';
  const checkoutId = input.checkoutId ?? `cs_${randomBytes(12).toString('hex')}`;
  await db
    .insertInto('billing_checkout_sessions')
    .values({
      user_id: input.userId,
      provider: input.provider,
      provider_checkout_id: checkoutId,
      product_id: price.product_id,
      price_id: price.id,
      mode,
      quantity: input.quantity ?? 1,
      credits: mode === 'payment' ? price.credits : null,
      success_url: 'https://game.example/done',
      cancel_url: 'https://game.example/cancel',
    })
    .execute();
  return checkoutId;
}
