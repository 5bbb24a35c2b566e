import { PaymentProviderError, type PaymentEvent } from '../../../adapters/payments/index.js';
import type { LocalCheckout, LocalPaymentProvider } from '../../../adapters/payments/local.js';
import { invalidState, notFound } from '../../../kernel/errors.js';
import { escapeHtml } from '../../../lib/html.js';
import { httpUrlProblem } from '../../../lib/url-field.js';
import type { Fulfilment } from './fulfilment.js';
import { checkRedirectUrl, type CheckoutConfig, type CheckoutService } from './service.js';

/** An HTML page and the Content-Security-Policy it is served under. */
export interface HtmlPage {
  html: string;
  policy: string;
}

/** What the provider's dashboard would show of one of its objects. */
export type DashboardType = 'customer' | 'subscription' | 'invoice' | 'payment';

function formatAmount(minor: number, currency: string): string {
  try {
    return new Intl.NumberFormat('en', { style: 'currency', currency: currency.toUpperCase() }).format(minor / 100);
  } catch {
    return `${minor} ${currency}`;
  }
}

function checkoutPage(checkout: LocalCheckout, productName: string): string {
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
 * The local provider's pages: the checkout page, where the player pays or cancels, the provider
 * returns the events Stripe would send, and they go through the same fulfilment as Stripe's
 * webhook before the player is sent on to the checkout's success or cancel URL; the billing
 * portal's stand-in; and staff's look at an object as the provider holds it.
 */
export class LocalCheckoutPages {
  constructor(
    private readonly provider: LocalPaymentProvider,
    private readonly fulfilment: Fulfilment,
    private readonly checkouts: CheckoutService,
    private readonly config: CheckoutConfig,
  ) {}

  /** 404 `checkout` for an unknown id. */
  async checkoutPage(id: string): Promise<HtmlPage> {
    const checkout = this.#checkout(id);
    const productId = checkout.metadata.product_id;
    const name = productId === undefined ? undefined : await this.checkouts.productName(productId);
    return {
      html: checkoutPage(checkout, name ?? checkout.providerPriceId),
      policy: pagePolicy([checkout.successUrl, checkout.cancelUrl]),
    };
  }

  /**
   * Pays or cancels the checkout and answers where the player goes next. Paying or cancelling a
   * checkout that is no longer open processes nothing and just sends the player on.
   */
  async settle(id: string, action: 'pay' | 'cancel'): Promise<string> {
    const checkout = this.#checkout(id);
    refuseUnredirectable(checkout);
    if (checkout.status === 'open') {
      let events: PaymentEvent[];
      try {
        events = action === 'pay' ? this.provider.payCheckout(checkout.id) : this.provider.cancelCheckout(checkout.id);
      } catch (error) {
        // Settled meanwhile by another request: nothing left to do here.
        if (!(error instanceof PaymentProviderError)) throw error;
        events = [];
      }
      for (const event of events) await this.fulfilment.process(event);
    }
    const settled = this.provider.checkout(checkout.id)!;
    return settled.status === 'complete' ? settled.successUrl : settled.cancelUrl;
  }

  /** 422 `invalid_request` for a `return_url` off the allowed origins. */
  portalPage(returnUrl: string): HtmlPage {
    // Anyone can open this page with any link: it must not become a way to send players elsewhere.
    checkRedirectUrl('return_url', returnUrl, this.config.checkoutAllowedOrigins);
    return { html: portalPage(returnUrl), policy: pagePolicy([]) };
  }

  /** 404 `not_found` for an id the provider does not hold. */
  dashboardObject(type: DashboardType, id: string) {
    const object = this.provider.dashboardObject(type, id);
    if (object === undefined) throw notFound();
    return { provider: 'local' as const, type, id, object: object as Record<string, unknown> };
  }

  #checkout(id: string): LocalCheckout {
    const checkout = this.provider.checkout(id);
    if (checkout === undefined) throw notFound('checkout');
    return checkout;
  }
}
