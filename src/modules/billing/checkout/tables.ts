import type { ColumnType, Generated } from 'kysely';
import type { DefaultedTimestamp, NullableTimestamp, Timestamp } from '../../../db/column-types.js';
import type { CheckoutMode, PaymentProviderKind } from '../../../adapters/payments/index.js';
import type { BillingSubscriptionStatus } from '../../../db/tables.js';

/** Table types of billing's records (migration 0012), merged into Kysely's `Tables`. */

/** Subscriptions that give their plan's tier. */
export const LIVE_STATUSES: BillingSubscriptionStatus[] = ['trialing', 'active', 'past_due'];

/** bigint minor units, read as a number: amounts are capped well below 2^53. */
type Money = ColumnType<number, number, number>;

export interface BillingCustomersTable {
  user_id: string;
  provider: PaymentProviderKind;
  provider_customer_id: string;
  created_at: DefaultedTimestamp;
  updated_at: DefaultedTimestamp;
}

export type CheckoutStatus = 'open' | 'completed' | 'expired';

export interface BillingCheckoutSessionsTable {
  id: Generated<string>;
  user_id: string;
  provider: PaymentProviderKind;
  provider_checkout_id: string;
  product_id: string;
  price_id: string;
  mode: CheckoutMode;
  quantity: number;
  status: Generated<CheckoutStatus>;
  success_url: string;
  cancel_url: string;
  /** The promotion code entered at checkout (migration 0015). */
  promotion_code_id: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: DefaultedTimestamp;
  completed_at: NullableTimestamp;
  /** The provider's checkout URL as first answered (migration 0033; null on older rows). */
  url: ColumnType<string | null, string | null | undefined, never>;
  /** The player's Idempotency-Key and a hash of the request's body, when one was sent (migration 0033). */
  request_key: ColumnType<string | null, string | null | undefined, never>;
  request_fingerprint: ColumnType<string | null, string | null | undefined, never>;
  /** Credits one unit of the pack adds, fixed at checkout; null for plans (migration 0045). */
  credits: ColumnType<number | null, number | null | undefined, never>;
}

export type PaymentKind = 'credit_pack' | 'subscription';
export type PaymentStatus = 'succeeded' | 'partially_refunded' | 'refunded';

export interface BillingPaymentsTable {
  id: Generated<string>;
  user_id: string;
  provider: PaymentProviderKind;
  provider_payment_id: string;
  product_id: string | null;
  price_id: string | null;
  kind: PaymentKind;
  quantity: Generated<number>;
  credits: number | null;
  amount: Money;
  currency: string;
  amount_refunded: Generated<number>;
  status: Generated<PaymentStatus>;
  checkout_session_id: string | null;
  provider_invoice_id: string | null;
  created_at: DefaultedTimestamp;
  updated_at: DefaultedTimestamp;
}

/** Which payment paid which invoice, reported apart from the invoice (migration 0015). */
export interface BillingInvoicePaymentsTable {
  provider: PaymentProviderKind;
  provider_invoice_id: string;
  provider_payment_id: string;
  amount: ColumnType<number | string, number, never>;
  currency: string;
  created_at: DefaultedTimestamp;
}

export type InvoiceStatus = 'draft' | 'open' | 'paid' | 'void' | 'uncollectible';

export interface BillingInvoicesTable {
  id: Generated<string>;
  user_id: string;
  provider: PaymentProviderKind;
  provider_invoice_id: string;
  provider_subscription_id: string | null;
  provider_payment_id: string | null;
  status: InvoiceStatus;
  amount_due: Money;
  amount_paid: Money;
  currency: string;
  hosted_url: string | null;
  period_start: NullableTimestamp;
  period_end: NullableTimestamp;
  created_at: Timestamp;
  last_event_at: Timestamp;
}

export interface BillingWebhookEventsTable {
  provider: PaymentProviderKind;
  event_id: string;
  type: string;
  occurred_at: Timestamp;
  received_at: DefaultedTimestamp;
  /** Why the event was recorded and not acted on; null when it was applied (migration 0045). */
  ignored_reason: ColumnType<string | null, string | null | undefined, string | null>;
}

/** Migration 0058's views: what checkout publishes of its records for the family to read (the overview). */
export type CustomerDirectoryView = Pick<BillingCustomersTable, 'user_id' | 'provider' | 'provider_customer_id'>;
export type InvoiceDirectoryView = Pick<BillingInvoicesTable, 'id' | 'provider' | 'provider_invoice_id'>;
export type PaymentDirectoryView = Pick<
  BillingPaymentsTable,
  'id' | 'provider' | 'provider_payment_id' | 'amount' | 'currency' | 'created_at'
>;

declare module '../../../db/tables.js' {
  interface Tables {
    billing_customers: BillingCustomersTable;
    billing_checkout_sessions: BillingCheckoutSessionsTable;
    billing_payments: BillingPaymentsTable;
    billing_invoices: BillingInvoicesTable;
    billing_webhook_events: BillingWebhookEventsTable;
    billing_invoice_payments: BillingInvoicePaymentsTable;
    /** @published (a view: a customer's provider id) */
    customer_directory: CustomerDirectoryView;
    /** @published (a view: an invoice's provider id) */
    invoice_directory: InvoiceDirectoryView;
    /** @published (a view: a payment's provider id, amount, currency and time) */
    payment_directory: PaymentDirectoryView;
  }
  /** Columns migration 0012 adds to the subscriptions table of migration 0008. */
  interface BillingSubscriptionsTable {
    provider_customer_id: string | null;
    canceled_at: NullableTimestamp;
    last_event_at: NullableTimestamp;
  }
}
