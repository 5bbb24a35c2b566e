// What each route of routes.ts and local-routes.ts is (permission, errors, schemas, OpenAPI text), named by its
// operationId.
import { z } from 'zod';
import { idempotencyKeyHeaders } from '../../../kernel/idempotency.js';
import { httpUrl } from '../../../lib/url-field.js';
import {
  checkoutSessionBody,
  checkoutSessionResult,
  myBillingView,
  myInvoicesPage,
  myInvoicesQuery,
  portalSessionBody,
  portalSessionResult,
} from './schemas.js';

const tags = ['billing'];

export const createCheckoutSession = {
  config: {
    errors: {
      404: ['product'],
      409: ['conflict'],
      422: ['invalid_request', 'price_mismatch', 'product_has_no_price'],
    },
  },
  schema: {
    operationId: 'createCheckoutSession',
    tags,
    summary: 'Start a checkout',
    description:
      'Sends the player to the payment provider to buy a credit pack or subscribe to a plan (`productId` or ' +
      '`priceId`). Idempotent with an `Idempotency-Key` header (a key belongs to the player who sent it). In ' +
      'depth: [docs/api/billing.md](docs/api/billing.md#start-a-checkout).',
    headers: idempotencyKeyHeaders('checkout'),
    body: checkoutSessionBody,
    response: { 200: checkoutSessionResult },
  },
} as const;

export const getMyBilling = {
  schema: {
    operationId: 'getMyBilling',
    tags,
    summary: "The caller's billing",
    description:
      "The caller's customer id at the configured provider (null before the first checkout), live " +
      'subscription (trialing, active or past due; null when none), tier and credit balance.',
    response: { 200: myBillingView },
  },
} as const;

export const listMyBillingInvoices = {
  schema: {
    operationId: 'listMyBillingInvoices',
    tags,
    summary: "The caller's invoices",
    description: "The caller's own invoices, newest first; `meta.total` counts them all.",
    querystring: myInvoicesQuery,
    response: { 200: myInvoicesPage },
  },
} as const;

export const createBillingPortalSession = {
  config: { errors: { 422: ['invalid_request'] } },
  schema: {
    operationId: 'createBillingPortalSession',
    tags,
    summary: 'Open the billing portal',
    description:
      "The provider's self-service page (payment methods, plan, invoices) for the caller; a player without a " +
      'customer yet gets one made. Errors: 400 SchemaError (`return_url` not an absolute http(s) URL in plain ' +
      'characters); 422 `invalid_request` (`return_url` not on an allowed origin; the provider refused); 503 ' +
      '`unavailable`.',
    body: portalSessionBody,
    response: { 200: portalSessionResult },
  },
} as const;

export const receiveStripeWebhook = {
  config: { errors: { 400: ['invalid_signature', 'invalid_event'] } },
  schema: {
    operationId: 'receiveStripeWebhook',
    tags,
    summary: 'Stripe webhook',
    description:
      "Stripe's event deliveries. The `Stripe-Signature` header is verified over the raw body (5 minute " +
      'tolerance); each event id is processed once (a redelivery answers 200 and does nothing). 400 ' +
      '`invalid_signature`: missing, wrong or too old; `invalid_event`: signed but unreadable.',
    response: { 200: z.object({ received: z.literal(true) }).describe('The event was received.') },
  },
} as const;

// The local provider's pages (local-routes.ts), served only when it is the configured provider.

const localCheckoutParams = z.object({ id: z.string().min(1).max(200) });
/** A redirect has no body; the Location header is where the player goes. */
const redirect = z.null().describe("Location: the checkout's success or cancel URL");

export const getLocalCheckoutPage = {
  config: { errors: { 404: ['checkout'] } },
  schema: {
    tags,
    operationId: 'getLocalCheckoutPage',
    summary: 'Local provider: checkout page',
    description:
      'An HTML page with the product, the amount, and Pay and Cancel buttons. 404 `checkout` (unknown id). ' +
      'Only served by the local payment provider.',
    params: localCheckoutParams,
    response: { 200: z.string().describe('text/html') },
  },
} as const;

export const payLocalCheckout = {
  config: { errors: { 404: ['checkout'], 422: ['invalid_state'] } },
  schema: {
    tags,
    operationId: 'payLocalCheckout',
    summary: 'Local provider: pay a checkout',
    description:
      'Pays the checkout, fulfils it (credits, subscription, tier) and answers 303 to its success URL. 404 ' +
      '`checkout`; 422 `invalid_state` (a checkout stored with a success or cancel URL the page cannot send ' +
      'the player to: nothing is paid).',
    params: localCheckoutParams,
    response: { 303: redirect },
  },
} as const;

export const cancelLocalCheckout = {
  config: { errors: { 404: ['checkout'], 422: ['invalid_state'] } },
  schema: {
    tags,
    operationId: 'cancelLocalCheckout',
    summary: 'Local provider: cancel a checkout',
    description:
      'Expires the checkout and answers 303 to its cancel URL (its success URL if it was already paid). 404 ' +
      '`checkout`; 422 `invalid_state` (as for paying: nothing changes).',
    params: localCheckoutParams,
    response: { 303: redirect },
  },
} as const;

export const getLocalBillingPortalPage = {
  config: { errors: { 422: ['invalid_request'] } },
  schema: {
    tags,
    operationId: 'getLocalBillingPortalPage',
    summary: 'Local provider: billing portal page',
    description:
      'Where `POST /v1/me/billing/portal-session` sends players on the local provider: test payments keep ' +
      'no cards or invoices to manage, so the page says so and links back to `return_url` (http or https ' +
      'only, and on an allowed origin when `CHECKOUT_ALLOWED_ORIGINS` is set: else 422 `invalid_request`).',
    querystring: z.object({ return_url: httpUrl({ max: 2000 }) }),
    response: { 200: z.string().describe('text/html') },
  },
} as const;

export const getLocalBillingObject = {
  config: { perms: ['billing.read'], errors: { 404: ['not_found'] } },
  schema: {
    operationId: 'getLocalBillingObject',
    tags,
    summary: 'Local provider: an object as the provider holds it',
    description:
      "Where the local provider's deep links (`GET /v1/admin/billing/deep-link/{type}/{id}`) lead: the " +
      "provider's own record of a customer, subscription, invoice or payment (with its refunds), as Stripe's " +
      'dashboard would show it. 404 `not_found` for an id the provider does not hold. Only served by the ' +
      'local payment provider.',
    params: z.object({
      type: z.enum(['customer', 'subscription', 'invoice', 'payment']),
      id: z.string().min(1).max(200),
    }),
    response: {
      200: z
        .object({
          provider: z.literal('local'),
          type: z.string(),
          id: z.string(),
          object: z.record(z.string(), z.unknown()),
        })
        .describe('The object as the local provider holds it.'),
    },
  },
} as const;
