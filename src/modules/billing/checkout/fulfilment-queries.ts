import { sql, type Insertable, type Kysely } from 'kysely';
import type { PaymentProviderKind, ProviderInvoice } from '../../../adapters/payments/index.js';
import type { BillingSubscriptionStatus, Tables } from '../../../db/tables.js';
import { LIVE_STATUSES, type BillingPaymentsTable, type InvoiceStatus } from './tables.js';
import './tables.js';

/** The statements of fulfilment (fulfilment.ts) and of invoices' payments (invoice-payments.ts). */

type Db = Kysely<Tables>;

/** Ends: a later event about the subscription never brings it back from these. */
const TERMINAL_STATUSES: BillingSubscriptionStatus[] = ['canceled', 'incomplete_expired'];
/** Invoice states the provider never leaves. */
const FINAL_INVOICE_STATUSES: InvoiceStatus[] = ['paid', 'void'];

export interface ReceivedEvent {
  eventId: string;
  type: string;
  occurredAt: string;
}

/** Stores a provider event's id; false when it was stored before (a redelivery). */
export async function storeEventOnce(trx: Db, provider: PaymentProviderKind, event: ReceivedEvent): Promise<boolean> {
  const stored = await trx
    .insertInto('billing_webhook_events')
    .values({
      provider,
      event_id: event.eventId,
      type: event.type,
      occurred_at: event.occurredAt,
    })
    .onConflict((oc) => oc.columns(['provider', 'event_id']).doNothing())
    .returning('event_id')
    .executeTakeFirst();
  return stored !== undefined;
}

