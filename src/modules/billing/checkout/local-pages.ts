import { z } from 'zod';
import type { FastifyReply } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { PaymentProviderError, type PaymentEvent } from '../../../adapters/payments/index.js';
import type { LocalCheckout, LocalPaymentProvider } from '../../../adapters/payments/local.js';
import { invalidState, notFound } from '../../../kernel/errors.js';
import type { Deps } from '../../../composition/platform.js';
import { httpUrl, httpUrlProblem } from '../../../lib/url-field.js';
import type { ZodApp } from '../../../kernel/http/zod-app.js';
import { checkRedirectUrl, type CheckoutService } from './service.js';
import type { Fulfilment } from './fulfilment.js';
import { escapeHtml } from '../../../lib/html.js';

const tags = ['billing'];
const params = z.object({ id: z.string().min(1).max(200) });
/** A redirect has no body; the Location header is where the player goes. */
const redirect = z.null().describe("Location: the checkout's success or cancel URL");

function formatAmount(minor: number, currency: string): string {
  try {
    return new Intl.NumberFormat('en', { style: 'currency', currency: currency.toUpperCase() }).format(minor / 100);
  } catch {
    return `${minor} ${currency}`;
  }
}

function page(checkout: LocalCheckout, productName: string): string {
  const id = encodeURIComponent(checkout.id);
  const what =
    checkout.mode === 'subscription'
      ? `${escapeHtml(productName)}, every ${checkout.interval ?? 'month'}`
      : `${checkout.quantity} × ${escapeHtml(productName)}`;
  const actions =
    checkout.status === 'open'
      ? `<form method="post" action="/v1/public/billing/local/checkout/${id}/pay"><button type="submit">Pay \
${escapeHtml(formatAmount(checkout.amountTotal, checkout.currency))}</button></form>
<form method="post" action="/v1/public/billing/local/checkout/${id}/cancel"><button \
type="submit">Cancel</button></form>`
      : `<p>This checkout is ${escapeHtml(checkout.status)}.</p>`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Checkout</title><meta name="robots" content="noindex"></head>
<body><main>
<h1>Checkout (test payments: no money is taken)</h1>
<p>${what}</p>
<p>Total: ${escapeHtml(formatAmount(checkout.amountTotal, checkout.currency))}</p>
${actions}
</main></body></html>`;
}

function portalPage(returnUrl: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Billing</title><meta name="robots" content="noindex"></head>
<body><main>
<h1>Billing (test payments)</h1>
<p>The local payment provider keeps no cards or invoices to manage. Subscriptions are cancelled or resumed by staff.</p>
<p><a href="${escapeHtml(returnUrl)}">Back</a></p>
</main></body></html>`;
}

/**
 * The pages' policy: no script, style or other resource at all (they need none), never framed, no
 * <base>. The checkout page's forms post here and are redirected (303) to the checkout's success
 * or cancel URL, which browsers check against form-action too: those origins are allowed.
 */
function pagePolicy(formTargets: readonly string[]): string {
  const origins = new Set<string>();
  for (const target of formTargets) {
    try {
      const { origin, protocol } = new URL(target);
      if (protocol === 'http:' || protocol === 'https:') origins.add(origin);
    } catch {
      // A URL no redirect could follow: paying refuses it anyway (refuseUnredirectable).
    }
  }
  const formAction = formTargets.length === 0 ? "'none'" : ["'self'", ...origins].join(' ');
  return `default-src 'none'; form-action ${formAction}; frame-ancestors 'none'; base-uri 'none'`;
}

/**
 * Where the page sends the player, checked before the checkout is paid or cancelled. A checkout
 * made before URLs were checked may hold one that cannot be written into a Location header: the
 * page answered a 500 after the credits were granted. It is refused as it stands (422
 * `invalid_state`, nothing paid, nothing changed); the player starts a new checkout.
 */
function refuseUnredirectable(checkout: LocalCheckout): void {
  for (const [field, url] of [
    ['successUrl', checkout.successUrl],
    ['cancelUrl', checkout.cancelUrl],
  ] as const) {
    const problem = httpUrlProblem(url);
    if (problem === undefined) continue;
    throw invalidState({ field, reason: `the checkout's ${field} ${problem}; start a new checkout` });
  }
}

/**
 * The local provider's checkout page: the player pays or cancels, the provider returns the
 * events Stripe would send, and they go through the same fulfilment as Stripe's webhook before
 * the player is sent on (303) to the checkout's success or cancel URL. Paying or cancelling a
 * checkout that is no longer open processes nothing and just sends the player on.
 */
