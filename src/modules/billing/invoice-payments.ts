import { sql, type Kysely } from 'kysely';
import type { ColumnType } from 'kysely';
import type { PaymentProviderKind } from '../../adapters/payments/index.js';
import type { DefaultedTimestamp } from '../../db/column-types.js';
import type { Tables } from '../../db/tables.js';
import '../billing-catalog/tables.js';
import './tables.js';

type Db = Kysely<Tables>;

export interface BillingInvoicePaymentsTable {
  provider: PaymentProviderKind;
  provider_invoice_id: string;
  provider_payment_id: string;
  amount: ColumnType<number | string, number, never>;
  currency: string;
  created_at: DefaultedTimestamp;
}

declare module '../../db/tables.js' {
  interface Tables {
    billing_invoice_payments: BillingInvoicePaymentsTable;
  }
}

export interface InvoicePaymentLink {
  invoiceId: string;
  paymentId: string;
  amount: number;
  currency: string;
}

/** Keeps that `paymentId` paid `invoiceId` (once), then records the payment if the invoice is already here. */
export async function linkInvoicePayment(trx: Db, provider: PaymentProviderKind, link: InvoicePaymentLink): Promise<void> {
  if (link.amount <= 0) return;
  await trx.insertInto('billing_invoice_payments')
    .values({ provider, provider_invoice_id: link.invoiceId, provider_payment_id: link.paymentId, amount: link.amount, currency: link.currency })
    .onConflict((oc) => oc.columns(['provider', 'provider_invoice_id', 'provider_payment_id']).doNothing())
    .execute();
  await settleInvoicePayments(trx, provider, link.invoiceId);
}

/**
 * Records every linked payment of an invoice that is here as a subscription payment of the
 * invoice's player, with the subscription's plan and price; each payment once (its provider id
 * is unique). The invoice keeps the first payment's id. Nothing happens until both halves exist.
 */
export async function settleInvoicePayments(trx: Db, provider: PaymentProviderKind, invoiceId: string): Promise<void> {
  const invoice = await trx.selectFrom('billing_invoices').select(['user_id', 'provider_subscription_id'])
    .where('provider', '=', provider).where('provider_invoice_id', '=', invoiceId).executeTakeFirst();
  if (invoice === undefined) return;
  const links = await trx.selectFrom('billing_invoice_payments').select(['provider_payment_id', 'amount', 'currency'])
    .where('provider', '=', provider).where('provider_invoice_id', '=', invoiceId).orderBy('created_at').execute();
  if (links.length === 0) return;
  const plan = invoice.provider_subscription_id === null ? undefined
    : await trx.selectFrom('billing_subscriptions as s')
      .leftJoin('billing_prices as p', 'p.provider_price_id', 's.provider_price_id')
      .select(['s.product_id', 'p.id as price_id'])
      .where('s.provider', '=', provider).where('s.provider_subscription_id', '=', invoice.provider_subscription_id)
      .executeTakeFirst();
  await trx.insertInto('billing_payments')
    .values(links.map((link) => ({
      user_id: invoice.user_id, provider, provider_payment_id: link.provider_payment_id, product_id: plan?.product_id ?? null, price_id: plan?.price_id ?? null,
      kind: 'subscription' as const, amount: Number(link.amount), currency: link.currency, provider_invoice_id: invoiceId,
    })))
    .onConflict((oc) => oc.columns(['provider', 'provider_payment_id']).doNothing())
    .execute();
  await trx.updateTable('billing_invoices').set({ provider_payment_id: links[0]!.provider_payment_id })
    .where('provider', '=', provider).where('provider_invoice_id', '=', invoiceId).where('provider_payment_id', 'is', null)
    .execute();
}
