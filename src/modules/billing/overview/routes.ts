import type { Deps } from '../../../composition/platform.js';
import type { ZodApp } from '../../../kernel/http/zod-app.js';
import { deepLinkParams, deepLinkResponse, overviewQuery, overviewResponse } from './schemas.js';
import { BillingOverviewService, MAX_PERIODS, MAX_RANGE_DAYS } from './service.js';

const tags = ['billing'];
const read = { perms: ['billing.read'] } as const;

export function registerBillingOverviewRoutes(app: ZodApp, deps: Deps<'db' | 'payments'>): void {
  const service = new BillingOverviewService(deps.db, deps.payments);

  app.get(
    '/v1/admin/billing/overview',
    {
      config: { ...read, errors: { 422: ['invalid_request'] } },
      schema: {
        operationId: 'getBillingOverview',
        tags,
        summary: 'Billing overview',
        description:
          `Revenue, subscriptions and credits at a glance. The range is \`[from, to)\`: \`to\` defaults to now, ` +
          `\`from\` to 30 days before \`to\`. Money is in minor units and never added across currencies. ` +
          `\`revenue\`: payments and refunds made in the range, per currency (\`by_currency\`) and per UTC ` +
          `\`interval\` bucket (\`by_period\`: every bucket for every currency of \`by_currency\`, zeros included; ` +
          `weeks start on Monday; the first and last buckets may be partial). A refund counts when it is made, so ` +
          `it may fall in another bucket, or another range, than its payment. \`subscriptions\`: live (trialing, ` +
          `active, past_due) subscriptions now, by plan, and MRR now (list prices, yearly ÷ 12, rounded once per ` +
          `currency; live subscriptions on a price the catalog does not know are counted in \`mrr_unpriced\`), plus ` +
          `those started and cancellations requested in the range. \`credits\`: ledger movements in the range by ` +
          `kind and the outstanding balance of all users now. 422 \`invalid_request\` when \`from\` is not before ` +
          `\`to\` (\`details.from\`, \`details.to\`), when the range is longer than ${MAX_RANGE_DAYS} days ` +
          `(\`details.max_days\`), or when it holds more than ${MAX_PERIODS} buckets of \`interval\` ` +
          `(\`details.periods\`, \`details.max_periods\`).`,
        querystring: overviewQuery,
        response: { 200: overviewResponse },
      },
    },
    (request) => service.overview(request.query),
  );

  app.get(
    '/v1/admin/billing/deep-link/:type/:id',
    {
      config: { ...read, errors: { 404: ['not_found'], 422: ['invalid_state'] } },
      schema: {
        operationId: 'getBillingDeepLink',
        tags,
        summary: 'Link to a billing record at the payment provider',
        description:
          "The page of a customer, subscription, invoice or payment in the payment provider's dashboard " +
          "(Stripe's, with `/test/` for a test key; the local provider's own page otherwise). `id` is our id: the " +
          "user's id for `customer`, else the id of the subscription, invoice or payment as the staff lists show " +
          'it. 400 SchemaError for an unknown `type` or an `id` that is not a uuid; 404 `not_found` when there is ' +
          'no such record (for `customer`: the user has never been to checkout); 422 `invalid_state` when the ' +
          'record was made with another provider than the one configured now (`details.provider`, ' +
          '`details.configured_provider`).',
        params: deepLinkParams,
        response: { 200: deepLinkResponse },
      },
    },
    (request) => service.deepLink(request.params.type, request.params.id),
  );
}
