import { sql, type Insertable, type Kysely } from 'kysely';
import type { PaymentProviderKind } from '../../../adapters/payments/index.js';
import type { Tables } from '../../../db/tables.js';
import { isUniqueViolation } from '../../../lib/sql-errors.js';
import { balanceOf } from '../credits/index.js';
import { invoicesOfPlayer } from '../payments/index.js';
import type { InvoiceView, MyBillingView, MyInvoicesQuery, SubscriptionView } from './schemas.js';
import { LIVE_STATUSES, type BillingCheckoutSessionsTable } from './tables.js';

type Db = Kysely<Tables>;

const iso = (value: Date | null): string | null => value?.toISOString() ?? null;

/** The caller's live subscription: the most recently changed one when there are several. */
async function liveSubscription(db: Db, userId: string): Promise<SubscriptionView | null> {
  const row = await db
    .selectFrom('billing_subscriptions as s')
    .leftJoin('catalog_products as p', 'p.id', 's.product_id')
    .select([
      's.id',
      's.status',
      's.product_id',
      'p.name as product_name',
      'p.tier_key',
      's.provider_price_id',
      's.cancel_at_period_end',
      's.current_period_end',
      's.created_at',
    ])
    .where('s.user_id', '=', userId)
    .where('s.status', 'in', LIVE_STATUSES)
    .orderBy('s.updated_at', 'desc')
    .orderBy('s.id')
    .executeTakeFirst();
  if (row === undefined) return null;
  return { ...row, current_period_end: iso(row.current_period_end), created_at: row.created_at.toISOString() };
}

export async function myBilling(db: Db, userId: string, provider: PaymentProviderKind): Promise<MyBillingView> {
  const [customer, subscription, user, balance] = await Promise.all([
    storedCustomer(db, userId),
    liveSubscription(db, userId),
    db.selectFrom('user_directory').select('tier').where('id', '=', userId).executeTakeFirstOrThrow(),
    balanceOf(db, userId),
  ]);
  return {
    provider,
    // A customer at a provider no longer configured is not the caller's customer any more.
    customer_id: customer?.provider === provider ? customer.provider_customer_id : null,
    subscription,
    tier: user.tier,
    credit_balance: balance,
  };
}

/** The caller's invoices, newest first, and how many they have (payments' records, in the answer's shape). */
export async function myInvoices(
  db: Db,
  userId: string,
  query: MyInvoicesQuery,
): Promise<{ rows: InvoiceView[]; total: number }> {
  const { rows, total } = await invoicesOfPlayer(db, userId, query);
  const views = rows.map((row) => ({
    ...row,
    amount_due: Number(row.amount_due),
    amount_paid: Number(row.amount_paid),
    period_start: iso(row.period_start),
    period_end: iso(row.period_end),
    created_at: row.created_at.toISOString(),
  }));
  return { rows: views, total };
}

/** The checkout this service made under the provider's checkout id, as fulfilment reads it; undefined: none. */
export function storedCheckout(trx: Db, provider: PaymentProviderKind, providerCheckoutId: string) {
  return trx
    .selectFrom('billing_checkout_sessions as c')
    .innerJoin('catalog_prices as p', 'p.id', 'c.price_id')
    .innerJoin('catalog_products as pr', 'pr.id', 'c.product_id')
    .select(['c.id', 'c.user_id', 'c.mode', 'c.quantity', 'c.credits', 'c.price_id', 'c.product_id'])
    .select(['p.provider_price_id', 'pr.name as product_name'])
    .where('c.provider', '=', provider)
    .where('c.provider_checkout_id', '=', providerCheckoutId)
    .executeTakeFirst();
}

export async function markCheckoutCompleted(trx: Db, id: string, completedAt: string): Promise<void> {
  await trx
    .updateTable('billing_checkout_sessions')
    .set({ status: 'completed', completed_at: completedAt })
    .where('id', '=', id)
    .execute();
}

/** Says on a recorded provider event why it was not acted on. */
export async function markEventIgnored(trx: Db, provider: PaymentProviderKind, eventId: string, reason: string) {
  await trx
    .updateTable('billing_webhook_events')
    .set({ ignored_reason: reason })
    .where('provider', '=', provider)
    .where('event_id', '=', eventId)
    .execute();
}

/** The player's customer at a provider, as stored; undefined: none yet. */
export function storedCustomer(db: Db, userId: string) {
  return db
    .selectFrom('billing_customers')
    .select(['provider', 'provider_customer_id'])
    .where('user_id', '=', userId)
    .executeTakeFirst();
}

