import { z } from 'zod';
import { isoDateTime } from '../../../lib/instant.js';
import { noTextFilter, pageQuery, pagedResponse } from '../../../kernel/pagination.js';

// Billing routes write snake_case. Money is integer minor units with a lowercase ISO 4217 currency.

const dateTime = isoDateTime();
const PAYMENT_KINDS = ['credit_pack', 'subscription'] as const;
const PAYMENT_STATUSES = ['succeeded', 'partially_refunded', 'refunded'] as const;
const INVOICE_STATUSES = ['draft', 'open', 'paid', 'void', 'uncollectible'] as const;
const PROVIDERS = ['local', 'stripe'] as const;
/** The payment amount column's own ceiling (bigint), kept inside exact JSON numbers. */
const MAX_AMOUNT = 999_999_999_999;

export const idParams = z.object({ id: z.guid() });

export const refundBody = z
  .object({
    amount: z
      .number()
      .int()
      .min(1)
      .max(MAX_AMOUNT)
      .optional()
      .describe("Minor units of the payment's currency; omitted: all that is left to refund."),
    reason: z
      .string()
      .trim()
      .min(3)
      .max(500)
      .describe('Why: kept on the refund and in the audit log, and sent to the provider.'),
  })
  .strict();
export type RefundInput = z.infer<typeof refundBody>;

export const paymentBody = z
  .object({
    id: z.guid(),
    user_id: z.guid(),
    provider: z.enum(PROVIDERS),
    provider_payment_id: z.string(),
    product_id: z.guid().nullable(),
    price_id: z.guid().nullable(),
    kind: z.enum(PAYMENT_KINDS),
    quantity: z.number().int(),
    credits: z
      .number()
      .int()
      .nullable()
      .describe('Credits the payment added (credit packs: credits × quantity); null for subscriptions.'),
    amount: z.number().int(),
    currency: z.string(),
    amount_refunded: z.number().int(),
    status: z.enum(PAYMENT_STATUSES),
    checkout_session_id: z.guid().nullable(),
    provider_invoice_id: z.string().nullable(),
    created_at: z.date(),
    updated_at: z.date(),
  })
  .meta({ id: 'Payment', description: 'A payment, with what it bought and its refunds.' });
export type PaymentView = z.infer<typeof paymentBody>;

const userEmail = z
  .string()
  .nullable()
  .describe("The player's email, so staff see who paid; null when they have none.");

export const paymentListItem = paymentBody
  .extend({ user_email: userEmail })
  .meta({ id: 'PaymentListItem', description: "A payment as the staff list shows it, with the player's email." });
export type PaymentListItemView = z.infer<typeof paymentListItem>;
export const paymentsBody = pagedResponse(paymentListItem);

export const refundResponse = z
  .object({
    id: z.guid(),
    payment_id: z.guid(),
    user_id: z.guid(),
    provider_refund_id: z.string(),
    amount: z.number().int(),
    currency: z.string(),
    reason: z.string(),
    credits_clawed_back: z.number().int().describe('Credits taken back from what was left of the pack.'),
    shortfall: z
      .number()
      .int()
      .describe('Credits this refund covered that were already spent or expired, so could not be taken back.'),
    actor_id: z.guid().nullable().describe('The staff member; null for a refund made at the provider (its dashboard).'),
    source: z
      .enum(['staff', 'provider'])
      .describe('`staff`: made through this service; `provider`: made at the provider, recorded from its event.'),
    created_at: z.date(),
    payment: paymentBody.describe('The payment after the refund.'),
  })
  .meta({ id: 'Refund', description: 'A refund: the amount, the credits clawed back, and the payment after it.' });
export type RefundView = z.infer<typeof refundResponse>;

const createdRange = {
  user_id: z.guid().optional(),
  created_from: dateTime.optional().describe('Inclusive lower bound of created_at.'),
  created_to: dateTime.optional().describe('Exclusive upper bound of created_at.'),
};

export const listPaymentsQuery = pageQuery(['created_at', 'amount'], { field: 'created_at', direction: 'desc' }).extend(
  {
    q: z
      .string()
      .trim()
      .min(1)
      .max(200)
      .optional()
      .describe("The payment's id or the provider's payment id (exact), or part of the payer's email."),
    ...createdRange,
    status: z.enum(PAYMENT_STATUSES).optional(),
    kind: z.enum(PAYMENT_KINDS).optional(),
    product_id: z.guid().optional(),
  },
);
export type ListPaymentsQuery = z.infer<typeof listPaymentsQuery>;

export const invoiceBody = z
  .object({
    id: z.guid(),
    user_id: z.guid(),
    user_email: userEmail,
    provider: z.enum(PROVIDERS),
    provider_invoice_id: z.string(),
    provider_subscription_id: z.string().nullable(),
    provider_payment_id: z.string().nullable(),
    status: z.enum(INVOICE_STATUSES),
    amount_due: z.number().int(),
    amount_paid: z.number().int(),
    currency: z.string(),
    hosted_url: z.string().nullable(),
    period_start: z.date().nullable(),
    period_end: z.date().nullable(),
    created_at: z.date(),
    last_event_at: z.date(),
  })
  .meta({ id: 'Invoice', description: 'An invoice from the payment provider.' });
export type InvoiceView = z.infer<typeof invoiceBody>;
export const invoicesBody = pagedResponse(invoiceBody);

export const listInvoicesQuery = pageQuery(['created_at', 'amount_due'], {
  field: 'created_at',
  direction: 'desc',
}).extend({
  q: noTextFilter,
  ...createdRange,
  status: z.enum(INVOICE_STATUSES).optional(),
});
export type ListInvoicesQuery = z.infer<typeof listInvoicesQuery>;
