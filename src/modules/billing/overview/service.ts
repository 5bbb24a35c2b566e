import type { Kysely } from 'kysely';
import type { PaymentProvider } from '../../../adapters/payments/index.js';
import type { Tables } from '../../../db/tables.js';
import { invalidRequest, invalidState, notFound } from '../../../kernel/errors.js';
import {
  creditTotals,
  findProviderObject,
  livePlans,
  mrrByCurrency,
  paymentsByBucket,
  refundsByBucket,
  subscriptionMovements,
  type LivePlanRow,
  type MoneyBucket,
  type MrrRow,
  type TimeRange,
} from './queries.js';
import type {
  CreditsView,
  DeepLinkType,
  DeepLinkView,
  OverviewInterval,
  OverviewQuery,
  OverviewView,
  PeriodRevenueRow,
  RevenueRow,
} from './schemas.js';

const DAY_MS = 86_400_000;
export const DEFAULT_RANGE_DAYS = 30;
/** Two years, a leap day included. */
export const MAX_RANGE_DAYS = 731;
/** Enough for a year and a month of days; a longer series wants a wider interval. */
export const MAX_PERIODS = 400;

/** The start of the UTC bucket holding `date`, as PostgreSQL's date_trunc has it (ISO weeks start on Monday). */
export function periodStartOf(date: Date, interval: OverviewInterval): Date {
  const [year, month, day] = [date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate()];
  if (interval === 'month') return new Date(Date.UTC(year, month, 1));
  const midnight = Date.UTC(year, month, day);
  if (interval === 'day') return new Date(midnight);
  const daysSinceMonday = (date.getUTCDay() + 6) % 7;
  return new Date(midnight - daysSinceMonday * DAY_MS);
}

function nextPeriodStart(start: Date, interval: OverviewInterval): Date {
  if (interval === 'month') return new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 1));
  return new Date(start.getTime() + (interval === 'week' ? 7 : 1) * DAY_MS);
}

/** Every bucket start that `[from, to)` touches. Bounded: callers cap the range first. */
export function periodStarts(range: TimeRange, interval: OverviewInterval): Date[] {
  const starts: Date[] = [];
  for (let start = periodStartOf(range.from, interval); start < range.to; start = nextPeriodStart(start, interval))
    starts.push(start);
  return starts;
}

/** The asked range with its defaults, refused (422) when backwards, too long, or in too many buckets. */
export function resolveRange(query: OverviewQuery, now: Date): { range: TimeRange; periods: Date[] } {
  const to = query.to === undefined ? now : new Date(query.to);
  const from = query.from === undefined ? new Date(to.getTime() - DEFAULT_RANGE_DAYS * DAY_MS) : new Date(query.from);
  if (from >= to)
    throw invalidRequest({ reason: '`from` must be before `to`', from: from.toISOString(), to: to.toISOString() });
  if (to.getTime() - from.getTime() > MAX_RANGE_DAYS * DAY_MS) {
    throw invalidRequest({
      reason: `the range may span at most ${MAX_RANGE_DAYS} days`,
      from: from.toISOString(),
      to: to.toISOString(),
      max_days: MAX_RANGE_DAYS,
    });
  }
  const range = { from, to };
  const periods = periodStarts(range, query.interval);
  if (periods.length > MAX_PERIODS) {
    throw invalidRequest({
      reason:
        `the range holds more than ${MAX_PERIODS} periods of a ${query.interval}; pick a wider interval or a ` +
        `shorter range`,
      interval: query.interval,
      periods: periods.length,
      max_periods: MAX_PERIODS,
    });
  }
  return { range, periods };
}

const figures = (gross: number, refunded: number, payments: number, refunds: number) => ({
  gross,
  refunded,
  net: gross - refunded,
  payments,
  refunds,
});

/**
 * Totals per currency and a dense series: every bucket for every currency seen, zeros included, so charts need no
 * filling.
 */
