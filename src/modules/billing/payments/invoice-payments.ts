import type { Kysely } from 'kysely';
import type { PaymentProviderKind } from '../../../adapters/payments/index.js';
import type { Tables } from '../../../db/tables.js';
import {
  fillPlanOfSubscriptionPayments,
  insertInvoicePaymentLink,
  insertSubscriptionPayments,
  invoicePaymentLinks,
  invoicePlayerAndSubscription,
  lockInvoice,
  lockSubscriptionPayments,
  setInvoicePaymentWhenNone,
  subscriptionPlan,
  type InvoicePaymentLink,
} from './invoice-payment-queries.js';
import { recordRefundsAwaitingPayment, type RecordedRefund } from './refund-recording.js';

type Db = Kysely<Tables>;

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
  await insertInvoicePaymentLink(trx, provider, link);
  return settleInvoicePayments(trx, provider, link.invoiceId);
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
  const invoice = await invoicePlayerAndSubscription(trx, provider, invoiceId);
  if (invoice === undefined) return [];
  const links = await invoicePaymentLinks(trx, provider, invoiceId);
  if (links.length === 0) return [];
  const plan =
    invoice.provider_subscription_id === null
      ? undefined
      : await subscriptionPlan(trx, provider, invoice.provider_subscription_id);
  await insertSubscriptionPayments(trx, { provider, invoiceId, userId: invoice.user_id, plan, links });
  await setInvoicePaymentWhenNone(trx, provider, invoiceId, links[0]!.provider_payment_id);
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
  await fillPlanOfSubscriptionPayments(trx, provider, subscriptionId);
}