export function registerLocalCheckoutPages(
  app: ZodApp,
  deps: Deps<'config'>,
  provider: LocalPaymentProvider,
  fulfilment: Fulfilment,
  checkouts: CheckoutService,
): void {
  const checkoutOf = (id: string): LocalCheckout => {
    const checkout = provider.checkout(id);
    if (checkout === undefined) throw notFound('checkout');
    return checkout;
  };

  void app.register(async (plain) => {
    const scope = plain.withTypeProvider<ZodTypeProvider>();
    // The page's buttons post empty HTML forms; their bodies carry nothing the routes read.
    plain.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string', bodyLimit: 1024 },
      (_request, _body, done) => done(null, undefined),
    );

    scope.get(
      '/v1/public/billing/local/checkout/:id',
      {
        config: { errors: { 404: ['checkout'] } },
        schema: {
          tags,
          operationId: 'getLocalCheckoutPage',
          summary: 'Local provider: checkout page',
          description:
            'An HTML page with the product, the amount, and Pay and Cancel buttons. 404 `checkout` (unknown id). ' +
            'Only served by the local payment provider.',
          params,
          response: { 200: z.string().describe('text/html') },
        },
      },
      async (request, reply) => {
        const checkout = checkoutOf(request.params.id);
        const productId = checkout.metadata.product_id;
        const name = productId === undefined ? undefined : await checkouts.productName(productId);
        return reply
          .type('text/html; charset=utf-8')
          .header('cache-control', 'no-store')
          .header('content-security-policy', pagePolicy([checkout.successUrl, checkout.cancelUrl]))
          .send(page(checkout, name ?? checkout.providerPriceId));
      },
    );

    const settle = (action: 'pay' | 'cancel') => async (request: { params: { id: string } }, reply: FastifyReply) => {
      const checkout = checkoutOf(request.params.id);
      refuseUnredirectable(checkout);
      if (checkout.status === 'open') {
        let events: PaymentEvent[];
        try {
          events = action === 'pay' ? provider.payCheckout(checkout.id) : provider.cancelCheckout(checkout.id);
        } catch (error) {
          // Settled meanwhile by another request: nothing left to do here.
          if (!(error instanceof PaymentProviderError)) throw error;
          events = [];
        }
        for (const event of events) await fulfilment.process(event);
      }
      const settled = provider.checkout(checkout.id)!;
      return reply.redirect(settled.status === 'complete' ? settled.successUrl : settled.cancelUrl, 303);
    };

    scope.post(
      '/v1/public/billing/local/checkout/:id/pay',
      {
        config: { errors: { 404: ['checkout'], 422: ['invalid_state'] } },
        schema: {
          tags,
          operationId: 'payLocalCheckout',
          summary: 'Local provider: pay a checkout',
          description:
            'Pays the checkout, fulfils it (credits, subscription, tier) and answers 303 to its success URL. 404 ' +
            '`checkout`; 422 `invalid_state` (a checkout stored with a success or cancel URL the page cannot send ' +
            'the player to: nothing is paid).',
          params,
          response: { 303: redirect },
        },
      },
      settle('pay'),
    );

    scope.post(
      '/v1/public/billing/local/checkout/:id/cancel',
      {
        config: { errors: { 404: ['checkout'], 422: ['invalid_state'] } },
        schema: {
          tags,
          operationId: 'cancelLocalCheckout',
          summary: 'Local provider: cancel a checkout',
          description:
            'Expires the checkout and answers 303 to its cancel URL (its success URL if it was already paid). 404 ' +
            '`checkout`; 422 `invalid_state` (as for paying: nothing changes).',
          params,
          response: { 303: redirect },
        },
      },
      settle('cancel'),
    );

    scope.get(
      '/v1/public/billing/local/portal',
      {
        config: { errors: { 422: ['invalid_request'] } },
        schema: {
          tags,
          operationId: 'getLocalBillingPortalPage',
          summary: 'Local provider: billing portal page',
          description:
            'Where `POST /v1/me/billing/portal-session` sends players on the local provider: test payments keep ' +
            'no cards or invoices to manage, so the page says so and links back to `return_url` (http or https ' +
            'only, and on an allowed origin when `CHECKOUT_ALLOWED_ORIGINS` is set: else 422 `invalid_request`).',
          querystring: z.object({ return_url: httpUrl({ max: 2000 }) }),
          response: { 200: z.string().describe('text/html') },
        },
      },
      async (request, reply) => {
        // Anyone can open this page with any link: it must not become a way to send players elsewhere.
        checkRedirectUrl('return_url', request.query.return_url, deps.config.checkoutAllowedOrigins);
        return reply
          .type('text/html; charset=utf-8')
          .header('cache-control', 'no-store')
          .header('content-security-policy', pagePolicy([]))
          .send(portalPage(request.query.return_url));
      },
    );
  });

  app.get(
    '/v1/admin/billing/local/dashboard/:type/:id',
    {
      config: { perms: ['billing.read'], errors: { 404: ['not_found'] } },
      schema: {
        operationId: 'getLocalBillingObject',
        tags,
        summary: 'Local provider: an object as the provider holds it',
        description:
          "Where the local provider's deep links (`GET /v1/admin/billing/deep-link/{type}/{id}`) lead: the " +
          "provider's own record of a customer, subscription, invoice or payment (with its refunds), as Stripe's " +
          'dashboard would show it. 404 `not_found` for an id the provider does not hold. Only served by the ' +
          'local payment provider.',
        params: z.object({
          type: z.enum(['customer', 'subscription', 'invoice', 'payment']),
          id: z.string().min(1).max(200),
        }),
        response: {
          200: z
            .object({
              provider: z.literal('local'),
              type: z.string(),
              id: z.string(),
              object: z.record(z.string(), z.unknown()),
            })
            .describe('The object as the local provider holds it.'),
        },
      },
    },
    (request) => {
      const object = provider.dashboardObject(request.params.type, request.params.id);
      if (object === undefined) throw notFound();
      return {
        provider: 'local' as const,
        type: request.params.type,
        id: request.params.id,
        object: object as Record<string, unknown>,
      };
    },
  );
}
