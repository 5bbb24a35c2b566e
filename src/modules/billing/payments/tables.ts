import type { ColumnType, Generated, Selectable } from 'kysely';
import type { PaymentProviderKind, ProviderRefund } from '../../../adapters/payments/index.js';
import type { DefaultedTimestamp } from '../../../db/column-types.js';

/** Table types of refunds (migrations 0014 and 0015), merged into Kysely's `Tables`. */

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

/** Migration 0059's view: what payments publishes of a refund for the family to read (the overview's sums). */
export type RefundDirectoryView = Pick<BillingRefundsTable, 'id' | 'amount' | 'currency' | 'created_at'>;

declare module '../../../db/tables.js' {
  interface Tables {
    /** @published (a view: a refund's amount, currency and time) */
    refund_directory: RefundDirectoryView;
    billing_refunds: BillingRefundsTable;
    billing_refunds_awaiting_payment: BillingRefundsAwaitingPaymentTable;
  }
}

export type RefundRow = Selectable<BillingRefundsTable>;
