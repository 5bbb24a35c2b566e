import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Tables } from '../../../db/tables.js';
import { LIVE_SUBSCRIPTION_STATUSES } from '../../users/index.js';
import type { DeepLinkType, OverviewInterval } from './schemas.js';

type Db = Kysely<Tables>;

/** `[from, to)`: `from` inclusive, `to` exclusive. */
export interface TimeRange {
  from: Date;
  to: Date;
}

// Sums of bigint columns are numeric, which both drivers hand over as text: each is cast back to
// bigint (read as a number, see src/db/database.ts) and passed through Number() all the same.

/**
 * The UTC bucket a timestamp falls in, as a timestamptz again: the same instant on PGlite and
 * PostgreSQL whatever the session's time zone. The unit is a literal (one of three enum values)
 * so the select and the group-by are the same text.
 */
function bucketOf(interval: OverviewInterval, column: string): RawBuilder<Date> {
  return sql<Date>`date_trunc(${sql.lit(interval)}, ${sql.ref(column)} at time zone 'UTC') at time zone 'UTC'`;
}

export interface MoneyBucket {
  period_start: Date;
  currency: string;
  amount: number;
  count: number;
}

async function moneyByBucket(
  db: Db,
  table: 'payment_directory' | 'refund_directory',
  range: TimeRange,
  interval: OverviewInterval,
): Promise<MoneyBucket[]> {
  const bucket = bucketOf(interval, 'created_at');
  const rows = await db
    .selectFrom(table)
    .select([
      bucket.as('period_start'),
      'currency',
      sql<number>`sum(amount)::bigint`.as('amount'),
      sql<number>`count(*)`.as('count'),
    ])
    .where('created_at', '>=', range.from)
    .where('created_at', '<', range.to)
    .groupBy([bucket, 'currency'])
    .execute();
  return rows.map((row) => ({
    period_start: row.period_start,
    currency: row.currency,
    amount: Number(row.amount),
    count: Number(row.count),
  }));
}

/** Payments made in the range, summed per bucket and currency. */
export const paymentsByBucket = (db: Db, range: TimeRange, interval: OverviewInterval) =>
  moneyByBucket(db, 'payment_directory', range, interval);
/** Refunds made in the range (of any payment, old or new), summed per bucket and currency. */
export const refundsByBucket = (db: Db, range: TimeRange, interval: OverviewInterval) =>
  moneyByBucket(db, 'refund_directory', range, interval);

const isLive = sql<boolean>`s.status in (${sql.join(LIVE_SUBSCRIPTION_STATUSES.map((status) => sql.lit(status)))})`;

export interface LivePlanRow {
  product_id: string | null;
  name: string | null;
  tier_key: string | null;
  live: number;
  past_due: number;
  cancel_at_period_end: number;
}

/** Live subscriptions now, per product (null: a product the catalog does not know). */
export async function livePlans(db: Db): Promise<LivePlanRow[]> {
  const rows = await db
    .selectFrom('billing_subscriptions as s')
    .leftJoin('catalog_products as p', 'p.id', 's.product_id')
    .select([
      's.product_id',
      'p.name',
      'p.tier_key',
      sql<number>`count(*)`.as('live'),
      sql<number>`count(*) filter (where s.status = 'past_due')`.as('past_due'),
      sql<number>`count(*) filter (where s.cancel_at_period_end)`.as('cancel_at_period_end'),
    ])
    .where(isLive)
    .groupBy(['s.product_id', 'p.name', 'p.tier_key'])
    .orderBy(sql`count(*)`, 'desc')
    .orderBy('p.name')
    .orderBy('s.product_id')
    .execute();
  return rows.map((row) => ({
    ...row,
    live: Number(row.live),
    past_due: Number(row.past_due),
    cancel_at_period_end: Number(row.cancel_at_period_end),
  }));
}

export interface MrrRow {
  /** Null: live subscriptions whose price is not a plan price of the catalog. */
  currency: string | null;
  amount: number;
  subscriptions: number;
}

/**
 * Monthly recurring revenue now, per currency: live subscriptions' list prices, a yearly price
 * counting for a twelfth. Divided in numeric and rounded once per currency, so twelve yearly
 * subscribers of 1000 add exactly 1000, not 12 × 83.
 */
