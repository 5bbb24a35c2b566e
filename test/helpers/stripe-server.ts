import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { randomBytes } from 'node:crypto';

/**
 * A Stripe API on loopback, speaking the v1 routes the `stripe` payment provider calls, the way
 * the real API does: form-encoded bodies in Stripe's bracket notation, Stripe-shaped JSON objects
 * (API version 2026-10-28.endive: subscription periods on items, invoice → subscription under
 * `parent`, promotion codes naming their coupon under `promotion`), `{ error: { type, code,
 * message, param } }` refusals, unknown parameters refused, and Idempotency-Key replay. A test
 * can make it refuse, fail, rate limit or hang, and reads back every request it received.
 */

type Json = Record<string, unknown>;

export interface RecordedStripeRequest {
  method: string;
  /** The path without the query. */
  path: string;
  /** GET/DELETE query parameters, as sent (bracket keys kept flat: `metadata[user_id]`). */
  query: Record<string, string>;
  /** The form-encoded body, flat, as sent. */
  form: Record<string, string>;
  idempotencyKey: string | null;
  /** `Authorization: Bearer <the secret key>`. */
  authorizedWithKey: boolean;
  stripeVersion: string | null;
  contentType: string | null;
}

export type StripeBehaviour =
  | { kind: 'normal' }
  /**
   * The next `times` requests (all, when absent) get this answer; later ones are served
   * normally. `raw`: the body is a string sent as it is (a proxy's HTML page), not as JSON.
   */
  | { kind: 'answer'; status: number; body: unknown; headers?: Record<string, string>; times?: number; raw?: boolean }
  /** The next `times` requests (all, when absent) are read and never answered. */
  | { kind: 'hang'; times?: number };

export interface StripeServer {
  /** What the provider is configured with as its API base. */
  url: string;
  readonly requests: RecordedStripeRequest[];
  readonly customers: Map<string, Json>;
  readonly checkoutSessions: Map<string, Json>;
  readonly subscriptions: Map<string, Json>;
  readonly refunds: Map<string, Json>;
  readonly coupons: Map<string, Json>;
  readonly promotionCodes: Map<string, Json>;
  addPrice(input: { currency: string; unitAmount: number; interval?: 'month' | 'year'; active?: boolean }): Json;
  addCustomer(overrides?: Json): Json;
  addSubscription(input: { customer: string; price: string; metadata?: Record<string, string> }): Json;
  addPaymentIntent(input: { customer: string; amount: number; currency: string }): Json;
  addInvoice(input: {
    customer: string;
    subscription?: string;
    amount: number;
    currency: string;
    status?: string;
    created?: number;
  }): Json;
  /** Pays an open checkout session as Stripe does: it completes and gets its payment or subscription. */
  completeCheckout(sessionId: string): Json;
  behave(behaviour: StripeBehaviour): void;
  close(): Promise<void>;
}

/** Stripe's error body. */
export function stripeError(
  type: string,
  message: string,
  extra: { code?: string; param?: string; decline_code?: string } = {},
) {
  return { error: { type, message, ...extra, request_log_url: 'https://dashboard.stripe.com/test/logs/req_x' } };
}

const API_VERSION = '2026-10-28.endive';

/** Top-level parameters each route accepts (with `expand`); anything else is `parameter_unknown`. */
const ACCEPTS: Record<string, string[]> = {
  'POST /v1/customers': ['email', 'name', 'metadata', 'description'],
  'POST /v1/checkout/sessions': [
    'mode',
    'customer',
    'line_items',
    'success_url',
    'cancel_url',
    'discounts',
    'metadata',
    'payment_intent_data',
    'subscription_data',
    'client_reference_id',
  ],
  'POST /v1/billing_portal/sessions': ['customer', 'return_url'],
  'GET /v1/subscriptions/{id}': [],
  'POST /v1/subscriptions/{id}': ['items', 'proration_behavior', 'cancel_at_period_end', 'metadata'],
  'DELETE /v1/subscriptions/{id}': ['invoice_now', 'prorate'],
  'POST /v1/refunds': ['payment_intent', 'amount', 'metadata', 'reason'],
  'GET /v1/invoices': ['customer', 'limit', 'starting_after', 'subscription', 'status'],
  'POST /v1/coupons': [
    'percent_off',
    'amount_off',
    'currency',
    'duration',
    'duration_in_months',
    'max_redemptions',
    'redeem_by',
    'name',
    'metadata',
  ],
  'DELETE /v1/coupons/{id}': [],
  'POST /v1/promotion_codes': [
    'promotion',
    'code',
    'max_redemptions',
    'expires_at',
    'restrictions',
    'active',
    'metadata',
  ],
  'POST /v1/promotion_codes/{id}': ['active', 'metadata'],
};

