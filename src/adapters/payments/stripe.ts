import { createHash } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import Stripe from 'stripe';
import { trace } from '@opentelemetry/api';
import { inClientSpan, PEER_SERVICE, recordSpanHttpStatus, traceHeaders } from '../../lib/spans.js';
import { z } from 'zod';
import {
  PaymentProviderError,
  WebhookSignatureError,
  type PaymentEvent,
  type PaymentProvider,
  type ProviderCheckout,
  type ProviderCheckoutInput,
  type ProviderCouponInput,
  type ProviderCustomerInput,
  type ProviderInvoice,
  type ProviderPromotionCodeInput,
  type ProviderRefund,
  type ProviderRefundInput,
  type ProviderSubscription,
} from './index.js';
import {
  issuesOf,
  MalformedWebhookEventError,
  refundStatus,
  stripeInvoice,
  stripeSubscription,
  stripeSubscriptionItems,
  toPaymentEvent,
} from './stripe-events.js';

/**
 * The payment provider as Stripe, through the official SDK. docs/payments-provider.md lists the
 * calls each operation makes, the events consumed, and how failures are reported.
 */

/**
 * The API version every request asks for: the one this SDK release was generated for (its types
 * describe that version only). Written out, so an SDK upgrade that moves it fails to compile
 * here until someone has checked the fields this adapter reads (docs/payments-provider.md).
 */
export const STRIPE_API_VERSION = '2026-10-28.endive' satisfies Stripe.LatestApiVersion;
/** Stripe signs `timestamp.payload`; a delivery older than this is refused as a possible replay. */
export const WEBHOOK_TOLERANCE_SECONDS = 300;
export const DEFAULT_TIMEOUT_MS = 10_000;
/** Extra attempts the SDK makes after a connection failure, a timeout, a 409 or a 5xx. */
export const DEFAULT_NETWORK_RETRIES = 2;
/** Stripe's largest page. */
const MAX_LIST_LIMIT = 100;

export interface StripePaymentProviderOptions {
  secretKey: string;
  webhookSecret: string;
  /** Another API origin (`http://127.0.0.1:1234`); absent: api.stripe.com. */
  apiBase?: string | undefined;
  /** Budget of each attempt, answer included. */
  timeoutMs?: number;
  maxNetworkRetries?: number;
  log: FastifyBaseLogger;
}

type Operation = keyof Omit<PaymentProvider, 'kind' | 'parseWebhook' | 'dashboardUrl'>;
/** What a failure's log line says about Stripe's answer, when there was one. */
interface StripeAnswerFacts {
  requestId: string | null;
  type: string | null;
}
const NO_ANSWER: StripeAnswerFacts = { requestId: null, type: null };

const createdObject = z.object({ id: z.string().min(1) });
const checkoutAnswer = z.object({ id: z.string().min(1), url: z.string().nullable() });
const portalAnswer = z.object({ url: z.string().min(1) });
const refundAnswer = z.object({
  id: z.string().min(1),
  amount: z.number().int(),
  currency: z.string().min(1),
  status: z.string().nullable(),
});
const invoiceList = z.object({ data: z.array(z.unknown()) });

const DASHBOARD_SEGMENTS = {
  customer: 'customers',
  subscription: 'subscriptions',
  invoice: 'invoices',
  payment: 'payments',
} as const;

export class StripePaymentProvider implements PaymentProvider {
  readonly kind = 'stripe' as const;
  readonly #stripe: Stripe;
  /** Private fields stay out of enumeration, JSON and logged objects. */
  readonly #secretKey: string;
  readonly #webhookSecret: string;
  readonly #testMode: boolean;
  readonly #timeoutMs: number;
  readonly #log: FastifyBaseLogger;