export async function expireOpenCheckout(
  trx: Db,
  provider: PaymentProviderKind,
  providerCheckoutId: string,
): Promise<void> {
  await trx
    .updateTable('billing_checkout_sessions')
    .set({ status: 'expired' })
    .where('provider', '=', provider)
    .where('provider_checkout_id', '=', providerCheckoutId)
    .where('status', '=', 'open')
    .execute();
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

/** The player whose customer at the provider this is; undefined: not a customer this service made. */
export async function userOfCustomer(
  trx: Db,
  provider: PaymentProviderKind,
  providerCustomerId: string,
): Promise<string | undefined> {
  const customer = await trx
    .selectFrom('billing_customers')
    .select('user_id')
    .where('provider', '=', provider)
    .where('provider_customer_id', '=', providerCustomerId)
    .executeTakeFirst();
  return customer?.user_id;
}

/** The player of a subscription stored here; undefined: none stored under that id. */
export async function userOfSubscription(
  trx: Db,
  provider: PaymentProviderKind,
  providerSubscriptionId: string,
): Promise<string | undefined> {
  const subscription = await trx
    .selectFrom('billing_subscriptions')
    .select('user_id')
    .where('provider', '=', provider)
    .where('provider_subscription_id', '=', providerSubscriptionId)
    .executeTakeFirst();
  return subscription?.user_id;
}

export interface CheckoutSubscription {
  userId: string;
  provider: PaymentProviderKind;
  providerSubscriptionId: string;
  productId: string;
  providerPriceId: string;
  providerCustomerId: string | null;
}

/** The subscription a paid checkout started, as active; nothing when its row exists already. */
export async function insertCheckoutSubscription(trx: Db, subscription: CheckoutSubscription): Promise<void> {
  await trx
    .insertInto('billing_subscriptions')
    .values({
      user_id: subscription.userId,
      provider: subscription.provider,
      provider_subscription_id: subscription.providerSubscriptionId,
      product_id: subscription.productId,
      provider_price_id: subscription.providerPriceId,
      status: 'active',
      provider_customer_id: subscription.providerCustomerId,
    })
    .onConflict((oc) => oc.columns(['provider', 'provider_subscription_id']).doNothing())
    .execute();
}

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

/** The catalog product of a provider price; undefined: a price the catalog does not know. */
export async function productOfProviderPrice(trx: Db, providerPriceId: string): Promise<string | undefined> {
  const price = await trx
    .selectFrom('billing_prices')
    .select('product_id')
    .where('provider_price_id', '=', providerPriceId)
    .executeTakeFirst();
  return price?.product_id;
}

/** The product's id when the catalog has it; undefined otherwise. */
export async function existingProductId(trx: Db, productId: string): Promise<string | undefined> {
  return (await trx.selectFrom('billing_products').select('id').where('id', '=', productId).executeTakeFirst())?.id;
}

/** A subscription's columns as the provider last reported it. */
export interface SubscriptionSnapshot {
  product_id: string | null;
  provider_price_id: string;
  status: BillingSubscriptionStatus;
  cancel_at_period_end: boolean;
  current_period_end: string | null;
  canceled_at: string | null;
  provider_customer_id: string;
  last_event_at: string;
}

export interface ReportedSubscription {
  provider: PaymentProviderKind;
  userId: string;
  providerSubscriptionId: string;
  columns: SubscriptionSnapshot;
  /** The provider's first snapshot of it (Stripe's created event). */
  created: boolean;
}

/** Writes the subscription as reported (made when missing) unless the stored row is newer or ended. */
export async function upsertReportedSubscription(
  trx: Db,
  { provider, userId, providerSubscriptionId, columns, created }: ReportedSubscription,
): Promise<void> {
  await trx
    .insertInto('billing_subscriptions')
    .values({ user_id: userId, provider, provider_subscription_id: providerSubscriptionId, ...columns })
    .onConflict((oc) =>
      oc
        .columns(['provider', 'provider_subscription_id'])
        // A price the catalog does not know (made at the provider by hand) keeps the product the row had.
        .doUpdateSet({
          ...columns,
          product_id: sql<string | null>`coalesce(excluded.product_id, billing_subscriptions.product_id)`,
          updated_at: sql`now()`,
        })
        .where((eb) =>
          eb.and([
            // Older than what is stored: out of order, ignored.
            eb.or([
              eb('billing_subscriptions.last_event_at', 'is', null),
              eb('billing_subscriptions.last_event_at', '<=', sql<Date>`excluded.last_event_at`),
            ]),
            // An ended subscription stays ended, even against an update stamped the same second.
            eb.or([
              eb('billing_subscriptions.status', 'not in', TERMINAL_STATUSES),
              eb(sql.ref('excluded.status'), 'in', TERMINAL_STATUSES),
            ]),
            // The first snapshot (created) replaces only the row a checkout made before any
            // subscription event: Stripe stamps created and the first update the same second, and an
            // update delivered first was rolled back to `incomplete` by the created event after it.
            ...(created ? [eb('billing_subscriptions.last_event_at', 'is', null)] : []),
          ]),
        ),
    )
    .execute();
}

/** Locks the user's row (NO KEY UPDATE) for the rest of the transaction. */
export async function lockUserRow(trx: Db, userId: string): Promise<void> {
  await trx.selectFrom('users').select('id').where('id', '=', userId).forNoKeyUpdate().execute();
}

/** Sets the user's tier to the highest-ranked tier among the plans of their live subscriptions (none: null). */
export async function setTierFromLiveSubscriptions(trx: Db, userId: string): Promise<void> {
  await trx
    .updateTable('users')
    .set((eb) => ({
      tier: eb
        .selectFrom('billing_subscriptions as s')
        .innerJoin('billing_products as p', 'p.id', 's.product_id')
        .innerJoin('plan_tiers as t', 't.key', 'p.tier_key')
        .select('p.tier_key')
        .where('s.user_id', '=', userId)
        .where('s.status', 'in', LIVE_STATUSES)
        .orderBy('t.rank', 'desc')
        .limit(1),
      updated_at: sql`now()`,
    }))
    .where('id', '=', userId)
    .execute();
}

// Invoices' payments (invoice-payments.ts).

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
    .leftJoin('billing_prices as p', 'p.provider_price_id', 's.provider_price_id')
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
      LEFT JOIN billing_prices AS pr ON pr.provider_price_id = s.provider_price_id
     WHERE i.provider = ${provider} AND i.provider_subscription_id = ${subscriptionId}
       AND p.provider = i.provider AND p.provider_invoice_id = i.provider_invoice_id
       AND p.kind = 'subscription' AND p.product_id IS NULL AND s.product_id IS NOT NULL`.execute(trx);
}
