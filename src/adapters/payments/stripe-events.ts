import { z } from 'zod';
import type { PaymentEvent, ProviderInvoice, ProviderRefund, ProviderSubscription } from './index.js';

/**
 * Stripe objects and webhook events read into the service's vocabulary. A webhook's objects are
 * rendered at the API version of its endpoint, which may be older than the version the SDK pins
 * (2026-10-28.endive), so each field that moved between versions is read where either version
 * puts it: a subscription's period end on its item (2025-03-31.basil on) or on itself (before);
 * an invoice's subscription under `parent.subscription_details` (basil on) or on itself (before);
 * an invoice's PaymentIntent in its `payments` list (basil on, when included) or on itself (before).
 */

/** A verified event this adapter consumes, whose object does not read as Stripe's. */
export class MalformedWebhookEventError extends Error {
  constructor(
    readonly eventId: string | null,
    readonly eventType: string | null,
    problem: string,
  ) {
    super(`Stripe event ${eventId ?? '(no id)'} (${eventType ?? 'no type'}) does not read as expected: ${problem}`);
    this.name = 'MalformedWebhookEventError';
  }
}

const objectId = z.string().min(1);
/** An id, or the object itself when the request expanded it. */
const expandable = z.union([objectId, z.object({ id: objectId }).transform((object) => object.id)]);
const metadata = z
  .record(z.string(), z.string())
  .nullish()
  .transform((value) => value ?? {});
const seconds = z.number().int();
const money = z.number().int();

function instant(epochSeconds: number): string {
  return new Date(epochSeconds * 1000).toISOString();
}

function optionalInstant(epochSeconds: number | null | undefined): string | null {
  return epochSeconds === null || epochSeconds === undefined ? null : instant(epochSeconds);
}

const subscriptionStatus = z.enum([
  'incomplete',
  'incomplete_expired',
  'trialing',
  'active',
  'past_due',
  'canceled',
  'unpaid',
  'paused',
]);

export const stripeSubscription = z
  .object({
    id: objectId,
    customer: expandable,
    status: subscriptionStatus,
    cancel_at_period_end: z.boolean(),
    canceled_at: seconds.nullish(),
    /** Before 2025-03-31.basil only. */
    current_period_end: seconds.nullish(),
    metadata,
    items: z.object({
      data: z
        .array(z.object({ id: objectId, price: z.object({ id: objectId }), current_period_end: seconds.nullish() }))
        .min(1),
    }),
  })
  .transform((subscription): ProviderSubscription => {
    // The service sells single-seat subscriptions: one item, whose price is the plan.
    const item = subscription.items.data[0]!;
    return {
      id: subscription.id,
      customerId: subscription.customer,
      status: subscription.status,
      providerPriceId: item.price.id,
      cancelAtPeriodEnd: subscription.cancel_at_period_end,
      currentPeriodEnd: optionalInstant(item.current_period_end ?? subscription.current_period_end),
      canceledAt: optionalInstant(subscription.canceled_at),
      metadata: subscription.metadata,
    };
  });

/** The item a price change replaces: the subscription's only one. */
export const stripeSubscriptionItems = z.object({
  id: objectId,
  items: z.object({ data: z.array(z.object({ id: objectId })) }),
});