export function revenueOf(
  payments: MoneyBucket[],
  refunds: MoneyBucket[],
  periods: Date[],
): { by_currency: RevenueRow[]; by_period: PeriodRevenueRow[] } {
  const key = (start: Date, currency: string) => `${start.getTime()}|${currency}`;
  const paid = new Map(payments.map((bucket) => [key(bucket.period_start, bucket.currency), bucket]));
  const refunded = new Map(refunds.map((bucket) => [key(bucket.period_start, bucket.currency), bucket]));
  const currencies = [...new Set([...payments, ...refunds].map((bucket) => bucket.currency))].sort();
  const sum = (buckets: MoneyBucket[], currency: string, field: 'amount' | 'count') =>
    buckets.reduce((total, bucket) => (bucket.currency === currency ? total + bucket[field] : total), 0);
  return {
    by_currency: currencies.map((currency) => ({
      currency,
      ...figures(
        sum(payments, currency, 'amount'),
        sum(refunds, currency, 'amount'),
        sum(payments, currency, 'count'),
        sum(refunds, currency, 'count'),
      ),
    })),
    by_period: periods.flatMap((start) =>
      currencies.map((currency) => {
        const inPayments = paid.get(key(start, currency));
        const inRefunds = refunded.get(key(start, currency));
        return {
          period_start: start,
          currency,
          ...figures(inPayments?.amount ?? 0, inRefunds?.amount ?? 0, inPayments?.count ?? 0, inRefunds?.count ?? 0),
        };
      }),
    ),
  };
}

function subscriptionsOf(
  plans: LivePlanRow[],
  mrr: MrrRow[],
  movements: { started: number; canceled: number },
): OverviewView['subscriptions'] {
  const total = (field: 'live' | 'past_due' | 'cancel_at_period_end') =>
    plans.reduce((sum, plan) => sum + plan[field], 0);
  return {
    live: total('live'),
    past_due: total('past_due'),
    cancel_at_period_end: total('cancel_at_period_end'),
    active_by_plan: plans,
    mrr: mrr.flatMap((row) => (row.currency === null ? [] : [{ currency: row.currency, amount: row.amount }])),
    mrr_unpriced: mrr.find((row) => row.currency === null)?.subscriptions ?? 0,
    ...movements,
  };
}

/**
 * Staff's view of the money: revenue over a range, subscriptions and MRR now, credit movements.
 * Six set-based queries, independent of one another, run concurrently.
 */
export class BillingOverviewService {
  constructor(
    private readonly db: Kysely<Tables>,
    private readonly payments: PaymentProvider,
  ) {}

  async overview(query: OverviewQuery, now = new Date()): Promise<OverviewView> {
    const { range, periods } = resolveRange(query, now);
    const [payments, refunds, plans, mrr, movements, credits] = await Promise.all([
      paymentsByBucket(this.db, range, query.interval),
      refundsByBucket(this.db, range, query.interval),
      livePlans(this.db),
      mrrByCurrency(this.db),
      subscriptionMovements(this.db, range),
      creditTotals(this.db, range),
    ]);
    const creditsView: CreditsView = { issued: credits.purchased + credits.granted + credits.gifted, ...credits };
    return {
      range: { ...range, interval: query.interval },
      revenue: revenueOf(payments, refunds, periods),
      subscriptions: subscriptionsOf(plans, mrr, movements),
      credits: creditsView,
    };
  }

  /**
   * The provider dashboard page of one of our records. A record made under another provider than
   * the one configured now (a deployment moved from local to Stripe) has no page there: refused
   * rather than answered with a link that leads nowhere.
   */
  async deepLink(type: DeepLinkType, id: string): Promise<DeepLinkView> {
    const found = await findProviderObject(this.db, type, id);
    if (found === undefined) throw notFound();
    if (found.provider !== this.payments.kind) {
      throw invalidState({
        reason: `this ${type} belongs to another payment provider than the one configured`,
        provider: found.provider,
        configured_provider: this.payments.kind,
      });
    }
    return {
      type,
      id,
      provider: this.payments.kind,
      provider_id: found.provider_id,
      url: this.payments.dashboardUrl(type, found.provider_id),
    };
  }
}
