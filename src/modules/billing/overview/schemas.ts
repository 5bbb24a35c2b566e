import { z } from 'zod';
import { isoDateTime } from '../../../lib/instant.js';

// Billing routes write snake_case. Money is integer minor units with a lowercase ISO 4217 currency,
// and amounts of different currencies are never added together: every money figure sits in a row
// that names its currency.

const dateTime = isoDateTime();
export const OVERVIEW_INTERVALS = ['day', 'week', 'month'] as const;
export type OverviewInterval = (typeof OVERVIEW_INTERVALS)[number];
export const DEEP_LINK_TYPES = ['customer', 'subscription', 'invoice', 'payment'] as const;
export type DeepLinkType = (typeof DEEP_LINK_TYPES)[number];
const PROVIDERS = ['local', 'stripe'] as const;

export const overviewQuery = z.object({
  from: dateTime.optional().describe('Inclusive start of the range; default 30 days before `to`.'),
  to: dateTime.optional().describe('Exclusive end of the range; default now.'),
  interval: z
    .enum(OVERVIEW_INTERVALS)
    .default('day')
    .describe('Width of `revenue.by_period` buckets, in UTC (weeks start on Monday).'),
});
export type OverviewQuery = z.infer<typeof overviewQuery>;

const minor = z.number().int();
const count = z.number().int().min(0);

const revenueFigures = {
  currency: z.string(),
  gross: minor.describe('Sum of payments made in the range (before any refund).'),
  refunded: minor.describe('Sum of refunds made in the range, whichever payment they refund.'),
  net: minor.describe('`gross` − `refunded`; negative when refunds outweigh new money.'),
  payments: count.describe('Number of payments made in the range.'),
  refunds: count.describe('Number of refunds made in the range.'),
};

const revenue = z.object({
  by_currency: z
    .array(z.object(revenueFigures))
    .describe('One row per currency with a payment or a refund in the range, by currency code.'),
  by_period: z
    .array(z.object({ period_start: z.date(), ...revenueFigures }))
    .describe(
      'Every bucket of the range (zeros where nothing happened) for each currency of `by_currency`, by ' +
        '`period_start` then currency. The first and last buckets may be cut by `from` and `to`.',
    ),
});

const planRow = z.object({
  product_id: z.guid().nullable().describe('Null for subscriptions whose product is unknown to the catalog.'),
  name: z.string().nullable(),
  tier_key: z.string().nullable(),
  live: count.describe('Trialing, active or past_due subscriptions.'),
  past_due: count,
  cancel_at_period_end: count.describe('Live subscriptions set to end at the end of their period.'),
});

const subscriptions = z.object({
  live: count.describe('Subscriptions now trialing, active or past_due.'),
  past_due: count.describe('Live subscriptions now past_due.'),
  cancel_at_period_end: count.describe('Live subscriptions now set to end at the end of their period.'),
  active_by_plan: z.array(planRow).describe('Live subscriptions now, by plan: most live first, then by name.'),
  mrr: z
    .array(z.object({ currency: z.string(), amount: minor }))
    .describe(
      'Monthly recurring revenue now, per currency: the list price of every live subscription, yearly prices ' +
        "divided by 12; each currency's sum is rounded once (half away from zero). Discounts are not taken off.",
    ),
  mrr_unpriced: count.describe('Live subscriptions left out of `mrr` because their price is not in the catalog.'),
  started: count.describe('Subscriptions created in the range, whatever their status now.'),
  canceled: count.describe(
    'Subscriptions whose cancellation was requested in the range (`canceled_at`), including those set to end at ' +
      'period end.',
  ),
});

const credits = z.object({
  issued: count.describe('`purchased` + `granted` + `gifted`.'),
  purchased: count,
  granted: count,
  gifted: count,
  spent: count,
  expired: count,
  clawed_back: count.describe('Taken back by refunds of credit packs.'),
  adjusted: minor.describe('Net of staff adjustments (signed).'),
  outstanding: minor.describe('Balance of every user together now, whatever the range.'),
});

export const overviewResponse = z
  .object({
    range: z.object({ from: z.date(), to: z.date(), interval: z.enum(OVERVIEW_INTERVALS) }),
    revenue,
    subscriptions,
    credits: credits.describe(
      'Ledger movements in the range (all positive except `adjusted`), and the outstanding balance now.',
    ),
  })
  .describe('Revenue, subscriptions and credits over the range.');
export type OverviewView = z.infer<typeof overviewResponse>;
export type RevenueRow = z.infer<typeof revenue>['by_currency'][number];
export type PeriodRevenueRow = z.infer<typeof revenue>['by_period'][number];
export type PlanRow = z.infer<typeof planRow>;
export type CreditsView = z.infer<typeof credits>;

export const deepLinkParams = z.object({
  type: z.enum(DEEP_LINK_TYPES),
  id: z.guid().describe('Our id: the user id for `customer`, else the id of the subscription, invoice or payment.'),
});

export const deepLinkResponse = z
  .object({
    type: z.enum(DEEP_LINK_TYPES),
    id: z.guid(),
    provider: z.enum(PROVIDERS),
    provider_id: z.string().describe("The provider's id of the object (Stripe: `cus_…`, `sub_…`, `in_…`, `pi_…`)."),
    url: z.string().describe("The object's page in the provider's dashboard."),
  })
  .describe('Where the billing record is at the payment provider.');
export type DeepLinkView = z.infer<typeof deepLinkResponse>;
