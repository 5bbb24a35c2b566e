import { z } from 'zod';
import { type PaymentEvent, WebhookSignatureError } from '../../../adapters/payments/index.js';
import { LocalPaymentProvider } from '../../../adapters/payments/local.js';
import { MalformedWebhookEventError } from '../../../adapters/payments/stripe-events.js';
import { actorOf } from '../../../kernel/auth.js';
import { AppError } from '../../../kernel/errors.js';
import { idempotencyKeyHeaders, idempotentAnswer } from '../../../kernel/idempotency.js';
import type { Deps } from '../../../composition/platform.js';
import type { ZodApp } from '../../../kernel/http/zod-app.js';
import { CheckoutService } from './checkout.js';
import { Fulfilment } from './fulfilment.js';
import { registerLocalCheckoutPages } from './local-pages.js';
import {
  checkoutSessionBody,
  checkoutSessionResult,
  myBillingView,
  myInvoicesPage,
  myInvoicesQuery,
  portalSessionBody,
  portalSessionResult,
} from './schemas.js';
import { webhookDeliveryCounter } from './webhook-metrics.js';

const tags = ['billing'];

/** Stripe's events are small; a body this large is not one. */
const WEBHOOK_BODY_LIMIT_BYTES = 512 * 1024;

/**
 * Player: operation 6 (checkout), GET /v1/me/billing, GET /v1/me/billing/invoices, POST
 * /v1/me/billing/portal-session. Provider: POST /v1/webhooks/stripe, and the local provider's
 * checkout pages when it is the configured one. Every provider event goes through one Fulfilment.
 */
export function registerBillingRoutes(
  app: ZodApp,
  deps: Deps<'config' | 'db' | 'log' | 'metrics' | 'payments' | 'write'>,
): void {
  const checkout = new CheckoutService(deps.db, deps.payments, deps.config);
  const fulfilment = new Fulfilment(deps.write, deps.payments.kind, deps.log);
  const countDelivery = webhookDeliveryCounter(deps);

  app.post(
    '/v1/me/billing/checkout-session',
    {
      config: {
        errors: {
          404: ['product'],
          409: ['conflict'],
          422: ['invalid_request', 'price_mismatch', 'product_has_no_price'],
        },
      },
      schema: {
        operationId: 'createCheckoutSession',
        tags,
        summary: 'Start a checkout',
        description:
          'Sends the player to the payment provider to buy a credit pack or subscribe to a plan (`productId` or ' +
          '`priceId`). Idempotent with an `Idempotency-Key` header (a key belongs to the player who sent it). In ' +
          'depth: [docs/api/billing.md](docs/api/billing.md#start-a-checkout).',
        headers: idempotencyKeyHeaders('checkout'),
        body: checkoutSessionBody,
        response: { 200: checkoutSessionResult },
      },
    },
    async (request, reply) => {
      const started = await checkout.createCheckoutSession(
        actorOf(request).userId,
        request.body,
        request.headers['idempotency-key'],
      );
      return idempotentAnswer(reply, started);
    },
  );

  app.get(
    '/v1/me/billing',
    {
      schema: {
        operationId: 'getMyBilling',
        tags,
        summary: "The caller's billing",
        description:
          "The caller's customer id at the configured provider (null before the first checkout), live " +
          'subscription (trialing, active or past due; null when none), tier and credit balance.',
        response: { 200: myBillingView },
      },
    },
    (request) => checkout.myBilling(actorOf(request).userId),
  );

  app.get(
    '/v1/me/billing/invoices',
    {
      schema: {
        operationId: 'listMyBillingInvoices',
        tags,
        summary: "The caller's invoices",
        description: "The caller's own invoices, newest first; `meta.total` counts them all.",
        querystring: myInvoicesQuery,
        response: { 200: myInvoicesPage },
      },
    },
    (request) => checkout.myInvoices(actorOf(request).userId, request.query),
  );

  app.post(
    '/v1/me/billing/portal-session',
    {
      config: { errors: { 422: ['invalid_request'] } },
      schema: {
        operationId: 'createBillingPortalSession',
        tags,
        summary: 'Open the billing portal',
        description:
          "The provider's self-service page (payment methods, plan, invoices) for the caller; a player without a " +
          'customer yet gets one made. Errors: 400 SchemaError (`return_url` not an absolute http(s) URL in plain ' +
          'characters); 422 `invalid_request` (`return_url` not on an allowed origin; the provider refused); 503 ' +
          '`unavailable`.',
        body: portalSessionBody,
        response: { 200: portalSessionResult },
      },
    },
    (request) => checkout.createPortalSession(actorOf(request).userId, request.body.return_url),
  );

  // The signature covers the exact bytes Stripe sent: this scope alone keeps JSON bodies raw.
  void app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser(
      'application/json',
      { parseAs: 'buffer', bodyLimit: WEBHOOK_BODY_LIMIT_BYTES },
      (_request, body, done) => done(null, body),
    );
    scope.post(
      '/v1/webhooks/stripe',
      {
        config: { errors: { 400: ['invalid_signature', 'invalid_event'] } },
        schema: {
          operationId: 'receiveStripeWebhook',
          tags,
          summary: 'Stripe webhook',
          description:
            "Stripe's event deliveries. The `Stripe-Signature` header is verified over the raw body (5 minute " +
            'tolerance); each event id is processed once (a redelivery answers 200 and does nothing). 400 ' +
            '`invalid_signature`: missing, wrong or too old; `invalid_event`: signed but unreadable.',
          response: { 200: z.object({ received: z.literal(true) }).describe('The event was received.') },
        },
      },
      async (request) => {
        const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
        const header = request.headers['stripe-signature'];
        let event: PaymentEvent;
        try {
          event = deps.payments.parseWebhook(raw, typeof header === 'string' ? header : undefined);
        } catch (error) {
          if (error instanceof WebhookSignatureError) {
            request.log.warn({ reason: error.message }, 'stripe webhook refused: bad signature');
            countDelivery(undefined, 'invalid_signature');
            throw new AppError(400, 'invalid_signature');
          }
          if (error instanceof MalformedWebhookEventError) {
            request.log.error(
              { event_id: error.eventId, event_type: error.eventType, reason: error.message },
              'stripe webhook event unreadable',
            );
            countDelivery(undefined, 'invalid_event');
            throw new AppError(400, 'invalid_event');
          }
          countDelivery(undefined, 'error');
          throw error;
        }
        let outcome: 'processed' | 'duplicate';
        try {
          outcome = await fulfilment.process(event);
        } catch (error) {
          countDelivery(event, 'error');
          throw error;
        }
        countDelivery(event, outcome);
        return { received: true as const };
      },
    );
  });

  if (deps.payments instanceof LocalPaymentProvider)
    registerLocalCheckoutPages(app, deps, deps.payments, fulfilment, checkout);
}
