import { MailTransportError, type MailTransport } from '../adapters/mail/index.js';
import { PaymentProviderError, type PaymentProvider } from '../adapters/payments/index.js';
import { RuntimeUnavailableError, type RuntimeClient } from '../adapters/runtime/index.js';
import type { PeerCallMeter, PeerCallOutcome } from '../lib/spans.js';
import type { Signal, SignalRecorder } from '../kernel/areas/signals.js';

/** Which errors of a call count as the outside service failing (the rest: it answered, with a refusal). */
type FailureTest = (error: unknown) => boolean;

/**
 * The adapter itself, with the named async methods counted as one observation of `signal` each.
 * Every other property passes through, bound to the adapter (its private fields stay reachable),
 * so `instanceof` and provider-specific methods keep working.
 */
function tapped<T extends object>(
  adapter: T,
  signal: Signal,
  methods: ReadonlyArray<keyof T>,
  failed: FailureTest,
  signals: SignalRecorder,
): T {
  const counted = new Set<PropertyKey>(methods);
  return new Proxy(adapter, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      const method = value as (...args: unknown[]) => unknown;
      if (!counted.has(property)) return method.bind(target);
      return async (...args: unknown[]) => {
        try {
          const result = await method.apply(target, args);
          signals.record(signal, false);
          return result;
        } catch (error) {
          signals.record(signal, failed(error));
          throw error;
        }
      };
    },
  });
}

/**
 * Runtime availability: session creations and health probes that could not reach it, or got a 5xx. A 4xx refusal
 * (`no_capacity`) is an answer.
 */
export function tapRuntime(runtime: RuntimeClient, signals: SignalRecorder): RuntimeClient {
  return tapped(
    runtime,
    'runtime',
    ['createSession', 'health'],
    (error) => !(error instanceof Error) || error instanceof RuntimeUnavailableError,
    signals,
  );
}

const PAYMENT_CALLS = [
  'createCustomer',
  'createCheckout',
  'createPortalSession',
  'changeSubscriptionPrice',
  'cancelSubscription',
  'resumeSubscription',
  'refundPayment',
  'listInvoices',
  'createCoupon',
  'deleteCoupon',
  'createPromotionCode',
  'updatePromotionCode',
] as const satisfies ReadonlyArray<keyof PaymentProvider>;

/** A payment call's outcome class: refused (a declined card, an unknown id), failed, or no answer at all. */
function paymentOutcome(error: unknown): PeerCallOutcome {
  if (!(error instanceof PaymentProviderError)) return 'failed';
  if (error.kind === 'refused') return 'refused';
  return error.status === null ? 'unreachable' : 'failed';
}

/**
 * Payment provider errors: unreachable, 5xx, rate-limited after retries. A declined card is an answer.
 * With a `meter` (metrics on), each call is also measured by method and outcome: here, not in the
 * adapters, because both providers pass here (the local one has no HTTP exchange to wrap, and
 * Stripe's SDK retries inside one call).
 */
export function tapPayments<T extends PaymentProvider>(payments: T, signals: SignalRecorder, meter?: PeerCallMeter): T {
  const measured = meter === undefined ? payments : metered(payments, PAYMENT_CALLS, meter);
  return tapped(
    measured,
    'payments',
    PAYMENT_CALLS,
    (error) => error instanceof PaymentProviderError && error.kind === 'unavailable',
    signals,
  );
}

/** The adapter with the named async methods measured on `meter`, by method name and outcome. */
function metered<T extends object>(adapter: T, methods: ReadonlyArray<keyof T>, meter: PeerCallMeter): T {
  const measured = new Set<PropertyKey>(methods);
  return new Proxy(adapter, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      const method = value as (...args: unknown[]) => unknown;
      if (!measured.has(property)) return method.bind(target);
      const operation = String(property);
      return async (...args: unknown[]) => {
        const started = performance.now();
        let outcome: PeerCallOutcome = 'ok';
        try {
          return await method.apply(target, args);
        } catch (error) {
          outcome = paymentOutcome(error);
          throw error;
        } finally {
          meter.called(operation, outcome, (performance.now() - started) / 1_000);
        }
      };
    },
  });
}

/**
 * Mail delivery errors: the server could not be reached or deferred (4xx). A mailbox refused for good (5xx) is an
 * answer.
 */
export function tapMail(mail: MailTransport, signals: SignalRecorder): MailTransport {
  return tapped(mail, 'mail', ['send'], (error) => !(error instanceof MailTransportError && error.permanent), signals);
}
