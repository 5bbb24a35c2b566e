import type { Kysely } from 'kysely';
import type { BillingSubscriptionStatus, Tables } from '../../../db/tables.js';
import { likePattern, readPage } from '../../../kernel/pagination.js';
import type { ListSubscriptionsQuery, SubscriptionView } from './schemas.js';

type Db = Kysely<Tables>;

/** What the state checks of cancel, resume and renewal read, under the row lock. */
export interface SubscriptionState {
  id: string;
  user_id: string;
  provider: string;
  provider_subscription_id: string;
  product_id: string | null;
  status: SubscriptionView['status'];
  cancel_at_period_end: boolean;
}

/** The row with the subscriber's email and the plan's name, as every route answers it. */
function subscriptionsWithNames(db: Db) {
  return db
    .selectFrom('billing_subscriptions as s')
    .leftJoin('user_directory as u', 'u.id', 's.user_id')
    .leftJoin('catalog_products as p', 'p.id', 's.product_id');
}

const VIEW_COLUMNS = [
  's.id',
  's.user_id',
  'u.email as user_email',
  's.provider',
  's.provider_subscription_id',
  's.provider_customer_id',
  's.product_id',
  'p.name as product_name',
  's.provider_price_id',
  's.status',
  's.cancel_at_period_end',
  's.current_period_end',
  's.canceled_at',
  's.created_at',
  's.updated_at',
] as const;

export async function listSubscriptions(
  db: Db,
  query: ListSubscriptionsQuery,
): Promise<{ rows: SubscriptionView[]; total: number }> {
  let filtered = subscriptionsWithNames(db);
  if (query.status !== undefined) filtered = filtered.where('s.status', '=', query.status);
  if (query.product_id !== undefined) filtered = filtered.where('s.product_id', '=', query.product_id);
  if (query.user_id !== undefined) filtered = filtered.where('s.user_id', '=', query.user_id);
  if (query.cancel_at_period_end !== undefined)
    filtered = filtered.where('s.cancel_at_period_end', '=', query.cancel_at_period_end);
  if (query.q !== undefined) filtered = filtered.where('u.email', 'ilike', likePattern(query.q));
  const { field, direction } = query.sort;
  return readPage(filtered, query, (matching) =>
    matching
      .select(VIEW_COLUMNS)
      // A subscription with no known period end sorts last either way: it says nothing about renewals.
      .orderBy(`s.${field}`, (ob) => (direction === 'asc' ? ob.asc() : ob.desc()).nullsLast())
      .orderBy('s.id'),
  );
}

export function findSubscriptionView(db: Db, id: string): Promise<SubscriptionView | undefined> {
  return subscriptionsWithNames(db).select(VIEW_COLUMNS).where('s.id', '=', id).executeTakeFirst();
}

/** Locked to the end of the caller's transaction: two staff changes of one subscription queue up. */
export function lockSubscription(trx: Db, id: string): Promise<SubscriptionState | undefined> {
  return trx
    .selectFrom('billing_subscriptions')
    .select(['id', 'user_id', 'provider', 'provider_subscription_id', 'product_id', 'status', 'cancel_at_period_end'])
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst();
}

/** The same columns without a lock (the renewal simulation, whose fulfilment runs its own transactions). */
export function readSubscriptionState(db: Db, id: string): Promise<SubscriptionState | undefined> {
  return db
    .selectFrom('billing_subscriptions')
    .select(['id', 'user_id', 'provider', 'provider_subscription_id', 'product_id', 'status', 'cancel_at_period_end'])
    .where('id', '=', id)
    .executeTakeFirst();
}

// Moving a plan's subscribers to another price (migrate.ts).

/** Kind and tier of these products (those that exist). */
export function productKindsAndTiers(db: Db, productIds: string[]) {
  return db.selectFrom('catalog_products').select(['id', 'kind', 'tier_key']).where('id', 'in', productIds).execute();
}

/** The product's active price under this provider price id; undefined: none. */
export function activePriceOfProduct(db: Db, productId: string, providerPriceId: string) {
  return db
    .selectFrom('catalog_prices')
    .select('id')
    .where('product_id', '=', productId)
    .where('provider_price_id', '=', providerPriceId)
    .where('is_active', '=', true)
    .executeTakeFirst();
}

/** The product's subscriptions in these statuses, in id order. */
export function subscriptionsOfProduct(db: Db, productId: string, statuses: readonly BillingSubscriptionStatus[]) {
  return db
    .selectFrom('billing_subscriptions')
    .select(['id', 'user_id', 'provider_subscription_id'])
    .where('product_id', '=', productId)
    .where('status', 'in', [...statuses])
    .orderBy('id')
    .execute();
}

/** Puts these subscriptions on another product and provider price. */
export async function moveSubscriptions(
  trx: Db,
  subscriptionIds: string[],
  to: { productId: string; providerPriceId: string },
): Promise<void> {
  await trx
    .updateTable('billing_subscriptions')
    .set({ product_id: to.productId, provider_price_id: to.providerPriceId })
    .where('id', 'in', subscriptionIds)
    .execute();
}
