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
const ANSWER = "Answers 200 with the subscription as stored afterwards (the list's row shape).";
const COMMON_ERRORS =
  '404 `not_found` for an unknown id; 422 `invalid_state` (details `reason`, `status`, `cancel_at_period_end`) ' +
  'when the subscription is canceled or incomplete_expired; 422 `invalid_state` (details `reason`, `provider`) ' +
  'when it was made with another payment provider than the configured one';
const PROVIDER_ERRORS =
  '422 `invalid_request` when the payment provider refuses (details `reason`, `provider_code`, ' +
  '`provider_message`); 503 `unavailable` when it cannot be reached. Refusals change nothing.';

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
          `Cancels at the payment provider. \`when: period_end\` (default): it stays active, and its tier with it, ` +
          `until \`current_period_end\`, then ends instead of renewing (\`cancel_at_period_end\` true; undo with ` +
          `resume). \`when: now\`: it is canceled at once and the user loses the plan's tier (no refund is made; ` +
          `refund the payment separately). ${COMMON_ERRORS}; 422 \`invalid_state\` for \`period_end\` when it is ` +
          `already set to cancel at period end; ${PROVIDER_ERRORS} Audited (\`billing.subscription.cancel\`); ` +
          `dashboard event \`billing.subscription_canceled\`. ${ANSWER}`,
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
          `Undoes a cancel at period end at the payment provider: the subscription renews again ` +
          `(\`cancel_at_period_end\` false). ${COMMON_ERRORS}; 422 \`invalid_state\` unless it is trialing, active ` +
          `or past_due and set to cancel at period end; ${PROVIDER_ERRORS} Audited ` +
          `(\`billing.subscription.resume\`); dashboard event \`billing.subscription_resumed\`. ${ANSWER}`,
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
            `Exists only while the embedded \`local\` payment provider runs (no money moves; absent with Stripe), ` +
            `to try what a renewal does. \`outcome: paid\`: the next period is invoiced and paid (an invoice and a ` +
            `subscription payment are recorded, \`current_period_end\` moves on a period), or, when the ` +
            `subscription is set to cancel at period end, it ends instead (status canceled, tier removed). ` +
            `\`outcome: failed\`: the charge fails, the invoice stays open and the subscription becomes past_due ` +
            `(it keeps its tier). The provider's events go through the same fulfilment as Stripe's webhooks. ` +
            `${COMMON_ERRORS}; 422 \`invalid_request\` when the provider refuses (details \`provider_code\`). ` +
            `Audited (\`billing.subscription.simulate_renewal\`). ${ANSWER}`,
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
          'Moves every trialing, active or past_due subscription on `fromProductId` to `newProviderPriceId` (an ' +
          'active price of the plan `toProductId`) at the provider, without proration, 4 at a time; each moved ' +
          "subscription gets the new product and its user the new plan's tier. Per-subscription failures are " +
          "counted in `failed` and listed in `failures` (subscription, subscriber, the provider's reason). Errors: 400 `validation_failed` when `confirm` is not true; 404 `not_found` for " +
          'an unknown product; 422 `invalid_request` when `toProductId` is not a plan or the price is not an ' +
          'active price of it. Audited once (`plans.subscribers.migrate`, failures listed).',
        body: migrateSubscribersBody,
        response: { 200: migrateSubscribersResult },
      },
    },
    (request) => migratePlanSubscribers(deps.db, deps.write, deps.payments, actorOf(request), request.body),
  );
}