/** Stores the player's customer; replaces only a customer at another provider, never a racing winner. */
export async function storeCustomer(
  db: Db,
  userId: string,
  provider: PaymentProviderKind,
  providerCustomerId: string,
): Promise<void> {
  try {
    await db
      .insertInto('billing_customers')
      .values({ user_id: userId, provider, provider_customer_id: providerCustomerId })
      .onConflict((oc) =>
        oc
          .column('user_id')
          .doUpdateSet({ provider, provider_customer_id: providerCustomerId, updated_at: sql`now()` })
          // Only a customer at another provider (the deployment switched) is replaced, never a racing winner.
          .where('billing_customers.provider', '<>', provider),
      )
      .execute();
  } catch (error) {
    // Two first checkouts racing were given the same customer (the provider call is idempotent per
    // player). ON CONFLICT arbitrates on user_id only, so the loser, waiting on the winner's
    // uncommitted row, fails on the other unique index: the customer it came to store is stored.
    if (!isUniqueViolation(error, 'billing_customers_provider_id_key')) throw error;
  }
}

/** What the provider is told of a new customer. */
export function customerContact(db: Db, userId: string) {
  return db
    .selectFrom('user_directory')
    .select(['email', 'display_name'])
    .where('id', '=', userId)
    .executeTakeFirstOrThrow();
}

/** The checkout an earlier request of the player's under this Idempotency-Key made; undefined: none. */
export function checkoutByRequestKey(db: Db, userId: string, requestKey: string) {
  return db
    .selectFrom('billing_checkout_sessions')
    .select(['provider_checkout_id', 'url', 'request_fingerprint'])
    .where('user_id', '=', userId)
    .where('request_key', '=', requestKey)
    .executeTakeFirst();
}

/** Records a checkout; false when a row under its provider id or the player's key is there already. */
export async function insertCheckoutSession(
  db: Db,
  checkout: Insertable<BillingCheckoutSessionsTable>,
): Promise<boolean> {
  const inserted = await db
    .insertInto('billing_checkout_sessions')
    .values(checkout)
    .onConflict((oc) => oc.doNothing())
    .executeTakeFirst();
  return Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0;
}

/** How many of the player's checkouts are completed or expired. */
export async function closedCheckoutCount(db: Db, userId: string): Promise<number> {
  const closed = await db
    .selectFrom('billing_checkout_sessions')
    .select(sql<number>`count(*)::int`.as('n'))
    .where('user_id', '=', userId)
    .where('status', '<>', 'open')
    .executeTakeFirstOrThrow();
  return closed.n;
}

export async function productName(db: Db, productId: string): Promise<string | undefined> {
  return (await db.selectFrom('catalog_products').select('name').where('id', '=', productId).executeTakeFirst())?.name;
}

// Promotion codes at checkout (promotion-at-checkout.ts).

/** A promotion code (matched without case) with what of its coupon limits its use; undefined: none. */
export function promotionCodeWithCoupon(db: Db, code: string) {
  return db
    .selectFrom('promotion_code_directory as pc')
    .innerJoin('coupon_directory as c', 'c.id', 'pc.coupon_id')
    .select([
      'pc.id',
      'pc.provider_promotion_code_id',
      'pc.active',
      'pc.expires_at',
      'pc.max_redemptions',
      'pc.first_time_only',
      'pc.coupon_id',
      'c.deleted_at as coupon_deleted_at',
      'c.redeem_by as coupon_redeem_by',
      'c.max_redemptions as coupon_max_redemptions',
      'c.currency as coupon_currency',
    ])
    .where(sql<string>`upper(pc.code)`, '=', code.toUpperCase())
    .executeTakeFirst();
}

/** Completed checkouts carrying this code, and carrying any code of its coupon. */
export function promotionRedemptions(db: Db, promotionCodeId: string, couponId: string) {
  return db
    .selectFrom('billing_checkout_sessions as s')
    .innerJoin('promotion_code_directory as pc', 'pc.id', 's.promotion_code_id')
    .select([
      sql<number>`count(*) filter (where s.promotion_code_id = ${promotionCodeId})::int`.as('of_code'),
      sql<number>`count(*)::int`.as('of_coupon'),
    ])
    .where('pc.coupon_id', '=', couponId)
    .where('s.status', '=', 'completed')
    .executeTakeFirstOrThrow();
}