export const stripeInvoice = z
  .object({
    id: objectId,
    customer: expandable,
    // Stripe leaves it null only on previews; a listed invoice without one has not been finalized.
    status: z.enum(['draft', 'open', 'paid', 'void', 'uncollectible']).nullable(),
    currency: z.string().min(1),
    amount_due: money,
    amount_paid: money,
    hosted_invoice_url: z.string().nullish(),
    period_start: seconds.nullish(),
    period_end: seconds.nullish(),
    created: seconds,
    parent: z.object({ subscription_details: z.object({ subscription: expandable }).nullish() }).nullish(),
    /** Before 2025-03-31.basil only. */
    subscription: expandable.nullish(),
    lines: z
      .object({ data: z.array(z.object({ period: z.object({ start: seconds, end: seconds }).nullish() })) })
      .nullish(),
  })
  .transform((invoice): ProviderInvoice => {
    // What a subscription invoice pays for is its line's service period; the invoice's own
    // period_start/period_end is the window items could be added in (for a renewal, the period before).
    const linePeriod = invoice.lines?.data.find((line) => line.period)?.period ?? null;
    return {
      id: invoice.id,
      customerId: invoice.customer,
      subscriptionId: invoice.parent?.subscription_details?.subscription ?? invoice.subscription ?? null,
      status: invoice.status ?? 'draft',
      currency: invoice.currency,
      amountDue: invoice.amount_due,
      amountPaid: invoice.amount_paid,
      hostedUrl: invoice.hosted_invoice_url ?? null,
      periodStart: optionalInstant(linePeriod?.start ?? invoice.period_start),
      periodEnd: optionalInstant(linePeriod?.end ?? invoice.period_end),
      createdAt: instant(invoice.created),
    };
  });

/** The PaymentIntent that paid an invoice, where the event's API version puts it; null when absent. */
const invoicePayment = z.object({
  payments: z
    .object({
      data: z.array(
        z.object({
          status: z.string().nullish(),
          payment: z.object({ payment_intent: expandable.nullish() }).nullish(),
        }),
      ),
    })
    .nullish(),
  payment_intent: expandable.nullish(),
});

function paymentOf(invoice: unknown): string | null {
  const parsed = invoicePayment.safeParse(invoice);
  if (!parsed.success) return null;
  const paid = parsed.data.payments?.data.find((entry) => entry.status === 'paid' && entry.payment?.payment_intent);
  return paid?.payment?.payment_intent ?? parsed.data.payment_intent ?? null;
}

const checkoutSession = z.object({
  id: objectId,
  mode: z.string(),
  payment_status: z.string(),
  customer: expandable.nullable(),
  payment_intent: expandable.nullish(),
  subscription: expandable.nullish(),
  amount_total: money.nullable(),
  currency: z.string().nullable(),
  metadata,
});

const charge = z.object({
  payment_intent: expandable.nullish(),
  amount_refunded: money,
  currency: z.string().min(1),
});

/** API 2025-03-31.basil on: which PaymentIntent paid an invoice. */
const invoicePaymentObject = z.object({
  invoice: expandable,
  status: z.string(),
  amount_paid: money.nullish(),
  currency: z.string().min(1),
  payment: z.object({ type: z.string(), payment_intent: expandable.nullish() }),
});

const refund = z.object({
  id: objectId,
  amount: money,
  currency: z.string().min(1),
  payment_intent: expandable.nullish(),
  status: z.string().nullable(),
  metadata,
});

export function refundStatus(status: string | null): ProviderRefund['status'] {
  if (status === 'succeeded' || status === 'failed' || status === 'canceled') return status;
  // `pending`, `requires_action` (the customer must act) or not yet known: the money has not moved.
  return 'pending';
}

const envelope = z.object({
  id: objectId,
  type: z.string().min(1),
  created: seconds,
  data: z.object({ object: z.record(z.string(), z.unknown()) }),
});

