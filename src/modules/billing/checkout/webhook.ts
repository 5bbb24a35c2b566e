import type { PaymentEvent } from '../../../adapters/payments/index.js';
import type { Deps } from '../../../composition/platform.js';

type ActedOn = Exclude<PaymentEvent['type'], 'ignored'>;

/** Every event type the service acts on: a type added to PaymentEvent does not compile until it is listed here. */
const ACTED_ON: Record<ActedOn, true> = {
  'checkout.completed': true,
  'checkout.expired': true,
  'subscription.updated': true,
  'subscription.deleted': true,
  'invoice.paid': true,
  'invoice.payment_failed': true,
  'invoice.payment_linked': true,
  'charge.refunded': true,
  'refund.recorded': true,
};

/** The `type` label: an event type the service acts on, or `other` (ignored types, deliveries never read). */
const WEBHOOK_TYPES = [...(Object.keys(ACTED_ON) as ActedOn[]), 'other'] as const;

/**
 * How a delivery ended: `processed`, `duplicate` (an event id processed before: nothing again),
 * refused 400 (`invalid_signature`, `invalid_event`: signed but unreadable) or `error` (500: the
 * provider delivers it again later).
 */
const WEBHOOK_OUTCOMES = ['processed', 'duplicate', 'invalid_signature', 'invalid_event', 'error'] as const;
export type WebhookOutcome = (typeof WEBHOOK_OUTCOMES)[number];

/** Counts one delivery of the payment provider's webhook; `event` is undefined when it was not read. */
export type CountWebhookDelivery = (event: PaymentEvent | undefined, outcome: WebhookOutcome) => void;

/** The webhook's delivery counter (metrics), or nothing counted when METRICS_PORT is unset. */
export function webhookDeliveryCounter(deps: Deps<'metrics'>): CountWebhookDelivery {
  const count = deps.metrics?.counter(
    'payment_webhook_deliveries_total',
    "Deliveries of the payment provider's webhook to this instance, by event type (the types the service acts " +
      'on; other: any other type, or a delivery refused before its type was read) and outcome: processed, ' +
      'duplicate (processed before), invalid_signature, invalid_event (signed but unreadable) or error (500).',
    { type: WEBHOOK_TYPES, outcome: WEBHOOK_OUTCOMES },
  );
  if (count === undefined) return () => {};
  return (event, outcome) =>
    count({ type: event === undefined || event.type === 'ignored' ? 'other' : event.type, outcome });
}
