import { LocalPaymentProvider } from '../../../adapters/payments/local.js';
import { actorOf } from '../../../kernel/auth.js';
import { idempotentAnswer } from '../../../kernel/idempotency.js';
import type { Deps } from '../../../composition/platform.js';
import type { ZodApp } from '../../../kernel/http/zod-app.js';
import { Fulfilment } from './fulfilment.js';
import { LocalCheckoutPages } from './local-pages.js';
import { registerLocalCheckoutPages } from './local-routes.js';
import {
  createBillingPortalSession,
  createCheckoutSession,
  getMyBilling,
  listMyBillingInvoices,
  receiveStripeWebhook,
} from './route-options.js';
import { CheckoutService } from './service.js';
import { WebhookReceiver } from './webhook.js';

/** Stripe's events are small; a body this large is not one. */
const WEBHOOK_BODY_LIMIT_BYTES = 512 * 1024;

/**
 * Player: operation 6 (checkout), GET /v1/me/billing, GET /v1/me/billing/invoices, POST
 * /v1/me/billing/portal-session.
 */
export function registerCheckoutRoutes(app: ZodApp, deps: Deps<'config' | 'db' | 'payments'>): void {
  const checkout = new CheckoutService(deps.db, deps.payments, deps.config);

  app.post('/v1/me/billing/checkout-session', createCheckoutSession, async (request, reply) => {
    const started = await checkout.createCheckoutSession(
      actorOf(request).userId,
      request.body,
      request.headers['idempotency-key'],
    );
    return idempotentAnswer(reply, started);
  });

  app.get('/v1/me/billing', getMyBilling, (request) => checkout.myBilling(actorOf(request).userId));

  app.get('/v1/me/billing/invoices', listMyBillingInvoices, (request) =>
    checkout.myInvoices(actorOf(request).userId, request.query),
  );

  app.post('/v1/me/billing/portal-session', createBillingPortalSession, (request) =>
    checkout.createPortalSession(actorOf(request).userId, request.body.return_url),
  );
}

/**
 * Provider: POST /v1/webhooks/stripe, and the local provider's checkout pages when it is the
 * configured one. Every provider event goes through one Fulfilment.
 */
export function registerProviderRoutes(
  app: ZodApp,
  deps: Deps<'config' | 'db' | 'log' | 'metrics' | 'payments' | 'write'>,
): void {
  const fulfilment = new Fulfilment(deps.write, deps.payments.kind, deps.log);
  const webhook = new WebhookReceiver(deps.payments, fulfilment, deps);

  // The signature covers the exact bytes Stripe sent: this scope alone keeps JSON bodies raw.
  void app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser(
      'application/json',
      { parseAs: 'buffer', bodyLimit: WEBHOOK_BODY_LIMIT_BYTES },
      (_request, body, done) => done(null, body),
    );
    scope.post('/v1/webhooks/stripe', receiveStripeWebhook, async (request) => {
      const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      const header = request.headers['stripe-signature'];
      await webhook.receive(raw, typeof header === 'string' ? header : undefined, request.log);
      return { received: true as const };
    });
  });

  if (deps.payments instanceof LocalPaymentProvider) {
    const checkouts = new CheckoutService(deps.db, deps.payments, deps.config);
    registerLocalCheckoutPages(app, new LocalCheckoutPages(deps.payments, fulfilment, checkouts, deps.config));
  }
}
