import type { FastifyBaseLogger } from 'fastify';
import type { PaymentProvider, PaymentsConfig } from './index.js';
import { LocalPaymentProvider, type LocalPaymentProviderOptions } from './local.js';

/**
 * `stripe` when a secret key is configured, else `local`. The local provider charges prices from
 * the service's own catalog and serves its pages from the service, so whoever builds it passes
 * what it needs for that (`local`); Stripe needs nothing beyond the settings. The Stripe SDK is
 * loaded only when it is used (it costs a start about 0.2 s).
 */
export async function createPaymentProvider(
  config: PaymentsConfig,
  log: FastifyBaseLogger,
  local?: LocalPaymentProviderOptions,
): Promise<PaymentProvider> {
  if (config.stripeSecretKey !== undefined) {
    // Config loading refuses a key without a webhook secret; this guards callers that build config by hand.
    if (config.stripeWebhookSecret === undefined)
      throw new Error('STRIPE_WEBHOOK_SECRET must be set when STRIPE_SECRET_KEY is set');
    const { StripePaymentProvider } = await import('./stripe.js');
    return new StripePaymentProvider({
      secretKey: config.stripeSecretKey,
      webhookSecret: config.stripeWebhookSecret,
      apiBase: config.stripeApiBase,
      log,
    });
  }
  if (local === undefined) {
    throw new Error(
      'the local payment provider needs its options (catalog price lookup, public base URL); pass them, or set ' +
        'STRIPE_SECRET_KEY to use Stripe',
    );
  }
  return new LocalPaymentProvider(local);
}