export async function mrrByCurrency(db: Db): Promise<MrrRow[]> {
  const rows = await db
    .selectFrom('billing_subscriptions as s')
    .leftJoin('catalog_prices as pr', (join) =>
      join.onRef('pr.provider_price_id', '=', 's.provider_price_id').on('pr.interval', 'is not', null),
    )
    .select([
      'pr.currency',
      sql<number>`coalesce(round(sum(case when pr.interval = 'year' then pr.unit_amount::numeric / 12 else
        pr.unit_amount end)), 0)::bigint`.as('amount'),
      sql<number>`count(*)`.as('subscriptions'),
    ])
    .where(isLive)
    .groupBy('pr.currency')
    .orderBy('pr.currency')
    .execute();
  return rows.map((row) => ({
    currency: row.currency,
    amount: Number(row.amount),
    subscriptions: Number(row.subscriptions),
  }));
}

/** Subscriptions created, and cancellations requested, in the range. */
export async function subscriptionMovements(db: Db, range: TimeRange): Promise<{ started: number; canceled: number }> {
  const inRange = (column: string) =>
    sql<boolean>`(${sql.ref(column)} >= ${range.from} and ${sql.ref(column)} < ${range.to})`;
  const row = await db
    .selectFrom('billing_subscriptions')
    .select([
      sql<number>`count(*) filter (where ${inRange('created_at')})`.as('started'),
      sql<number>`count(*) filter (where ${inRange('canceled_at')})`.as('canceled'),
    ])
    .where(sql<boolean>`${inRange('created_at')} or ${inRange('canceled_at')}`)
    .executeTakeFirstOrThrow();
  return { started: Number(row.started), canceled: Number(row.canceled) };
}

export interface CreditTotals {
  purchased: number;
  granted: number;
  gifted: number;
  spent: number;
  expired: number;
  clawed_back: number;
  adjusted: number;
  outstanding: number;
}

/**
 * The ledger's movements in the range by kind, and the sum of every entry (the balance of all
 * users together: the ledger, not the lots, is the record of truth), in one pass.
 */
export async function creditTotals(db: Db, range: TimeRange): Promise<CreditTotals> {
  const movement = (kind: string, sign: 1 | -1) =>
    sql<number>`coalesce(sum(amount) filter (where kind = ${sql.lit(kind)} and created_at >= ${range.from} and
      created_at < ${range.to}), 0)::bigint * ${sql.lit(sign)}`;
  const row = await db
    .selectFrom('credit_movements')
    .select([
      movement('purchase', 1).as('purchased'),
      movement('grant', 1).as('granted'),
      movement('gift', 1).as('gifted'),
      movement('spend', -1).as('spent'),
      movement('expiry', -1).as('expired'),
      movement('refund_clawback', -1).as('clawed_back'),
      movement('adjustment', 1).as('adjusted'),
      sql<number>`coalesce(sum(amount), 0)::bigint`.as('outstanding'),
    ])
    .executeTakeFirstOrThrow();
  return {
    purchased: Number(row.purchased),
    granted: Number(row.granted),
    gifted: Number(row.gifted),
    spent: Number(row.spent),
    expired: Number(row.expired),
    clawed_back: Number(row.clawed_back),
    adjusted: Number(row.adjusted),
    outstanding: Number(row.outstanding),
  };
}

export interface ProviderObject {
  provider: string;
  provider_id: string;
}

/** The provider's id of one of our billing records, by our id (a user id for a customer). */
export function findProviderObject(db: Db, type: DeepLinkType, id: string): Promise<ProviderObject | undefined> {
  switch (type) {
    case 'customer':
      return db
        .selectFrom('customer_directory')
        .select(['provider', 'provider_customer_id as provider_id'])
        .where('user_id', '=', id)
        .executeTakeFirst();
    case 'subscription':
      return db
        .selectFrom('billing_subscriptions')
        .select(['provider', 'provider_subscription_id as provider_id'])
        .where('id', '=', id)
        .executeTakeFirst();
    case 'invoice':
      return db
        .selectFrom('invoice_directory')
        .select(['provider', 'provider_invoice_id as provider_id'])
        .where('id', '=', id)
        .executeTakeFirst();
    case 'payment':
      return db
        .selectFrom('payment_directory')
        .select(['provider', 'provider_payment_id as provider_id'])
        .where('id', '=', id)
        .executeTakeFirst();
  }
}
