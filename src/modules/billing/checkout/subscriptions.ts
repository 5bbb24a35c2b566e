import type { Kysely } from 'kysely';
import type { PaymentProviderKind, ProviderSubscription } from '../../../adapters/payments/index.js';
import type { BillingSubscriptionStatus, Tables } from '../../../db/tables.js';
import { lockUserRow, setUserTier } from '../../users/index.js';
import { fillSubscriptionPayments } from '../payments/index.js';
import {
  existingProductId,
  liveTierOf,
  productOfProviderPrice,
  upsertReportedSubscription,
} from './subscription-queries.js';

type Db = Kysely<Tables>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Mirrors the provider's view of a subscription onto its row (made when missing) and the user's
 * tier. `occurredAt` orders the writes: one older than the newest applied changes nothing, and an
 * ended subscription stays ended. Webhook events and staff actions (cancel, resume, which get the
 * provider's answer back at once) both come through here.
 */
export async function applyProviderSubscription(
  trx: Db,
  provider: PaymentProviderKind,
  userId: string,
  subscription: ProviderSubscription,
  { deleted, occurredAt, created = false }: { deleted: boolean; occurredAt: string; created?: boolean },
): Promise<void> {
  const priceProduct = await productOfProviderPrice(trx, subscription.providerPriceId);
  const metadataProduct = UUID.test(subscription.metadata.product_id ?? '') ? subscription.metadata.product_id! : null;
  const productId =
    priceProduct ?? (metadataProduct === null ? null : ((await existingProductId(trx, metadataProduct)) ?? null));
  const status: BillingSubscriptionStatus = deleted ? 'canceled' : subscription.status;
  const columns = {
    product_id: productId,
    provider_price_id: subscription.providerPriceId,
    status,
    cancel_at_period_end: subscription.cancelAtPeriodEnd,
    current_period_end: subscription.currentPeriodEnd,
    canceled_at: subscription.canceledAt ?? (deleted ? occurredAt : null),
    provider_customer_id: subscription.customerId,
    last_event_at: occurredAt,
  };
  await upsertReportedSubscription(trx, {
    provider,
    userId,
    providerSubscriptionId: subscription.id,
    columns,
    created,
  });
  await syncUserTier(trx, userId);
  // Its invoices' payments recorded before this row existed get its plan.
  await fillSubscriptionPayments(trx, provider, subscription.id);
}

/**
 * The user's tier follows their subscriptions: the highest-ranked tier among the plans of their
 * live subscriptions, or none once no subscription is live.
 */
export async function syncUserTier(trx: Db, userId: string): Promise<void> {
  // Lock the user first, in a statement of its own. An UPDATE that waits for another
  // transaction's lock on the row re-reads only that row when it gets it: its subquery still
  // sees the subscriptions as they were when the statement began. Two events about two of the
  // user's subscriptions at once (the old plan deleted, the new one created) each computed the
  // tier without the other's change, and the last to commit wrote a tier from a world where the
  // old plan was gone and the new one not there yet: none. Taken here, the lock makes the UPDATE
  // below start (and read) after the other transaction committed.
  await lockUserRow(trx, userId);
  await setUserTier(trx, userId, liveTierOf(trx, userId));
}
