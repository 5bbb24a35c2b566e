import { sql, type Kysely } from 'kysely';
import type { PaymentProviderKind } from '../../../adapters/payments/index.js';
import type { BillingSubscriptionStatus, Tables } from '../../../db/tables.js';
import { LIVE_STATUSES } from './tables.js';
import './tables.js';

/**
 * The statements of fulfilment (fulfilment.ts) and the subscription mirror (subscriptions.ts) on the billing
 * family's subscriptions, the tier they give, and the catalog product a provider price names.
 */

type Db = Kysely<Tables>;

/** Ends: a later event about the subscription never brings it back from these. */
const TERMINAL_STATUSES: BillingSubscriptionStatus[] = ['canceled', 'incomplete_expired'];

export interface CheckoutSubscription {
  userId: string;
  provider: PaymentProviderKind;
  providerSubscriptionId: string;
  productId: string;
  providerPriceId: string;
  providerCustomerId: string | null;
}

/** The subscription a paid checkout started, as active; nothing when its row exists already. */
export async function insertCheckoutSubscription(trx: Db, subscription: CheckoutSubscription): Promise<void> {
  await trx
    .insertInto('billing_subscriptions')
    .values({
      user_id: subscription.userId,
      provider: subscription.provider,
      provider_subscription_id: subscription.providerSubscriptionId,
      product_id: subscription.productId,
      provider_price_id: subscription.providerPriceId,
      status: 'active',
      provider_customer_id: subscription.providerCustomerId,
    })
    .onConflict((oc) => oc.columns(['provider', 'provider_subscription_id']).doNothing())
    .execute();
}

/** A subscription's columns as the provider last reported it. */
export interface SubscriptionSnapshot {
  product_id: string | null;
  provider_price_id: string;
  status: BillingSubscriptionStatus;
  cancel_at_period_end: boolean;
  current_period_end: string | null;
  canceled_at: string | null;
  provider_customer_id: string;
  last_event_at: string;
}

export interface ReportedSubscription {
  provider: PaymentProviderKind;
  userId: string;
  providerSubscriptionId: string;
  columns: SubscriptionSnapshot;
  /** The provider's first snapshot of it (Stripe's created event). */
  created: boolean;
}

/** Writes the subscription as reported (made when missing) unless the stored row is newer or ended. */
export async function upsertReportedSubscription(
  trx: Db,
  { provider, userId, providerSubscriptionId, columns, created }: ReportedSubscription,
): Promise<void> {
  await trx
    .insertInto('billing_subscriptions')
    .values({ user_id: userId, provider, provider_subscription_id: providerSubscriptionId, ...columns })
    .onConflict((oc) =>
      oc
        .columns(['provider', 'provider_subscription_id'])
        // A price the catalog does not know (made at the provider by hand) keeps the product the row had.
        .doUpdateSet({
          ...columns,
          product_id: sql<string | null>`coalesce(excluded.product_id, billing_subscriptions.product_id)`,
          updated_at: sql`now()`,
        })
        .where((eb) =>
          eb.and([
            // Older than what is stored: out of order, ignored.
            eb.or([
              eb('billing_subscriptions.last_event_at', 'is', null),
              eb('billing_subscriptions.last_event_at', '<=', sql<Date>`excluded.last_event_at`),
            ]),
            // An ended subscription stays ended, even against an update stamped the same second.
            eb.or([
              eb('billing_subscriptions.status', 'not in', TERMINAL_STATUSES),
              eb(sql.ref('excluded.status'), 'in', TERMINAL_STATUSES),
            ]),
            // The first snapshot (created) replaces only the row a checkout made before any
            // subscription event: Stripe stamps created and the first update the same second, and an
            // update delivered first was rolled back to `incomplete` by the created event after it.
            ...(created ? [eb('billing_subscriptions.last_event_at', 'is', null)] : []),
          ]),
        ),
    )
    .execute();
}

/**
 * The highest-ranked tier among the plans of the user's live subscriptions (none: null), as a
 * subquery for users' setUserTier: one statement reads the subscriptions and writes the tier.
 */
export function liveTierOf(trx: Db, userId: string) {
  return trx
    .selectFrom('billing_subscriptions as s')
    .innerJoin('catalog_products as p', 'p.id', 's.product_id')
    .innerJoin('plan_tier_directory as t', 't.key', 'p.tier_key')
    .select('p.tier_key')
    .where('s.user_id', '=', userId)
    .where('s.status', 'in', LIVE_STATUSES)
    .orderBy('t.rank', 'desc')
    .limit(1)
    .$asScalar();
}

/** The user's subscriptions that would renew, locked, so a webhook applied meanwhile waits for the cancellation. */
export function renewingSubscriptionsOf(trx: Db, userId: string) {
  return trx
    .selectFrom('billing_subscriptions')
    .select(['id', 'provider', 'provider_subscription_id'])
    .where('user_id', '=', userId)
    .where('status', 'in', LIVE_STATUSES)
    .where('cancel_at_period_end', '=', false)
    .orderBy('created_at')
    .forUpdate()
    .execute();
}

/** The catalog product of a provider price; undefined: a price the catalog does not know. */
export async function productOfProviderPrice(trx: Db, providerPriceId: string): Promise<string | undefined> {
  const price = await trx
    .selectFrom('catalog_prices')
    .select('product_id')
    .where('provider_price_id', '=', providerPriceId)
    .executeTakeFirst();
  return price?.product_id;
}

/** The product's id when the catalog has it; undefined otherwise. */
export async function existingProductId(trx: Db, productId: string): Promise<string | undefined> {
  return (await trx.selectFrom('catalog_products').select('id').where('id', '=', productId).executeTakeFirst())?.id;
}
