import { z } from 'zod';
import { httpUrl } from '../../../lib/url-field.js';
import { idempotencyKeyHeaders } from '../../../kernel/idempotency.js';
import { DEFAULT_PER_PAGE, MAX_PER_PAGE, pagedResponse } from '../../../kernel/pagination.js';

/** Operation 6's body, camelCase as the spec writes it. */
export const checkoutSessionBody = z
  .object({
    productId: z.guid().optional(),
    priceId: z.string().min(1).optional(),
    successUrl: httpUrl(),
    cancelUrl: httpUrl(),
    quantity: z.number().int().min(1).max(99).optional(),
    promotionCode: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9_-]{2,49}$/)
      .optional()
      .describe(
        'A promotion code the player entered (any case). Refused with 422 `invalid_request` and `details.reason` ' +
          'when it cannot be used.',
      ),
  })
  .strict()
  .refine((body) => body.productId !== undefined || body.priceId !== undefined, {
    error: 'provide productId or priceId',
    path: ['productId'],
  })
  .meta({
    examples: [
      {
        productId: '5b0c3f9e-7d4a-4c8e-9f1a-2e6b8d3c4a71',
        successUrl: 'https://play.nimbusplay.example/billing/done',
        cancelUrl: 'https://play.nimbusplay.example/billing',
        quantity: 2,
      },
    ],
  });
export type CheckoutSessionBody = z.infer<typeof checkoutSessionBody>;

export const checkoutSessionResult = z
  .object({ url: z.string().nullable(), id: z.string() })
  .describe('The checkout session: its id, and the URL to send the player to.')
  .meta({
    examples: [
      {
        url: 'https://checkout.stripe.com/c/pay/cs_test_a1B2c3D4e5F6g7H8',
        id: 'cs_test_a1B2c3D4e5F6g7H8',
      },
    ],
  });

export const portalSessionBody = z.object({ return_url: httpUrl() }).strict();
export const portalSessionResult = z
  .object({ url: z.string() })
  .describe('The billing portal URL to send the player to.');

const subscriptionView = z.object({
  id: z.guid(),
  status: z.string(),
  product_id: z.guid().nullable(),
  product_name: z.string().nullable(),
  tier_key: z.string().nullable(),
  provider_price_id: z.string().nullable(),
  cancel_at_period_end: z.boolean(),
  current_period_end: z.string().nullable(),
  created_at: z.string(),
});
export type SubscriptionView = z.infer<typeof subscriptionView>;

export const myBillingView = z
  .object({
    provider: z.enum(['local', 'stripe']),
    /** The caller's customer id at the provider; null until the first checkout. */
    customer_id: z.string().nullable(),
    /** The live (trialing, active or past due) subscription; null when none. */
    subscription: subscriptionView.nullable(),
    tier: z.string().nullable(),
    credit_balance: z.number().int(),
  })
  .describe("The caller's billing: provider, subscription, tier and credit balance.");
export type MyBillingView = z.infer<typeof myBillingView>;

export const invoiceView = z
  .object({
    id: z.guid(),
    provider_invoice_id: z.string(),
    status: z.string(),
    amount_due: z.number().int(),
    amount_paid: z.number().int(),
    currency: z.string(),
    hosted_url: z.string().nullable(),
    period_start: z.string().nullable(),
    period_end: z.string().nullable(),
    created_at: z.string(),
  })
  .describe("One of the caller's invoices.");
export type InvoiceView = z.infer<typeof invoiceView>;

/** The caller's invoices: `page` and `per_page` (no text filter, no sort: newest first). */
export const myInvoicesQuery = z.object({
  page: z.coerce.number().int().min(1).max(1_000_000).default(1),
  per_page: z.coerce.number().int().min(1).max(MAX_PER_PAGE).default(DEFAULT_PER_PAGE),
});
export type MyInvoicesQuery = z.infer<typeof myInvoicesQuery>;
export const myInvoicesPage = pagedResponse(invoiceView);

// The routes' options: errors and OpenAPI text (routes.ts pairs each with its service call).

const tags = ['billing'];

export const checkoutSessionRoute = {
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
};

export const myBillingRoute = {
  schema: {
    operationId: 'getMyBilling',
    tags,
    summary: "The caller's billing",
    description:
      "The caller's customer id at the configured provider (null before the first checkout), live " +
      'subscription (trialing, active or past due; null when none), tier and credit balance.',
    response: { 200: myBillingView },
  },
};

export const myInvoicesRoute = {
  schema: {
    operationId: 'listMyBillingInvoices',
    tags,
    summary: "The caller's invoices",
    description: "The caller's own invoices, newest first; `meta.total` counts them all.",
    querystring: myInvoicesQuery,
    response: { 200: myInvoicesPage },
  },
};

export const portalSessionRoute = {
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
};

export const stripeWebhookRoute = {
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
};

// The local provider's pages (local-routes.ts), served only when it is the configured provider.

const localCheckoutParams = z.object({ id: z.string().min(1).max(200) });
/** A redirect has no body; the Location header is where the player goes. */
const redirect = z.null().describe("Location: the checkout's success or cancel URL");

export const localCheckoutPageRoute = {
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
};

export const payLocalCheckoutRoute = {
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
};

export const cancelLocalCheckoutRoute = {
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
};

export const localPortalRoute = {
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
};

export const localDashboardRoute = {
  config: { perms: ['billing.read'], errors: { 404: ['not_found'] } } as const,
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
};
