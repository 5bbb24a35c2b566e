import type { Kysely } from 'kysely';
import type { LocalPrice } from '../../../adapters/payments/local.js';
import type { Tables } from '../../../db/tables.js';
import { priceChargeByProviderId } from './queries.js';

/**
 * How the local payment provider learns what a price charges: from the catalog, by provider
 * price id. Inactive prices count too: a subscription keeps renewing at the price it started on.
 */
export function catalogPriceLookup(db: Kysely<Tables>) {
  return async (providerPriceId: string): Promise<LocalPrice | null> => {
    const price = await priceChargeByProviderId(db, providerPriceId);
    return price === undefined
      ? null
      : { unitAmount: Number(price.unit_amount), currency: price.currency, interval: price.interval };
  };
}
