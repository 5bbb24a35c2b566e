import { z } from 'zod';
import { httpUrl } from '../../../lib/url-field.js';
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
