import { sql, type Kysely } from 'kysely';
import type { PaymentProviderKind } from '../../../adapters/payments/index.js';
import type { Tables } from '../../../db/tables.js';
import './tables.js';

/** The statements of invoices' payments (invoice-payments.ts). */

type Db = Kysely<Tables>;

export interface InvoicePaymentLink {
  invoiceId: string;
  paymentId: string;
  amount: number;
  currency: string;
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

/** Keeps that a payment paid an invoice, once. */
export async function insertInvoicePaymentLink(
  trx: Db,
  provider: PaymentProviderKind,
  link: InvoicePaymentLink,
): Promise<void> {
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
}

/** The invoice's player and subscription; undefined: the invoice is not here (yet). */
export function invoicePlayerAndSubscription(trx: Db, provider: PaymentProviderKind, invoiceId: string) {
  return trx
    .selectFrom('billing_invoices')
    .select(['user_id', 'provider_subscription_id'])
    .where('provider', '=', provider)
    .where('provider_invoice_id', '=', invoiceId)
    .executeTakeFirst();
}

/** The payments linked to an invoice, first linked first. */
export function invoicePaymentLinks(trx: Db, provider: PaymentProviderKind, invoiceId: string) {
  return trx
    .selectFrom('billing_invoice_payments')
    .select(['provider_payment_id', 'amount', 'currency'])
    .where('provider', '=', provider)
    .where('provider_invoice_id', '=', invoiceId)
    .orderBy('created_at')
    .execute();
}

/** The product and catalog price of a stored subscription; undefined: no such subscription. */
export function subscriptionPlan(trx: Db, provider: PaymentProviderKind, providerSubscriptionId: string) {
  return trx
    .selectFrom('billing_subscriptions as s')
    .leftJoin('catalog_prices as p', 'p.provider_price_id', 's.provider_price_id')
    .select(['s.product_id', 'p.id as price_id'])
    .where('s.provider', '=', provider)
    .where('s.provider_subscription_id', '=', providerSubscriptionId)
    .executeTakeFirst();
}

export interface InvoicePayments {
  provider: PaymentProviderKind;
  invoiceId: string;
  userId: string;
  plan: { product_id: string | null; price_id: string | null } | undefined;
  links: Array<{ provider_payment_id: string; amount: number | string; currency: string }>;
}

/** Records an invoice's linked payments as subscription payments, each once (its provider id is unique). */
export async function insertSubscriptionPayments(
  trx: Db,
  { provider, invoiceId, userId, plan, links }: InvoicePayments,
): Promise<void> {
  await trx
    .insertInto('billing_payments')
    .values(
      links.map((link) => ({
        user_id: userId,
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
}

/** Names the invoice's payment when it names none yet. */
export async function setInvoicePaymentWhenNone(
  trx: Db,
  provider: PaymentProviderKind,
  invoiceId: string,
  providerPaymentId: string,
): Promise<void> {
  await trx
    .updateTable('billing_invoices')
    .set({ provider_payment_id: providerPaymentId })
    .where('provider', '=', provider)
    .where('provider_invoice_id', '=', invoiceId)
    .where('provider_payment_id', 'is', null)
    .execute();
}

/**
 * Serializes, per subscription, the two halves that meet in a payment's plan: recording its
 * invoices' payments and writing the subscription row. Each writes its half, then takes this and
 * fills in the plan of payments missing it: whichever takes it second sees the other's commit.
 * Without it an invoice's events and the subscription's arriving at once each missed the other's
 * uncommitted row, leaving the payment without its plan. Taken after the caller's own writes, with
 * nothing waited on while it is held but the fill, so it adds no lock-order cycle.
 */
export async function lockSubscriptionPayments(
  trx: Db,
  provider: PaymentProviderKind,
  subscriptionId: string,
): Promise<void> {
  const lockKey = `billing-subscription:${provider}:${subscriptionId}`;
  await sql`SELECT pg_advisory_xact_lock(hashtextextended(${lockKey}, 0))`.execute(trx);
}

/** Gives the subscription's invoice payments without a plan the product and price its row now has. */
export async function fillPlanOfSubscriptionPayments(
  trx: Db,
  provider: PaymentProviderKind,
  subscriptionId: string,
): Promise<void> {
  await sql`
    UPDATE billing_payments AS p
       SET product_id = s.product_id, price_id = pr.id, updated_at = now()
      FROM billing_invoices AS i
      JOIN billing_subscriptions AS s ON s.provider = i.provider AND s.provider_subscription_id =
        i.provider_subscription_id
      LEFT JOIN catalog_prices AS pr ON pr.provider_price_id = s.provider_price_id
     WHERE i.provider = ${provider} AND i.provider_subscription_id = ${subscriptionId}
       AND p.provider = i.provider AND p.provider_invoice_id = i.provider_invoice_id
       AND p.kind = 'subscription' AND p.product_id IS NULL AND s.product_id IS NOT NULL`.execute(trx);
}