  constructor(options: StripePaymentProviderOptions) {
    this.#secretKey = options.secretKey;
    this.#webhookSecret = options.webhookSecret;
    this.#testMode = /^(sk|rk)_test_/.test(options.secretKey);
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.#log = options.log;
    this.#stripe = new Stripe(options.secretKey, {
      apiVersion: STRIPE_API_VERSION,
      timeout: this.#timeoutMs,
      maxNetworkRetries: options.maxNetworkRetries ?? DEFAULT_NETWORK_RETRIES,
      // Latency reports about earlier requests are not needed by Stripe to serve this one.
      telemetry: false,
      httpClient: objectAnswersOnly(Stripe.createNodeHttpClient()),
      ...apiOrigin(options.apiBase),
    });
  }

  createCustomer(input: ProviderCustomerInput): Promise<{ id: string }> {
    const params: Stripe.CustomerCreateParams = { metadata: { user_id: input.userId } };
    if (input.email !== null) params.email = input.email;
    if (input.name !== null) params.name = input.name;
    // Keyed by who the customer is: a create repeated after a crash (within Stripe's 24 h
    // idempotency window) answers the customer already made instead of a second one.
    const idempotencyKey = `customer-${input.userId}-${digest([input.email, input.name])}`;
    return this.#call('createCustomer', createdObject, () =>
      this.#stripe.customers.create(params, { idempotencyKey }),
    ).then(({ id }) => ({ id }));
  }

  async createCheckout(input: ProviderCheckoutInput): Promise<ProviderCheckout> {
    if (input.mode === 'subscription' && input.quantity !== 1) {
      throw new RangeError(`a subscription checkout is for a single seat, not ${input.quantity}`);
    }
    const params: Stripe.Checkout.SessionCreateParams = {
      mode: input.mode,
      customer: input.customerId,
      line_items: [{ price: input.providerPriceId, quantity: input.quantity }],
      success_url: input.successUrl,
      cancel_url: input.cancelUrl,
      metadata: input.metadata,
    };
    // The payment or subscription the checkout creates carries the metadata too, so its own
    // events (refunds, renewals) lead back to the purchase.
    if (input.mode === 'payment') params.payment_intent_data = { metadata: input.metadata };
    else params.subscription_data = { metadata: input.metadata };
    if (input.promotionCodeId !== undefined) params.discounts = [{ promotion_code: input.promotionCodeId }];
    return this.#call('createCheckout', checkoutAnswer, () =>
      this.#stripe.checkout.sessions.create(params, { idempotencyKey: input.idempotencyKey }),
    );
  }

  createPortalSession(customerId: string, returnUrl: string): Promise<{ url: string }> {
    return this.#call('createPortalSession', portalAnswer, () =>
      this.#stripe.billingPortal.sessions.create({ customer: customerId, return_url: returnUrl }),
    );
  }

  async changeSubscriptionPrice(
    subscriptionId: string,
    providerPriceId: string,
    idempotencyKey: string,
  ): Promise<ProviderSubscription> {
    const current = await this.#call('changeSubscriptionPrice', stripeSubscriptionItems, () =>
      this.#stripe.subscriptions.retrieve(subscriptionId),
    );
    const items = current.items.data;
    if (items.length !== 1) {
      throw this.#refusedLocally(
        'changeSubscriptionPrice',
        'subscription_not_single_item',
        `subscription ${subscriptionId} has ${items.length} items; only a single-item subscription can move to ` +
          `another price`,
      );
    }
    return this.#call('changeSubscriptionPrice', stripeSubscription, () =>
      this.#stripe.subscriptions.update(
        subscriptionId,
        { items: [{ id: items[0]!.id, price: providerPriceId }], proration_behavior: 'none' },
        { idempotencyKey },
      ),
    );
  }

  cancelSubscription(subscriptionId: string, when: 'now' | 'period_end'): Promise<ProviderSubscription> {
    if (when === 'now')
      return this.#call('cancelSubscription', stripeSubscription, () =>
        this.#stripe.subscriptions.cancel(subscriptionId),
      );
    return this.#call('cancelSubscription', stripeSubscription, () =>
      this.#stripe.subscriptions.update(subscriptionId, { cancel_at_period_end: true }),
    );
  }

  resumeSubscription(subscriptionId: string): Promise<ProviderSubscription> {
    return this.#call('resumeSubscription', stripeSubscription, () =>
      this.#stripe.subscriptions.update(subscriptionId, { cancel_at_period_end: false }),
    );
  }

  async refundPayment(input: ProviderRefundInput): Promise<ProviderRefund> {
    const params: Stripe.RefundCreateParams = { payment_intent: input.paymentId };
    if (input.amount !== undefined) params.amount = input.amount;
    // Stripe's own `reason` takes three fixed values; the staff member's words go to metadata.
    if (input.reason !== undefined) params.metadata = { reason: input.reason };
    const refund = await this.#call('refundPayment', refundAnswer, () =>
      this.#stripe.refunds.create(params, { idempotencyKey: input.idempotencyKey }),
    );
    return { id: refund.id, amount: refund.amount, currency: refund.currency, status: refundStatus(refund.status) };
  }

  async listInvoices(customerId: string, limit: number): Promise<ProviderInvoice[]> {
    const pageSize = Math.min(Math.max(Math.trunc(limit), 1), MAX_LIST_LIMIT);
    const page = await this.#call('listInvoices', invoiceList, () =>
      this.#stripe.invoices.list({ customer: customerId, limit: pageSize }),
    );
    return page.data.map((invoice) => {
      const parsed = stripeInvoice.safeParse(invoice);
      if (!parsed.success)
        throw this.#failed(
          'listInvoices',
          null,
          200,
          null,
          `an invoice in the answer does not read as Stripe's (${issuesOf(parsed.error)})`,
        );
      return parsed.data;
    });
  }

  async createCoupon(input: ProviderCouponInput): Promise<{ id: string }> {
    const params: Stripe.CouponCreateParams = { duration: input.duration, name: input.name };
    if (input.percentOff !== undefined) params.percent_off = input.percentOff;
    if (input.amountOff !== undefined) params.amount_off = input.amountOff;
    if (input.currency !== undefined) params.currency = input.currency;
    if (input.durationInMonths !== undefined) params.duration_in_months = input.durationInMonths;
    if (input.maxRedemptions !== undefined) params.max_redemptions = input.maxRedemptions;
    if (input.redeemBy !== undefined) params.redeem_by = epochSeconds(input.redeemBy);
    return this.#call('createCoupon', createdObject, () => this.#stripe.coupons.create(params)).then(({ id }) => ({
      id,
    }));
  }

  async deleteCoupon(couponId: string): Promise<void> {
    const started = performance.now();
    try {
      await this.#stripe.coupons.del(couponId);
    } catch (error) {
      // Already gone at Stripe is what was asked for (a repeated delete, or one made in the dashboard).
      if (
        error instanceof Stripe.errors.StripeInvalidRequestError &&
        error.statusCode === 404 &&
        error.code === 'resource_missing'
      )
        return;
      throw this.#mapped('deleteCoupon', error, elapsed(started));
    }
  }

  async createPromotionCode(input: ProviderPromotionCodeInput): Promise<{ id: string }> {
    // Since 2025-09-30.clover the coupon sits under `promotion`, not at the top level.
    const params: Stripe.PromotionCodeCreateParams = {
      promotion: { type: 'coupon', coupon: input.couponId },
      code: input.code,
      active: input.active,
      restrictions: { first_time_transaction: input.firstTimeTransaction },
    };
    if (input.maxRedemptions !== undefined) params.max_redemptions = input.maxRedemptions;
    if (input.expiresAt !== undefined) params.expires_at = epochSeconds(input.expiresAt);
    return this.#call('createPromotionCode', createdObject, () => this.#stripe.promotionCodes.create(params)).then(
      ({ id }) => ({ id }),
    );
  }

  async updatePromotionCode(promotionCodeId: string, input: { active?: boolean }): Promise<void> {
    // Stripe lets a promotion code change only `active` (and metadata) after it is created.
    if (input.active === undefined) return;
    const active = input.active;
    await this.#call('updatePromotionCode', createdObject, () =>
      this.#stripe.promotionCodes.update(promotionCodeId, { active }),
    );
  }

  parseWebhook(rawBody: Buffer, signatureHeader: string | undefined): PaymentEvent {
    if (signatureHeader === undefined || signatureHeader.trim() === '')
      throw new WebhookSignatureError('no Stripe-Signature header');
    let event: unknown;
    try {
      event = this.#stripe.webhooks.constructEvent(
        rawBody,
        signatureHeader,
        this.#webhookSecret,
        WEBHOOK_TOLERANCE_SECONDS,
      );
    } catch (error) {
      if (error instanceof Stripe.errors.StripeSignatureVerificationError)
        throw new WebhookSignatureError(signatureProblem(error.message));
      // The signature held but the body is no JSON: Stripe never sends that.
      if (error instanceof SyntaxError) throw new MalformedWebhookEventError(null, null, 'the signed body is not JSON');
      throw error;
    }
    return toPaymentEvent(event);
  }

  dashboardUrl(type: 'customer' | 'subscription' | 'invoice' | 'payment', id: string): string {
    const mode = this.#testMode ? 'test/' : '';
    return `https://dashboard.stripe.com/${mode}${DASHBOARD_SEGMENTS[type]}/${encodeURIComponent(id)}`;
  }

  /**
   * One SDK call (with the SDK's own retries) whose answer must read as `answer`; failures are mapped and logged once.
   */
  async #call<T>(operation: Operation, answer: z.ZodType<T, unknown>, request: () => Promise<unknown>): Promise<T> {
    const started = performance.now();
    let body: unknown;
    try {
      // The SDK's own retries are in this span; its HTTP client (objectAnswersOnly) sends the trace headers.
      body = await inClientSpan(`stripe ${operation}`, { [PEER_SERVICE]: 'stripe' }, () => request());
    } catch (error) {
      throw this.#mapped(operation, error, elapsed(started));
    }
    const parsed = answer.safeParse(body);
    if (!parsed.success)
      throw this.#failed(
        operation,
        null,
        200,
        elapsed(started),
        `the answer does not read as Stripe's (${issuesOf(parsed.error)})`,
      );
    return parsed.data;
  }

  #mapped(operation: Operation, error: unknown, durationMs: number): PaymentProviderError {
    if (!(error instanceof Stripe.errors.StripeError)) {
      return this.#failed(
        operation,
        null,
        null,
        durationMs,
        `the call failed (${error instanceof Error ? error.message : String(error)})`,
      );
    }
    const status = typeof error.statusCode === 'number' ? error.statusCode : null;
    const code = error.code ?? (error.rawType === 'idempotency_error' ? 'idempotency_error' : null);
    const logged: StripeAnswerFacts = { requestId: error.requestId ?? null, type: error.type };
    // The request itself was refused: a declined card, an unknown or inactive id, invalid parameters.
    if (
      error instanceof Stripe.errors.StripeCardError ||
      error instanceof Stripe.errors.StripeInvalidRequestError ||
      error instanceof Stripe.errors.StripeIdempotencyError
    ) {
      const message = this.#redact(error.message || `Stripe refused the request (${status ?? 'no status'})`);
      this.#warn(operation, status, code, durationMs, logged, `Stripe refused: ${message}`);
      return new PaymentProviderError(operation, 'refused', code, message, status);
    }
    // Nothing wrong with the request: Stripe is unreachable, slow, failing, rate limiting, or
    // refuses this service's key (401, 403), which only an operator can fix.
    const problem =
      error instanceof Stripe.errors.StripeConnectionError
        ? connectionProblem(error.message, this.#timeoutMs)
        : status === null
          ? `the answer could not be read (${error.message})`
          : `Stripe answered ${status}${error.message ? ` (${error.message})` : ''}`;
    return this.#failed(operation, code, status, durationMs, problem, logged);
  }

  /** A precondition checked before calling Stripe; reported like Stripe's own refusals. */
  #refusedLocally(operation: Operation, code: string, message: string): PaymentProviderError {
    this.#warn(operation, null, code, null, NO_ANSWER, `refused: ${message}`);
    return new PaymentProviderError(operation, 'refused', code, message, null);
  }

  #failed(
    operation: Operation,
    code: string | null,
    status: number | null,
    durationMs: number | null,
    problem: string,
    logged = NO_ANSWER,
  ): PaymentProviderError {
    const message = this.#redact(`${operation}: ${problem}`);
    this.#warn(operation, status, code, durationMs, logged, `Stripe unavailable: ${this.#redact(problem)}`);
    return new PaymentProviderError(operation, 'unavailable', code, message, status);
  }

  /** The one warn line a failure gets: never the key, the webhook secret, or a request body. */
  #warn(
    operation: Operation,
    status: number | null,
    code: string | null,
    durationMs: number | null,
    logged: StripeAnswerFacts,
    message: string,
  ) {
    this.#log.warn(
      {
        payment_operation: operation,
        provider_status: status,
        provider_code: code,
        provider_error: logged.type,
        provider_request_id: logged.requestId,
        duration_ms: durationMs,
      },
      `payment provider call failed: ${message}`,
    );
  }

  /** A provider echoing a credential back must not carry it into a log line or an error. */
  #redact(text: string): string {
    const bounded = text.length > 500 ? `${text.slice(0, 500)}…` : text;
    return bounded.split(this.#secretKey).join('[redacted]').split(this.#webhookSecret).join('[redacted]');
  }
}

