// What each route of routes.ts is (permission, errors, schemas, OpenAPI text), named by its operationId.
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

const tags = ['billing'];
const read = { perms: ['billing.read'] } as const;
const write = { perms: ['billing.write'] } as const;

export const listBillingSubscriptions = {
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
} as const;

export const cancelBillingSubscription = {
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
} as const;

export const resumeBillingSubscription = {
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
} as const;

export const simulateBillingSubscriptionRenewal = {
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
} as const;

export const migratePlanSubscribers = {
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
} as const;
