import { sql, type Kysely } from 'kysely';
import type { ColumnType } from 'kysely';
import type { PaymentProviderKind } from '../../../adapters/payments/index.js';
import type { DefaultedTimestamp } from '../../../db/column-types.js';
import type { Tables } from '../../../db/tables.js';
import { recordRefundsAwaitingPayment, type RecordedRefund } from '../payments/index.js';
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

declare module '../../../db/tables.js' {
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

type RecordedProviderRefund = Extract<RecordedRefund, { recorded: true }>;

/**
 * Keeps that `paymentId` paid `invoiceId` (once), then records the payment if the invoice is
 * already here. Answers the refunds reported before the payment, recorded now.
 */
export async function linkInvoicePayment(
  trx: Db,
  provider: PaymentProviderKind,
  link: InvoicePaymentLink,
): Promise<RecordedProviderRefund[]> {
  if (link.amount <= 0) return [];
  await lockInvoice(trx, provider, link.invoiceId);
  await trx
    .insertInto('billing_invoice_payments')
    .values({
      provider,
      provider_invoice_id: link.invoiceId,
      provider_payment_id: link.paymentId,
      amount: link.amount,
      currency: link.currency,
    })
    .onConflict((oc) => oc.columns(['provider', 'provider_invoice_id', 'provider_payment_id']).doNothing())
    .execute();
  return settleInvoicePayments(trx, provider, link.invoiceId);
}

/**
 * Serializes the two halves of an invoice's payment: the invoice (invoice.paid) and the link
 * naming its payment (invoice_payment.paid). Each writes its half and then looks for the other;
 * delivered at once, each missed the other's uncommitted row and the payment was never recorded.
 * Taken before either writes anything of the invoice, so the second starts after the first's commit.
 */
export async function lockInvoice(trx: Db, provider: PaymentProviderKind, invoiceId: string): Promise<void> {
  await sql`SELECT pg_advisory_xact_lock(hashtextextended(${`billing-invoice:${provider}:${invoiceId}`}, 0))`.execute(
    trx,
  );
}

/**
 * Records every linked payment of an invoice that is here as a subscription payment of the
 * invoice's player, with the subscription's plan and price; each payment once (its provider id
 * is unique). The invoice keeps the first payment's id. Nothing happens until both halves exist.
 */
export async function settleInvoicePayments(
  trx: Db,
  provider: PaymentProviderKind,
  invoiceId: string,
): Promise<RecordedProviderRefund[]> {
  const invoice = await trx
    .selectFrom('billing_invoices')
    .select(['user_id', 'provider_subscription_id'])
    .where('provider', '=', provider)
    .where('provider_invoice_id', '=', invoiceId)
    .executeTakeFirst();
  if (invoice === undefined) return [];
  const links = await trx
    .selectFrom('billing_invoice_payments')
    .select(['provider_payment_id', 'amount', 'currency'])
    .where('provider', '=', provider)
    .where('provider_invoice_id', '=', invoiceId)
    .orderBy('created_at')
    .execute();
  if (links.length === 0) return [];
  const plan =
    invoice.provider_subscription_id === null
      ? undefined
      : await trx
          .selectFrom('billing_subscriptions as s')
          .leftJoin('billing_prices as p', 'p.provider_price_id', 's.provider_price_id')
          .select(['s.product_id', 'p.id as price_id'])
          .where('s.provider', '=', provider)
          .where('s.provider_subscription_id', '=', invoice.provider_subscription_id)
          .executeTakeFirst();
  await trx
    .insertInto('billing_payments')
    .values(
      links.map((link) => ({
        user_id: invoice.user_id,
        provider,
        provider_payment_id: link.provider_payment_id,
        product_id: plan?.product_id ?? null,
        price_id: plan?.price_id ?? null,
        kind: 'subscription' as const,
        amount: Number(link.amount),
        currency: link.currency,
        provider_invoice_id: invoiceId,
      })),
    )
    .onConflict((oc) => oc.columns(['provider', 'provider_payment_id']).doNothing())
    .execute();
  await trx
    .updateTable('billing_invoices')
    .set({ provider_payment_id: links[0]!.provider_payment_id })
    .where('provider', '=', provider)
    .where('provider_invoice_id', '=', invoiceId)
    .where('provider_payment_id', 'is', null)
    .execute();
  // The subscription row may be written at this very moment by its own event: see lockSubscriptionPayments.
  if (invoice.provider_subscription_id !== null)
    await fillSubscriptionPayments(trx, provider, invoice.provider_subscription_id);
  // Refunds reported before their payment (migration 0035), in payment id order (locks in one order).
  const refunds: RecordedProviderRefund[] = [];
  for (const paymentId of [...new Set(links.map((link) => link.provider_payment_id))].sort()) {
    refunds.push(...(await recordRefundsAwaitingPayment(trx, provider, paymentId)));
  }
  return refunds;
}

/**
 * Serializes, per subscription, the two halves that meet in a payment's plan: recording its
 * invoices' payments and writing the subscription row. Each writes its half, then takes this and
 * fills in the plan of payments missing it: whichever takes it second sees the other's commit.
 * Without it an invoice's events and the subscription's arriving at once each missed the other's
 * uncommitted row, leaving the payment without its plan. Taken after the caller's own writes, with
 * nothing waited on while it is held but the fill, so it adds no lock-order cycle.
 */
async function lockSubscriptionPayments(trx: Db, provider: PaymentProviderKind, subscriptionId: string): Promise<void> {
  await sql`SELECT pg_advisory_xact_lock(hashtextextended(${`billing-subscription:${provider}:${subscriptionId}`}, 0))`.execute(
    trx,
  );
}

/**
 * Gives this subscription's payments recorded before the subscription row existed (the invoice's
 * events came first: no plan to name then) the plan and price the row now has. Called after every
 * write of a subscription row and of its payments.
 */
export async function fillSubscriptionPayments(
  trx: Db,
  provider: PaymentProviderKind,
  subscriptionId: string,
): Promise<void> {
  await lockSubscriptionPayments(trx, provider, subscriptionId);
  await sql`
    UPDATE billing_payments AS p
       SET product_id = s.product_id, price_id = pr.id, updated_at = now()
      FROM billing_invoices AS i
      JOIN billing_subscriptions AS s ON s.provider = i.provider AND s.provider_subscription_id = i.provider_subscription_id
      LEFT JOIN billing_prices AS pr ON pr.provider_price_id = s.provider_price_id
     WHERE i.provider = ${provider} AND i.provider_subscription_id = ${subscriptionId}
       AND p.provider = i.provider AND p.provider_invoice_id = i.provider_invoice_id
       AND p.kind = 'subscription' AND p.product_id IS NULL AND s.product_id IS NOT NULL`.execute(trx);
}
