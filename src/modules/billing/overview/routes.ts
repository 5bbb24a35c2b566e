import type { Deps } from '../../../composition/platform.js';
import type { ZodApp } from '../../../kernel/http/zod-app.js';
import { deepLinkParams, deepLinkResponse, overviewQuery, overviewResponse } from './schemas.js';
import { BillingOverviewService } from './service.js';

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
          'Revenue, subscriptions and credits at a glance over `[from, to)` (default: the last 30 days), per ' +
          'currency and per `interval` bucket. Money is in minor units, never added across currencies. In depth: ' +
          '[docs/api/billing.md](docs/api/billing.md#billing-overview).',
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
          "The page of a customer, subscription, invoice or payment in the payment provider's dashboard, by our id " +
          "(the user's id for `customer`). In depth: " +
          '[docs/api/billing.md](docs/api/billing.md#link-to-a-billing-record-at-the-payment-provider).',
        params: deepLinkParams,
        response: { 200: deepLinkResponse },
      },
    },
    (request) => service.deepLink(request.params.type, request.params.id),
  );
}