/** Turns a verified Stripe event into a PaymentEvent; throws MalformedWebhookEventError if it does not read. */
export function toPaymentEvent(event: unknown): PaymentEvent {
  const parsedEnvelope = envelope.safeParse(event);
  if (!parsedEnvelope.success) {
    const loose = (typeof event === 'object' && event !== null ? event : {}) as { id?: unknown; type?: unknown };
    throw new MalformedWebhookEventError(
      stringOrNull(loose.id),
      stringOrNull(loose.type),
      issuesOf(parsedEnvelope.error),
    );
  }
  const { id: eventId, type, created, data } = parsedEnvelope.data;
  const base = { eventId, occurredAt: instant(created) };
  const ignored: PaymentEvent = { type: 'ignored', ...base, providerType: type };
  const read = <T>(schema: z.ZodType<T, unknown>): T => {
    const parsed = schema.safeParse(data.object);
    if (!parsed.success) throw new MalformedWebhookEventError(eventId, type, issuesOf(parsed.error));
    return parsed.data;
  };

  switch (type) {
    case 'checkout.session.completed':
    case 'checkout.session.async_payment_succeeded': {
      const session = read(checkoutSession);
      if (session.mode !== 'payment' && session.mode !== 'subscription') return ignored;
      // A delayed payment method completes the session unpaid; the money arrives with async_payment_succeeded.
      if (session.payment_status === 'unpaid') return ignored;
      if (session.customer === null || session.amount_total === null || session.currency === null) {
        throw new MalformedWebhookEventError(
          eventId,
          type,
          'a completed checkout without customer, amount_total or currency',
        );
      }
      return {
        type: 'checkout.completed',
        ...base,
        checkoutId: session.id,
        customerId: session.customer,
        mode: session.mode,
        paymentId: session.payment_intent ?? null,
        subscriptionId: session.subscription ?? null,
        amountTotal: session.amount_total,
        currency: session.currency,
        metadata: session.metadata,
      };
    }
    case 'checkout.session.expired':
    case 'checkout.session.async_payment_failed': {
      // Either way the checkout ended without money: nothing will be fulfilled from it.
      const session = read(checkoutSession);
      return { type: 'checkout.expired', ...base, checkoutId: session.id, metadata: session.metadata };
    }
    case 'customer.subscription.created':
      return { type: 'subscription.updated', ...base, subscription: read(stripeSubscription), created: true };
    case 'customer.subscription.updated':
      return { type: 'subscription.updated', ...base, subscription: read(stripeSubscription) };
    case 'customer.subscription.deleted':
      return { type: 'subscription.deleted', ...base, subscription: read(stripeSubscription) };
    case 'invoice.paid':
      return { type: 'invoice.paid', ...base, invoice: read(stripeInvoice), paymentId: paymentOf(data.object) };
    case 'invoice.payment_failed':
      return { type: 'invoice.payment_failed', ...base, invoice: read(stripeInvoice) };
    case 'charge.refunded': {
      const refunded = read(charge);
      // Every payment the service takes goes through a PaymentIntent; a bare charge is not one of them.
      if (!refunded.payment_intent) return ignored;
      return {
        type: 'charge.refunded',
        ...base,
        paymentId: refunded.payment_intent,
        amountRefunded: refunded.amount_refunded,
        currency: refunded.currency,
      };
    }
    case 'invoice_payment.paid': {
      const paid = read(invoicePaymentObject);
      // Only PaymentIntents are the service's payments (an out-of-band payment has none).
      if (paid.status !== 'paid' || !paid.payment.payment_intent) return ignored;
      return {
        type: 'invoice.payment_linked',
        ...base,
        link: {
          invoiceId: paid.invoice,
          paymentId: paid.payment.payment_intent,
          amount: paid.amount_paid ?? 0,
          currency: paid.currency,
        },
      };
    }
    case 'refund.created':
    case 'refund.updated': {
      // Every refund, the service's own and those made in Stripe's dashboard: each is recorded once, by id.
      const made = read(refund);
      if (!made.payment_intent) return ignored;
      return {
        type: 'refund.recorded',
        ...base,
        refund: {
          id: made.id,
          paymentId: made.payment_intent,
          amount: made.amount,
          currency: made.currency,
          status: refundStatus(made.status),
          reason: made.metadata.reason ?? null,
        },
      };
    }
    default:
      return ignored;
  }
}

/** Where the object failed to read: paths and zod's messages, at most five. */
export function issuesOf(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`)
    .join('; ');
}

function stringOrNull(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}