export async function startStripeServer(options: { secretKey: string }): Promise<StripeServer> {
  const requests: RecordedStripeRequest[] = [];
  const customers = new Map<string, Json>();
  const prices = new Map<string, Json>();
  const checkoutSessions = new Map<string, Json>();
  const subscriptions = new Map<string, Json>();
  const paymentIntents = new Map<string, Json>();
  const refunds = new Map<string, Json>();
  const invoices = new Map<string, Json>();
  const coupons = new Map<string, Json>();
  const promotionCodes = new Map<string, Json>();
  const idempotent = new Map<string, { fingerprint: string; status: number; body: unknown }>();
  const sockets = new Set<Socket>();
  let behaviour: StripeBehaviour = { kind: 'normal' };

  function send(
    response: ServerResponse,
    status: number,
    body: unknown,
    headers: Record<string, string> = {},
    raw = false,
  ) {
    response
      .writeHead(status, {
        'content-type': raw ? 'text/html' : 'application/json',
        'request-id': `req_${token(14)}`,
        'stripe-version': API_VERSION,
        ...headers,
      })
      .end(raw ? String(body) : JSON.stringify(body));
  }

  /** The behaviour for this request; a counted one is used up. */
  function takeBehaviour(): StripeBehaviour {
    const current = behaviour;
    if (current.kind !== 'normal' && current.times !== undefined) {
      const left = current.times - 1;
      behaviour = left > 0 ? { ...current, times: left } : { kind: 'normal' };
    }
    return current;
  }

  async function handle(request: IncomingMessage, response: ServerResponse) {
    const raw = await readBody(request);
    const url = new URL(request.url ?? '/', 'http://stripe.test');
    const method = request.method ?? '';
    const form = Object.fromEntries(new URLSearchParams(raw));
    const query = Object.fromEntries(url.searchParams);
    const recorded: RecordedStripeRequest = {
      method,
      path: url.pathname,
      query,
      form,
      idempotencyKey: header(request, 'idempotency-key'),
      authorizedWithKey: request.headers.authorization === `Bearer ${options.secretKey}`,
      stripeVersion: header(request, 'stripe-version'),
      contentType: header(request, 'content-type'),
    };
    requests.push(recorded);

    const now = takeBehaviour();
    if (now.kind === 'hang') return;
    if (now.kind === 'answer') return send(response, now.status, now.body, now.headers, now.raw);

    if (!recorded.authorizedWithKey) {
      const given = /^Bearer (\S+)$/.exec(request.headers.authorization ?? '')?.[1] ?? '';
      return send(response, 401, stripeError('invalid_request_error', `Invalid API Key provided: ${mask(given)}`));
    }

    const { route, id } = routeOf(method, url.pathname);
    const accepted = ACCEPTS[route];
    if (accepted === undefined)
      return send(
        response,
        404,
        stripeError('invalid_request_error', `Unrecognized request URL (${method}: ${url.pathname}).`),
      );
    const params = nest(method === 'POST' ? form : query);
    for (const key of Object.keys(params)) {
      if (key !== 'expand' && !accepted.includes(key)) {
        return send(
          response,
          400,
          stripeError('invalid_request_error', `Received unknown parameter: ${key}`, {
            code: 'parameter_unknown',
            param: key,
          }),
        );
      }
    }

    const fingerprint = `${method} ${url.pathname} ${raw}`;
    const key = recorded.idempotencyKey;
    if (method === 'POST' && key !== null) {
      const earlier = idempotent.get(key);
      if (earlier && earlier.fingerprint !== fingerprint) {
        return send(
          response,
          400,
          stripeError(
            'idempotency_error',
            `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${key}' if you meant to execute a different request.`,
          ),
        );
      }
      if (earlier) return send(response, earlier.status, earlier.body, { 'idempotent-replayed': 'true' });
    }
    const [status, body] = serve(route, id, params);
    // Stripe keeps the result of a request that ran (a success or a card decline), not a validation refusal.
    if (method === 'POST' && key !== null && (status < 400 || status === 402))
      idempotent.set(key, { fingerprint, status, body });
    return send(response, status, body);
  }

  function serve(route: string, id: string, params: Json): [number, unknown] {
    switch (route) {
      case 'POST /v1/customers':
        return createCustomer(params);
      case 'POST /v1/checkout/sessions':
        return createCheckout(params);
      case 'POST /v1/billing_portal/sessions':
        return createPortal(params);
      case 'GET /v1/subscriptions/{id}':
        return withSubscription(id, (subscription) => [200, subscription]);
      case 'POST /v1/subscriptions/{id}':
        return withSubscription(id, (subscription) => updateSubscription(subscription, params));
      case 'DELETE /v1/subscriptions/{id}':
        return withSubscription(id, cancelSubscription);
      case 'POST /v1/refunds':
        return createRefund(params);
      case 'GET /v1/invoices':
        return listInvoices(params);
      case 'POST /v1/coupons':
        return createCoupon(params);
      case 'DELETE /v1/coupons/{id}':
        return deleteCoupon(id);
      case 'POST /v1/promotion_codes':
        return createPromotionCode(params);
      case 'POST /v1/promotion_codes/{id}':
        return updatePromotionCode(id, params);
      default:
        return [404, stripeError('invalid_request_error', 'Unrecognized request URL.')];
    }
  }

  /** An id in a parameter that names nothing is a 400; an id in the path, a 404 on `id`. */
  function missing(kind: string, id: unknown, param?: string): [number, unknown] {
    return [
      param === undefined ? 404 : 400,
      stripeError('invalid_request_error', `No such ${kind}: '${String(id)}'`, {
        code: 'resource_missing',
        param: param ?? 'id',
      }),
    ];
  }

  function invalid(message: string, param?: string, code?: string): [number, unknown] {
    return [
      400,
      stripeError('invalid_request_error', message, {
        ...(param === undefined ? {} : { param }),
        ...(code === undefined ? {} : { code }),
      }),
    ];
  }

  function createCustomer(params: Json): [number, unknown] {
    return [
      200,
      addCustomer({ email: params.email ?? null, name: params.name ?? null, metadata: params.metadata ?? {} }),
    ];
  }

  function addCustomer(overrides: Json = {}): Json {
    const customer = {
      id: `cus_${token(14)}`,
      object: 'customer',
      email: null,
      name: null,
      metadata: {},
      created: nowSeconds(),
      livemode: false,
      ...overrides,
    };
    customers.set(customer.id, customer);
    return customer;
  }

  function createCheckout(params: Json): [number, unknown] {
    const mode = params.mode;
    if (mode !== 'payment' && mode !== 'subscription' && mode !== 'setup')
      return invalid('Missing required param: mode.', 'mode', 'parameter_missing');
    if (typeof params.success_url !== 'string')
      return invalid('Missing required param: success_url.', 'success_url', 'parameter_missing');
    if (typeof params.customer === 'string' && !customers.has(params.customer))
      return missing('customer', params.customer, 'customer');
    const lines = asArray(params.line_items);
    if (lines.length === 0) return invalid('Missing required param: line_items.', 'line_items', 'parameter_missing');
    const line = lines[0] as Json;
    const price = prices.get(String(line.price));
    if (!price) return missing('price', line.price, 'line_items[0][price]');
    if (price.active !== true)
      return invalid(`The price specified is inactive. This field only accepts active prices.`, 'line_items[0][price]');
    const recurring = price.recurring !== null;
    if (mode === 'subscription' && !recurring)
      return invalid(
        'You must provide at least one recurring price in `subscription` mode when using prices.',
        'line_items[0][price]',
      );
    if (mode === 'payment' && recurring)
      return invalid(
        'You specified `payment` mode but passed a recurring price. Either switch to `subscription` mode or use only one-time prices.',
        'line_items[0][price]',
      );
    if (mode === 'subscription' && params.payment_intent_data !== undefined)
      return invalid('You can not pass `payment_intent_data` in `subscription` mode.', 'payment_intent_data');
    if (mode === 'payment' && params.subscription_data !== undefined)
      return invalid('You can not pass `subscription_data` in `payment` mode.', 'subscription_data');
    const quantity = Number(line.quantity ?? 1);
    if (!Number.isInteger(quantity) || quantity < 1)
      return invalid('Invalid positive integer', 'line_items[0][quantity]');
    let discountPercent = 0;
    const discounts = asArray(params.discounts).map((entry) => (entry as Json).promotion_code);
    for (const promotionCodeId of discounts) {
      const promotion = promotionCodes.get(String(promotionCodeId));
      if (!promotion) return missing('promotion code', promotionCodeId, 'discounts[0][promotion_code]');
      if (promotion.active !== true)
        return invalid(
          'This promotion code cannot be redeemed because it is inactive.',
          'discounts[0][promotion_code]',
        );
      const coupon = coupons.get(String((promotion.promotion as Json).coupon));
      discountPercent = Number(coupon?.percent_off ?? 0);
    }
    const subtotal = Number(price.unit_amount) * quantity;
    const id = `cs_test_${token(24)}`;
    const session: Json = {
      id,
      object: 'checkout.session',
      mode,
      customer: params.customer ?? null,
      url: `https://checkout.stripe.com/c/pay/${id}`,
      status: 'open',
      payment_status: 'unpaid',
      success_url: params.success_url,
      cancel_url: params.cancel_url ?? null,
      metadata: params.metadata ?? {},
      amount_subtotal: subtotal,
      amount_total: Math.round(subtotal * (1 - discountPercent / 100)),
      currency: price.currency,
      discounts: discounts.map((promotion_code) => ({ coupon: null, promotion_code })),
      payment_intent: null,
      subscription: null,
      created: nowSeconds(),
      expires_at: nowSeconds() + 86_400,
      livemode: false,
      // Kept to build what completing the session creates; Stripe shows neither on the session.
      _price: price.id,
      _payment_intent_metadata: (params.payment_intent_data as Json | undefined)?.metadata ?? {},
      _subscription_metadata: (params.subscription_data as Json | undefined)?.metadata ?? {},
    };
    checkoutSessions.set(id, session);
    return [200, visible(session)];
  }

  function createPortal(params: Json): [number, unknown] {
    if (typeof params.customer !== 'string')
      return invalid('Missing required param: customer.', 'customer', 'parameter_missing');
    if (!customers.has(params.customer)) return missing('customer', params.customer, 'customer');
    const id = `bps_${token(24)}`;
    return [
      200,
      {
        id,
        object: 'billing_portal.session',
        customer: params.customer,
        return_url: params.return_url ?? null,
        url: `https://billing.stripe.com/p/session/test_${token(24)}`,
        created: nowSeconds(),
        livemode: false,
      },
    ];
  }

  function withSubscription(id: string, then: (subscription: Json) => [number, unknown]): [number, unknown] {
    const subscription = subscriptions.get(id);
    return subscription ? then(subscription) : missing('subscription', id);
  }

  function updateSubscription(subscription: Json, params: Json): [number, unknown] {
    if (subscription.status === 'canceled')
      return invalid('A canceled subscription can only update its cancellation_details and metadata.');
    const proration = params.proration_behavior;
    if (proration !== undefined && !['none', 'create_prorations', 'always_invoice'].includes(String(proration))) {
      return invalid(
        `Invalid proration_behavior: must be one of create_prorations, none, or always_invoice`,
        'proration_behavior',
      );
    }
    const items = (subscription.items as { data: Json[] }).data;
    for (const [index, change] of asArray(params.items).entries()) {
      const { id, price } = change as Json;
      const item = items.find((candidate) => candidate.id === id);
      if (!item) return missing('subscription item', id, `items[${index}][id]`);
      const next = prices.get(String(price));
      if (!next) return missing('price', price, `items[${index}][price]`);
      item.price = next;
    }
    if (params.cancel_at_period_end !== undefined)
      subscription.cancel_at_period_end = params.cancel_at_period_end === 'true';
    if (params.cancel_at_period_end === 'true') subscription.canceled_at = nowSeconds();
    if (params.cancel_at_period_end === 'false') subscription.canceled_at = null;
    return [200, subscription];
  }

  function cancelSubscription(subscription: Json): [number, unknown] {
    subscription.status = 'canceled';
    subscription.canceled_at = nowSeconds();
    subscription.ended_at = nowSeconds();
    return [200, subscription];
  }

  function addSubscription(input: { customer: string; price: string; metadata?: Record<string, string> }): Json {
    const price = prices.get(input.price);
    if (!price) throw new Error(`no price ${input.price}`);
    const id = `sub_${token(14)}`;
    const start = nowSeconds();
    const subscription: Json = {
      id,
      object: 'subscription',
      customer: input.customer,
      status: 'active',
      cancel_at: null,
      cancel_at_period_end: false,
      canceled_at: null,
      ended_at: null,
      created: start,
      start_date: start,
      currency: price.currency,
      metadata: input.metadata ?? {},
      items: {
        object: 'list',
        data: [
          {
            id: `si_${token(14)}`,
            object: 'subscription_item',
            price,
            quantity: 1,
            subscription: id,
            current_period_start: start,
            current_period_end: start + 30 * 86_400,
            metadata: {},
            created: start,
          },
        ],
        has_more: false,
        url: `/v1/subscription_items?subscription=${id}`,
      },
      livemode: false,
    };
    subscriptions.set(id, subscription);
    return subscription;
  }

  function addPaymentIntent(input: { customer: string; amount: number; currency: string }): Json {
    const intent = {
      id: `pi_${token(24)}`,
      object: 'payment_intent',
      customer: input.customer,
      amount: input.amount,
      amount_received: input.amount,
      currency: input.currency,
      status: 'succeeded',
      latest_charge: `ch_${token(24)}`,
      metadata: {},
      created: nowSeconds(),
      livemode: false,
      _refunded: 0,
    };
    paymentIntents.set(intent.id, intent);
    return intent;
  }

  function createRefund(params: Json): [number, unknown] {
    const intent = paymentIntents.get(String(params.payment_intent));
    if (!intent) return missing('payment_intent', params.payment_intent, 'payment_intent');
    const left = Number(intent.amount_received) - Number(intent._refunded);
    if (left <= 0)
      return invalid(
        `Charge ${String(intent.latest_charge)} has already been refunded.`,
        undefined,
        'charge_already_refunded',
      );
    const amount = params.amount === undefined ? left : Number(params.amount);
    if (!Number.isInteger(amount) || amount < 1) return invalid('Invalid positive integer', 'amount');
    if (amount > left)
      return invalid(
        `Refund amount (${money(amount)}) is greater than unrefunded amount on charge (${money(left)})`,
        'amount',
      );
    intent._refunded = Number(intent._refunded) + amount;
    const refund = {
      id: `re_${token(24)}`,
      object: 'refund',
      amount,
      currency: intent.currency,
      payment_intent: intent.id,
      charge: intent.latest_charge,
      status: 'succeeded',
      reason: params.reason ?? null,
      metadata: params.metadata ?? {},
      created: nowSeconds(),
    };
    refunds.set(refund.id, refund);
    return [200, refund];
  }

  function addInvoice(input: {
    customer: string;
    subscription?: string;
    amount: number;
    currency: string;
    status?: string;
    created?: number;
  }): Json {
    const created = input.created ?? nowSeconds();
    const status = input.status ?? 'paid';
    const periodEnd = created + 30 * 86_400;
    const invoice: Json = {
      id: `in_${token(24)}`,
      object: 'invoice',
      customer: input.customer,
      status,
      currency: input.currency,
      amount_due: input.amount,
      amount_paid: status === 'paid' ? input.amount : 0,
      amount_remaining: status === 'paid' ? 0 : input.amount,
      hosted_invoice_url: `https://invoice.stripe.com/i/acct_test/test_${token(24)}`,
      invoice_pdf: `https://pay.stripe.com/invoice/acct_test/test_${token(24)}/pdf`,
      // The invoice's own period is when items could be added to it, not what it pays for.
      period_start: created - 30 * 86_400,
      period_end: created,
      created,
      parent:
        input.subscription === undefined
          ? null
          : {
              type: 'subscription_details',
              quote_details: null,
              subscription_details: { subscription: input.subscription, metadata: {} },
            },
      lines: {
        object: 'list',
        data: [
          {
            id: `il_${token(24)}`,
            object: 'line_item',
            amount: input.amount,
            currency: input.currency,
            period: { start: created, end: periodEnd },
            quantity: 1,
          },
        ],
        has_more: false,
      },
      livemode: false,
    };
    invoices.set(String(invoice.id), invoice);
    return invoice;
  }

  function listInvoices(params: Json): [number, unknown] {
    const limit = params.limit === undefined ? 10 : Number(params.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > 100)
      return invalid(
        `This value must be less than or equal to 100 (it currently is ${String(params.limit)}).`,
        'limit',
      );
    const matching = [...invoices.values()]
      .filter((invoice) => params.customer === undefined || invoice.customer === params.customer)
      .sort((a, b) => Number(b.created) - Number(a.created));
    return [
      200,
      { object: 'list', data: matching.slice(0, limit), has_more: matching.length > limit, url: '/v1/invoices' },
    ];
  }

  function createCoupon(params: Json): [number, unknown] {
    const percent = params.percent_off === undefined ? null : Number(params.percent_off);
    const amount = params.amount_off === undefined ? null : Number(params.amount_off);
    if ((percent === null) === (amount === null))
      return invalid('Must provide either percent_off or amount_off (but not both).');
    if (percent !== null && !(percent > 0 && percent <= 100))
      return invalid('Invalid percent_off: must be greater than 0 and at most 100', 'percent_off');
    if (amount !== null && params.currency === undefined)
      return invalid('You must pass currency when passing amount_off', 'currency');
    const duration = params.duration ?? 'once';
    if (!['once', 'repeating', 'forever'].includes(String(duration))) return invalid('Invalid duration', 'duration');
    if (duration === 'repeating' && params.duration_in_months === undefined)
      return invalid('Must provide duration_in_months when duration is repeating.', 'duration_in_months');
    const coupon = {
      id: token(8),
      object: 'coupon',
      percent_off: percent,
      amount_off: amount,
      currency: params.currency ?? null,
      duration,
      duration_in_months: params.duration_in_months === undefined ? null : Number(params.duration_in_months),
      max_redemptions: params.max_redemptions === undefined ? null : Number(params.max_redemptions),
      redeem_by: params.redeem_by === undefined ? null : Number(params.redeem_by),
      name: params.name ?? null,
      times_redeemed: 0,
      valid: true,
      metadata: params.metadata ?? {},
      created: nowSeconds(),
      livemode: false,
    };
    coupons.set(coupon.id, coupon);
    return [200, coupon];
  }

  function deleteCoupon(id: string): [number, unknown] {
    if (!coupons.delete(id)) return missing('coupon', id);
    return [200, { id, object: 'coupon', deleted: true }];
  }

  function createPromotionCode(params: Json): [number, unknown] {
    const promotion = params.promotion as Json | undefined;
    if (promotion === undefined) return invalid('Missing required param: promotion.', 'promotion', 'parameter_missing');
    if (promotion.type !== 'coupon') return invalid('Invalid promotion[type]: must be coupon', 'promotion[type]');
    if (!coupons.has(String(promotion.coupon))) return missing('coupon', promotion.coupon, 'promotion[coupon]');
    const restrictions = (params.restrictions ?? {}) as Json;
    const code = {
      id: `promo_${token(24)}`,
      object: 'promotion_code',
      code: params.code ?? token(8).toUpperCase(),
      active: params.active === undefined ? true : params.active === 'true',
      promotion: { type: 'coupon', coupon: promotion.coupon },
      customer: null,
      max_redemptions: params.max_redemptions === undefined ? null : Number(params.max_redemptions),
      expires_at: params.expires_at === undefined ? null : Number(params.expires_at),
      restrictions: {
        first_time_transaction: restrictions.first_time_transaction === 'true',
        minimum_amount: null,
        minimum_amount_currency: null,
      },
      times_redeemed: 0,
      metadata: params.metadata ?? {},
      created: nowSeconds(),
      livemode: false,
    };
    promotionCodes.set(code.id, code);
    return [200, code];
  }

  function updatePromotionCode(id: string, params: Json): [number, unknown] {
    const code = promotionCodes.get(id);
    if (!code) return missing('promotion_code', id);
    if (params.active !== undefined) code.active = params.active === 'true';
    return [200, code];
  }

  function completeCheckout(sessionId: string): Json {
    const session = checkoutSessions.get(sessionId);
    if (!session) throw new Error(`no checkout session ${sessionId}`);
    session.status = 'complete';
    session.payment_status = 'paid';
    session.url = null;
    if (session.mode === 'payment') {
      const intent = addPaymentIntent({
        customer: String(session.customer),
        amount: Number(session.amount_total),
        currency: String(session.currency),
      });
      intent.metadata = session._payment_intent_metadata;
      session.payment_intent = intent.id;
    } else {
      const subscription = addSubscription({
        customer: String(session.customer),
        price: String(session._price),
        metadata: session._subscription_metadata as Record<string, string>,
      });
      session.subscription = subscription.id;
    }
    return visible(session);
  }

  const server: Server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => send(response, 500, stripeError('api_error', String(error))));
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    customers,
    checkoutSessions,
    subscriptions,
    refunds,
    coupons,
    promotionCodes,
    addPrice({ currency, unitAmount, interval, active = true }) {
      const price = {
        id: `price_${token(24)}`,
        object: 'price',
        active,
        currency,
        unit_amount: unitAmount,
        recurring: interval === undefined ? null : { interval, interval_count: 1 },
        type: interval === undefined ? 'one_time' : 'recurring',
        product: `prod_${token(14)}`,
        livemode: false,
      };
      prices.set(price.id, price);
      return price;
    },
    addCustomer,
    addSubscription,
    addPaymentIntent,
    addInvoice,
    completeCheckout,
    behave(next) {
      behaviour = next;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        for (const socket of sockets) socket.destroy();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

/** The route template and the id in it, e.g. `POST /v1/subscriptions/{id}`. */
function routeOf(method: string, path: string): { route: string; id: string } {
  const match = /^(\/v1\/(?:subscriptions|coupons|promotion_codes))\/([^/]+)$/.exec(path);
  if (match) return { route: `${method} ${match[1]!}/{id}`, id: decodeURIComponent(match[2]!) };
  return { route: `${method} ${path}`, id: '' };
}

/** Stripe's bracket notation (`a[b][0][c]=v`) back into objects and arrays. */
export function nest(flat: Record<string, string>): Json {
  const root: Json = {};
  for (const [key, value] of Object.entries(flat)) {
    const parts = key.split(/\[|\]\[|\]$/).filter((part, index) => index === 0 || part !== '');
    let node: Record<string, unknown> = root;
    parts.forEach((part, index) => {
      if (index === parts.length - 1) {
        node[part] = value;
        return;
      }
      const next = parts[index + 1]!;
      node[part] ??= /^\d+$/.test(next) ? [] : {};
      node = node[part] as Record<string, unknown>;
    });
  }
  return root;
}

function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value.filter((entry) => entry !== undefined) : [];
}

/** The session as Stripe shows it, without the fields this server keeps for itself. */
function visible(session: Json): Json {
  return Object.fromEntries(Object.entries(session).filter(([key]) => !key.startsWith('_')));
}

function header(request: IncomingMessage, name: string): string | null {
  const value = request.headers[name];
  return typeof value === 'string' ? value : null;
}

function mask(key: string): string {
  return key.length <= 8 ? '****' : `${key.slice(0, 8)}****${key.slice(-4)}`;
}

function money(minor: number): string {
  return `$${(minor / 100).toFixed(2)}`;
}

function token(length: number): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  return [...randomBytes(length)].map((byte) => alphabet[byte % alphabet.length]).join('');
}

function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}
