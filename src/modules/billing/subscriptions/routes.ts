import { LocalPaymentProvider } from '../../../adapters/payments/local.js';
import { actorOf } from '../../../kernel/auth.js';
import type { Deps } from '../../../composition/platform.js';
import type { ZodApp } from '../../../kernel/http/zod-app.js';
import { Fulfilment } from '../checkout/index.js';
import { migratePlanSubscribers } from './migrate.js';
import {
  cancelSubscriptionBody,
  listSubscriptionsQuery,
  migrateSubscribersBody,
  migrateSubscribersResult,
  resumeSubscriptionBody,
  simulateRenewalBody,
  subscriptionBody,
  subscriptionIdParams,
  subscriptionsBody,
} from './schemas.js';
import { BillingSubscriptionsService, RenewalSimulation } from './service.js';

const tags = ['billing'];
const read = { perms: ['billing.read'] } as const;
const write = { perms: ['billing.write'] } as const;

export function registerBillingSubscriptionRoutes(app: ZodApp, deps: Deps<'db' | 'log' | 'payments' | 'write'>): void {
  const service = new BillingSubscriptionsService(deps.db, deps.write, deps.payments);

  app.get(
    '/v1/admin/billing/subscriptions',
    {
      config: read,
      schema: {
        operationId: 'listBillingSubscriptions',
        tags,
        summary: 'List subscriptions',
        description:
          "Players' plan subscriptions as the payment provider last reported them, with the subscriber's email " +
          "and the plan's name. Paged with `meta.total`, newest first by default " +
          '(`sort=created_at|current_period_end:asc|desc`; no known period end sorts last). Filters `status`, ' +
          "`product_id`, `user_id`, `cancel_at_period_end` (`true`/`false`) and `q` (part of the subscriber's " +
          'email, any case); all combine.',
        querystring: listSubscriptionsQuery,
        response: { 200: subscriptionsBody },
      },
    },
    (request) => service.list(request.query),
  );

  app.post(
    '/v1/admin/billing/subscriptions/:id/cancel',
    {
      config: { ...write, errors: { 404: ['not_found'], 422: ['invalid_request', 'invalid_state'] } },
      schema: {
        operationId: 'cancelBillingSubscription',
        tags,
        summary: 'Cancel a subscription',
        description:
          'Cancels at the payment provider, at period end (default; undo with resume) or `now` (the tier goes at ' +
          'once, no refund). Answers the subscription as stored afterwards. In depth: ' +
          '[docs/api/billing.md](docs/api/billing.md#cancel-a-subscription).',
        params: subscriptionIdParams,
        body: cancelSubscriptionBody,
        response: { 200: subscriptionBody },
      },
    },
    (request) => service.cancel(actorOf(request), request.params.id, request.body),
  );

  app.post(
    '/v1/admin/billing/subscriptions/:id/resume',
    {
      config: { ...write, errors: { 404: ['not_found'], 422: ['invalid_request', 'invalid_state'] } },
      schema: {
        operationId: 'resumeBillingSubscription',
        tags,
        summary: 'Resume a subscription set to cancel',
        description:
          'Undoes a cancel at period end at the payment provider: the subscription renews again. Answers the ' +
          'subscription as stored afterwards. In depth: ' +
          '[docs/api/billing.md](docs/api/billing.md#resume-a-subscription-set-to-cancel).',
        params: subscriptionIdParams,
        body: resumeSubscriptionBody,
        response: { 200: subscriptionBody },
      },
    },
    (request) => service.resume(actorOf(request), request.params.id, request.body),
  );

  if (deps.payments instanceof LocalPaymentProvider) {
    const simulation = new RenewalSimulation(
      deps.db,
      deps.write,
      deps.payments,
      new Fulfilment(deps.write, deps.payments.kind, deps.log),
    );
    app.post(
      '/v1/admin/billing/subscriptions/:id/simulate-renewal',
      {
        config: { ...write, errors: { 404: ['not_found'], 422: ['invalid_request', 'invalid_state'] } },
        schema: {
          operationId: 'simulateBillingSubscriptionRenewal',
          tags,
          summary: 'Simulate a renewal (local payment provider only)',
          description:
            'Only with the embedded `local` payment provider: runs a renewal that is `paid` or `failed`, through the ' +
            "same fulfilment as Stripe's webhooks. Answers the subscription as stored afterwards. In depth: " +
            '[docs/api/billing.md](docs/api/billing.md#simulate-a-renewal-local-payment-provider-only).',
          params: subscriptionIdParams,
          body: simulateRenewalBody,
          response: { 200: subscriptionBody },
        },
      },
      (request) => simulation.renew(actorOf(request), request.params.id, request.body),
    );
  }

  app.post(
    '/v1/admin/plans/subscribers/migrate',
    {
      config: {
        errors: { 400: ['validation_failed'], 404: ['not_found'], 422: ['invalid_request'] },
        perms: ['plans.write'],
      },
      schema: {
        operationId: 'migratePlanSubscribers',
        tags: ['plans'],
        summary: "Migrate a plan's subscribers to a new price",
        description:
          'Moves every live subscription of one plan to a price of another plan at the provider, without ' +
          "proration; each user gets the new plan's tier. Failures are counted and listed, not thrown; needs " +
          '`confirm: true`. In depth: ' +
          '[docs/api/plans.md](docs/api/plans.md#migrate-a-plans-subscribers-to-a-new-price).',
        body: migrateSubscribersBody,
        response: { 200: migrateSubscribersResult },
      },
    },
    (request) => migratePlanSubscribers(deps.db, deps.write, deps.payments, actorOf(request), request.body),
  );
}
