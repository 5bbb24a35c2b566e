import { PaymentProviderError } from '../../adapters/payments/index.js';
import { invalidRequest, unavailable } from '../../kernel/errors.js';

/** Provider failures in the service's words, for every member of billing (other areas: checkout's index). */

export interface ProviderFailureOptions {
  /** Staff routes show the provider's message (card declined, no such coupon); player routes only its code. */
  withMessage: boolean;
}

/** A payment-provider failure in the service's words: a refusal is 422 with the provider's code, an outage 503. */
export function providerFailure(error: unknown, options: ProviderFailureOptions): unknown {
  if (!(error instanceof PaymentProviderError)) return error;
  if (error.kind === 'unavailable') return unavailable({ reason: 'the payment provider is unavailable' });
  return invalidRequest({
    reason: 'the payment provider refused the request',
    provider_code: error.code,
    ...(options.withMessage ? { provider_message: error.message } : {}),
  });
}

/** Runs a provider call and rethrows its failure as the route's error. */
export async function atProvider<T>(call: () => Promise<T>, options: ProviderFailureOptions): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw providerFailure(error, options);
  }
}
