import { sql, type Insertable, type Kysely } from 'kysely';
import type { PaymentProviderKind, ProviderInvoice } from '../../../adapters/payments/index.js';
import type { Tables } from '../../../db/tables.js';
import type { BillingPaymentsTable, InvoiceStatus } from './tables.js';
import './tables.js';

/**
 * The statements that record payments and invoices as the provider reports them, run by checkout's
 * fulfilment in its own transaction (through this area's index).
 */

type Db = Kysely<Tables>;

/** Invoice states the provider never leaves. */
const FINAL_INVOICE_STATUSES: InvoiceStatus[] = ['paid', 'void'];

/** Records a payment once per provider payment id; undefined when it was recorded before. */
export function insertPaymentOnce(
  trx: Db,
  payment: Insertable<BillingPaymentsTable>,
): Promise<{ id: string } | undefined> {
  return trx
    .insertInto('billing_payments')
    .values(payment)
    .onConflict((oc) => oc.columns(['provider', 'provider_payment_id']).doNothing())
    .returning('id')
    .executeTakeFirst();
}

/** Raises a payment's refunded amount to the provider's running total (never above the amount, never down). */
export async function raiseRefundedAmount(
  trx: Db,
  provider: PaymentProviderKind,
  providerPaymentId: string,
  amountRefunded: number,
): Promise<void> {
  await trx
    .updateTable('billing_payments')
    .set((eb) => ({
      amount_refunded: sql<number>`greatest(${eb.ref('amount_refunded')}, least(${eb.ref('amount')},
        ${amountRefunded}))`,
      status: sql`case when least(${eb.ref('amount')}, greatest(${eb.ref('amount_refunded')}, ${amountRefunded})) >=
        ${eb.ref('amount')} then 'refunded' else 'partially_refunded' end`,
      updated_at: sql`now()`,
    }))
    .where('provider', '=', provider)
    .where('provider_payment_id', '=', providerPaymentId)
    .execute();
}

export interface InvoiceReport {
  provider: PaymentProviderKind;
  userId: string;
  invoice: ProviderInvoice;
  occurredAt: string;
  /** The payment that paid it; null (a failed payment) leaves the stored one. */
  paymentId: string | null;
}

/** Writes the invoice as reported, unless a newer report is stored or the stored one is final. */
export async function upsertReportedInvoice(
  trx: Db,
  { provider, userId, invoice, occurredAt, paymentId }: InvoiceReport,
) {
  const columns = {
    provider_subscription_id: invoice.subscriptionId,
    status: invoice.status,
    amount_due: invoice.amountDue,
    amount_paid: invoice.amountPaid,
    currency: invoice.currency,
    hosted_url: invoice.hostedUrl,
    period_start: invoice.periodStart,
    period_end: invoice.periodEnd,
    last_event_at: occurredAt,
    ...(paymentId === null ? {} : { provider_payment_id: paymentId }),
  };
  await trx
    .insertInto('billing_invoices')
    .values({
      user_id: userId,
      provider,
      provider_invoice_id: invoice.id,
      created_at: invoice.createdAt,
      ...columns,
    })
    .onConflict((oc) =>
      oc
        .columns(['provider', 'provider_invoice_id'])
        .doUpdateSet(columns)
        .where((eb) =>
          eb.and([
            eb('billing_invoices.last_event_at', '<=', sql<Date>`excluded.last_event_at`),
            // Paid and void are final at the provider: a failure stamped the same second as the
            // payment, delivered after it, turned a paid invoice back to open.
            eb.or([
              eb('billing_invoices.status', 'not in', FINAL_INVOICE_STATUSES),
              eb(sql.ref('excluded.status'), 'in', FINAL_INVOICE_STATUSES),
            ]),
          ]),
        ),
    )
    .execute();
}
