import type { Kysely } from 'kysely';
import type { PaymentProviderKind } from '../../../adapters/payments/index.js';
import type { Tables } from '../../../db/tables.js';
import { offsetOf } from '../../../kernel/pagination.js';
import { balanceOf } from '../credits/index.js';
import type { InvoiceView, MyBillingView, MyInvoicesQuery, SubscriptionView } from './schemas.js';
import { LIVE_STATUSES } from './tables.js';

type Db = Kysely<Tables>;

const iso = (value: Date | null): string | null => value?.toISOString() ?? null;

/** The caller's live subscription: the most recently changed one when there are several. */
async function liveSubscription(db: Db, userId: string): Promise<SubscriptionView | null> {
  const row = await db
    .selectFrom('billing_subscriptions as s')
    .leftJoin('billing_products as p', 'p.id', 's.product_id')
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
    db
      .selectFrom('billing_customers')
      .select(['provider', 'provider_customer_id'])
      .where('user_id', '=', userId)
      .executeTakeFirst(),
    liveSubscription(db, userId),
    db.selectFrom('users').select('tier').where('id', '=', userId).executeTakeFirstOrThrow(),
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

export async function myInvoices(
  db: Db,
  userId: string,
  query: MyInvoicesQuery,
): Promise<{ data: InvoiceView[]; meta: { page: number; per_page: number } }> {
  const rows = await db
    .selectFrom('billing_invoices')
    .select([
      'id',
      'provider_invoice_id',
      'status',
      'amount_due',
      'amount_paid',
      'currency',
      'hosted_url',
      'period_start',
      'period_end',
      'created_at',
    ])
    .where('user_id', '=', userId)
    .orderBy('created_at', 'desc')
    .orderBy('id')
    .limit(query.per_page)
    .offset(offsetOf(query))
    .execute();
  const data = rows.map((row) => ({
    ...row,
    amount_due: Number(row.amount_due),
    amount_paid: Number(row.amount_paid),
    period_start: iso(row.period_start),
    period_end: iso(row.period_end),
    created_at: row.created_at.toISOString(),
  }));
  return { data, meta: { page: query.page, per_page: query.per_page } };
}

/** The checkout this service made under the provider's checkout id, as fulfilment reads it; undefined: none. */
export function storedCheckout(trx: Db, provider: PaymentProviderKind, providerCheckoutId: string) {
  return trx
    .selectFrom('billing_checkout_sessions as c')
    .innerJoin('billing_prices as p', 'p.id', 'c.price_id')
    .innerJoin('billing_products as pr', 'pr.id', 'c.product_id')
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
