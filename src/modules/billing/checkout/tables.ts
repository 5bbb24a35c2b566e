import type { ColumnType, Generated } from 'kysely';
import type { DefaultedTimestamp, NullableTimestamp, Timestamp } from '../../../db/column-types.js';
import type { CheckoutMode, PaymentProviderKind } from '../../../adapters/payments/index.js';
import type { BillingSubscriptionStatus } from '../../../db/tables.js';

/**
 * Table types of checkouts, customers and the provider's events (migration 0012), merged into Kysely's
 * `Tables`; the payments and invoices they lead to are billing/payments' tables.
 */

/** Subscriptions that give their plan's tier. */
export const LIVE_STATUSES: BillingSubscriptionStatus[] = ['trialing', 'active', 'past_due'];

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

export interface BillingWebhookEventsTable {
  provider: PaymentProviderKind;
  event_id: string;
  type: string;
  occurred_at: Timestamp;
  received_at: DefaultedTimestamp;
  /** Why the event was recorded and not acted on; null when it was applied (migration 0045). */
  ignored_reason: ColumnType<string | null, string | null | undefined, string | null>;
}

/** Migration 0058's view: what checkout publishes of its customers for the family to read (the overview). */
export type CustomerDirectoryView = Pick<BillingCustomersTable, 'user_id' | 'provider' | 'provider_customer_id'>;

declare module '../../../db/tables.js' {
  interface Tables {
    billing_customers: BillingCustomersTable;
    billing_checkout_sessions: BillingCheckoutSessionsTable;
    billing_webhook_events: BillingWebhookEventsTable;
    /** @published (a view: a customer's provider id) */
    customer_directory: CustomerDirectoryView;
  }
  /** Columns migration 0012 adds to the subscriptions table of migration 0008. */
  interface BillingSubscriptionsTable {
    provider_customer_id: string | null;
    canceled_at: NullableTimestamp;
    last_event_at: NullableTimestamp;
  }
}
