import type { FastifyBaseLogger } from 'fastify';
import { type PaymentEvent, type PaymentProvider, WebhookSignatureError } from '../../../adapters/payments/index.js';
import { MalformedWebhookEventError } from '../../../adapters/payments/stripe-events.js';
import type { Deps } from '../../../composition/platform.js';
import { AppError } from '../../../kernel/errors.js';
import type { Fulfilment } from './fulfilment.js';

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
type WebhookOutcome = (typeof WEBHOOK_OUTCOMES)[number];

/** Counts one delivery of the payment provider's webhook; `event` is undefined when it was not read. */
type CountWebhookDelivery = (event: PaymentEvent | undefined, outcome: WebhookOutcome) => void;

/** The webhook's delivery counter (metrics), or nothing counted when METRICS_PORT is unset. */
function webhookDeliveryCounter(deps: Deps<'metrics'>): CountWebhookDelivery {
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

/**
 * The payment provider's webhook: a delivery is verified over its raw bytes, then goes through
 * the one Fulfilment every provider event takes; each delivery is counted by how it ended.
 */
export class WebhookReceiver {
  readonly #count: CountWebhookDelivery;

  constructor(
    private readonly payments: PaymentProvider,
    private readonly fulfilment: Fulfilment,
    deps: Deps<'metrics'>,
  ) {
    this.#count = webhookDeliveryCounter(deps);
  }

  /** 400 `invalid_signature` (missing, wrong or too old) or `invalid_event` (signed but unreadable). */
  async receive(raw: Buffer, signature: string | undefined, log: FastifyBaseLogger): Promise<void> {
    let event: PaymentEvent;
    try {
      event = this.payments.parseWebhook(raw, signature);
    } catch (error) {
      if (error instanceof WebhookSignatureError) {
        log.warn({ reason: error.message }, 'stripe webhook refused: bad signature');
        this.#count(undefined, 'invalid_signature');
        throw new AppError(400, 'invalid_signature');
      }
      if (error instanceof MalformedWebhookEventError) {
        log.error(
          { event_id: error.eventId, event_type: error.eventType, reason: error.message },
          'stripe webhook event unreadable',
        );
        this.#count(undefined, 'invalid_event');
        throw new AppError(400, 'invalid_event');
      }
      this.#count(undefined, 'error');
      throw error;
    }
    let outcome: 'processed' | 'duplicate';
    try {
      outcome = await this.fulfilment.process(event);
    } catch (error) {
      this.#count(event, 'error');
      throw error;
    }
    this.#count(event, outcome);
  }
}
