import type { ColumnType, Generated, Selectable } from 'kysely';
import type { PaymentProviderKind, ProviderRefund } from '../../../adapters/payments/index.js';
import type { DefaultedTimestamp, NullableTimestamp, Timestamp } from '../../../db/column-types.js';

/**
 * Table types of billing's records, merged into Kysely's `Tables`: payments and invoices (migration
 * 0012), which payment paid which invoice and refunds (0014, 0015), refunds reported before their
 * payment (0035). Checkout's fulfilment records what the provider reports through this area's index.
 */

/** bigint minor units, read as a number: amounts are capped well below 2^53. */
type MinorUnits = ColumnType<number, number, number>;

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
  amount: MinorUnits;
  currency: string;
  amount_refunded: Generated<number>;
  status: Generated<PaymentStatus>;
  checkout_session_id: string | null;
  provider_invoice_id: string | null;
  created_at: DefaultedTimestamp;
  updated_at: DefaultedTimestamp;
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
  amount_due: MinorUnits;
  amount_paid: MinorUnits;
  currency: string;
  hosted_url: string | null;
  period_start: NullableTimestamp;
  period_end: NullableTimestamp;
  created_at: Timestamp;
  last_event_at: Timestamp;
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

/** Who made the refund: staff through this service, or someone at the provider (its dashboard). */
export type RefundSource = 'staff' | 'provider';

/** bigint minor units: text from the PostgreSQL driver, a number from PGlite; views convert it. */
type Money = ColumnType<number | string, number, never>;

export interface BillingRefundsTable {
  id: Generated<string>;
  // A refund is a fact the provider reported: nothing of it changes afterwards.
  payment_id: ColumnType<string, string, never>;
  user_id: ColumnType<string, string, never>;
  provider_refund_id: ColumnType<string, string, never>;
  amount: Money;
  currency: ColumnType<string, string, never>;
  reason: ColumnType<string, string, never>;
  credits_clawed_back: ColumnType<number, number, never>;
  shortfall: ColumnType<number, number, never>;
  actor_id: ColumnType<string | null, string | null, never>;
  source: ColumnType<RefundSource, RefundSource | undefined, never>;
  request_key: ColumnType<string | null, string | null | undefined, never>;
  request_fingerprint: ColumnType<string | null, string | null | undefined, never>;
  created_at: DefaultedTimestamp;
}

/** Refunds reported before their payment, kept until it is recorded (migration 0035). */
export interface BillingRefundsAwaitingPaymentTable {
  provider: PaymentProviderKind;
  provider_refund_id: string;
  provider_payment_id: string;
  amount: ColumnType<number | string, number, number>;
  currency: string;
  status: ProviderRefund['status'];
  reason: string;
  reported_at: ColumnType<Date, string | Date, string | Date>;
  created_at: DefaultedTimestamp;
}

/** Migration 0058's views: what payments publishes of payments and invoices for the family to read (the overview). */
export type InvoiceDirectoryView = Pick<BillingInvoicesTable, 'id' | 'provider' | 'provider_invoice_id'>;
export type PaymentDirectoryView = Pick<
  BillingPaymentsTable,
  'id' | 'provider' | 'provider_payment_id' | 'amount' | 'currency' | 'created_at'
>;

/** Migration 0059's view: what payments publishes of a refund for the family to read (the overview's sums). */
export type RefundDirectoryView = Pick<BillingRefundsTable, 'id' | 'amount' | 'currency' | 'created_at'>;

declare module '../../../db/tables.js' {
  interface Tables {
    billing_payments: BillingPaymentsTable;
    billing_invoices: BillingInvoicesTable;
    billing_invoice_payments: BillingInvoicePaymentsTable;
    /** @published (a view: an invoice's provider id) */
    invoice_directory: InvoiceDirectoryView;
    /** @published (a view: a payment's provider id, amount, currency and time) */
    payment_directory: PaymentDirectoryView;
    /** @published (a view: a refund's amount, currency and time) */
    refund_directory: RefundDirectoryView;
    billing_refunds: BillingRefundsTable;
    billing_refunds_awaiting_payment: BillingRefundsAwaitingPaymentTable;
  }
}

export type PaymentRow = Selectable<BillingPaymentsTable>;
export type InvoiceRow = Selectable<BillingInvoicesTable>;
export type RefundRow = Selectable<BillingRefundsTable>;