/**
 * The SDK takes every answer's JSON to be an object. Valid JSON that is not one (`null`, a
 * string: what a proxy may answer) makes it throw outside its promise chain, so the call would
 * never settle and the rejection would go unhandled. Such a body is refused here as unreadable,
 * which the SDK reports as it does any other unreadable answer. Each request also carries the
 * trace headers of its call's span, and the span its status (tracing on).
 */
function objectAnswersOnly(inner: Stripe.HttpClient): Stripe.HttpClient {
  return {
    getClientName: () => inner.getClientName(),
    makeRequest: async (host, port, path, method, headers, requestData, protocol, timeout) => {
      const response = await inner.makeRequest(
        host,
        port,
        path,
        method,
        traceHeaders(headers as Record<string, string>),
        requestData,
        protocol,
        timeout,
      );
      recordSpanHttpStatus(trace.getActiveSpan(), response.getStatusCode());
      const dispose = response.dispose;
      return {
        getStatusCode: () => response.getStatusCode(),
        getHeaders: () => response.getHeaders(),
        getRawResponse: () => response.getRawResponse(),
        toStream: (streamCompleteCallback) => response.toStream(streamCompleteCallback),
        ...(dispose === undefined ? {} : { dispose: () => dispose.call(response) }),
        toJSON: async () => {
          const body: unknown = await response.toJSON();
          if (typeof body !== 'object' || body === null || Array.isArray(body))
            throw new SyntaxError('the answer is not a JSON object');
          return body;
        },
      };
    },
  };
}

/** `http://127.0.0.1:1234` → the SDK's host, port and protocol; absent → Stripe's own. */
function apiOrigin(apiBase: string | undefined): { host?: string; port?: number; protocol?: 'http' | 'https' } {
  if (apiBase === undefined) return {};
  const url = new URL(apiBase);
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new Error(`STRIPE_API_BASE must be http(s), not ${url.protocol}`);
  // The SDK puts its own /v1/... paths after the origin and cannot keep a path prefix.
  if (url.pathname !== '/' || url.search !== '')
    throw new Error('STRIPE_API_BASE must be an origin (scheme, host, port), without a path');
  const protocol = url.protocol === 'http:' ? 'http' : 'https';
  return { host: url.hostname, port: url.port === '' ? (protocol === 'http' ? 80 : 443) : Number(url.port), protocol };
}

/**
 * The SDK says "Request aborted due to timeout being reached (Nms)" or "An error occurred with our connection to
 * Stripe. Request was retried N times."
 */
function connectionProblem(message: string, timeoutMs: number): string {
  if (/timeout/i.test(message)) return `no answer within ${timeoutMs} ms`;
  return `unreachable (${message})`;
}

/** Stripe's verification messages, shortened; none of them holds the secret. */
function signatureProblem(message: string): string {
  if (/tolerance/i.test(message)) return `the signature is older than ${WEBHOOK_TOLERANCE_SECONDS} s`;
  if (/No signatures found matching/i.test(message)) return 'the signature does not match the body';
  if (/Unable to extract timestamp|No signatures found with expected scheme/i.test(message))
    return 'the Stripe-Signature header is malformed';
  return message.split('\n')[0]!.slice(0, 200);
}

function epochSeconds(iso: string): number {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) throw new RangeError(`not an instant: ${iso}`);
  return Math.floor(ms / 1000);
}

function digest(parts: unknown[]): string {
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, 16);
}

function elapsed(started: number): number {
  return Math.round(performance.now() - started);
}
