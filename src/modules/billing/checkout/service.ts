import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { PaymentProvider, ProviderCheckout } from '../../../adapters/payments/index.js';
import type { Tables } from '../../../db/tables.js';
import { conflict, invalidRequest } from '../../../kernel/errors.js';
import { OneAtATime, requestFingerprint } from '../../../kernel/idempotency.js';
import { paged } from '../../../kernel/pagination.js';
import { httpUrlProblem } from '../../../lib/url-field.js';
import { resolveCheckoutPrice, checkoutRefusalError } from '../catalog/index.js';
import { promotionForCheckout } from './promotion-at-checkout.js';
import { providerFailure } from '../provider-errors.js';
import {
  checkoutByRequestKey,
  closedCheckoutCount,
  customerContact,
  insertCheckoutSession,
  myBilling,
  myInvoices,
  productName,
  storeCustomer,
  storedCustomer,
} from './queries.js';
import type { CheckoutSessionBody, MyBillingView, MyInvoicesQuery } from './schemas.js';

type Db = Kysely<Tables>;

/**
 * A double-click (or a client retry) inside this window sends the provider the same idempotency
 * key, so it answers the same checkout instead of making a second one.
 */
const CHECKOUT_KEY_WINDOW_MS = 10 * 60 * 1000;

/** The player's view of a provider failure: its code, not its message. */
export const providerError = (error: unknown) => providerFailure(error, { withMessage: false });

/**
 * Redirect targets are absolute http(s) URLs in plain characters (the schemas say so already; a
 * service is called from elsewhere too), and on an allowed origin when the deployment lists them.
 */
export function checkRedirectUrl(field: string, value: string, allowedOrigins: readonly string[]): void {
  const problem = httpUrlProblem(value);
  if (problem !== undefined) throw invalidRequest({ field, reason: problem });
  const url = new URL(value);
  if (allowedOrigins.length === 0) return;
  const allowed = allowedOrigins.some((origin) => {
    try {
      return new URL(origin).origin === url.origin;
    } catch {
      return false;
    }
  });
  if (!allowed) throw invalidRequest({ field, reason: 'the URL is not on an allowed origin' });
}

export interface CheckoutConfig {
  checkoutAllowedOrigins: readonly string[];
}

/** The player's Idempotency-Key and what the request asked, as kept on the checkout row. */
interface IdempotentRequest {
  key: string;
  fingerprint: string;
}

export interface CheckoutAnswer {
  url: string | null;
  id: string;
  /** True when this answers an earlier request under the same Idempotency-Key. */
  replayed: boolean;
}

/**
 * Operation 6 and the billing portal: everything that sends a player to the provider's pages; and
 * the player's own view of their billing.
 */
export class CheckoutService {
  /** Keyed checkouts of one player and key, one at a time in this instance. */
  readonly #keyed = new OneAtATime();

  constructor(
    private readonly db: Db,
    private readonly payments: PaymentProvider,
    private readonly config: CheckoutConfig,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /**
   * Without an Idempotency-Key, a repeat within minutes gets the same checkout from the provider
   * (`#checkoutKey`). With one, the key and a hash of the body are stored on the checkout row
   * (unique per player) and a repeat answers that row (`replayed`) without asking the provider,
   * however much later; another body under the key is 409 `conflict`. Repeats racing in this
   * instance wait for the first (`OneAtATime`); one racing on another instance sends the provider
   * the same key, gets the same checkout, finds the first row on the unique index and replays it.
   */
  async createCheckoutSession(
    userId: string,
    body: CheckoutSessionBody,
    idempotencyKey?: string,
  ): Promise<CheckoutAnswer> {
    if (idempotencyKey === undefined) return this.#createCheckout(userId, body, undefined);
    const request = { key: idempotencyKey, fingerprint: requestFingerprint(body) };
    return this.#keyed.run(
      `${userId}:${idempotencyKey}`,
      async () => (await this.#earlier(userId, request)) ?? this.#createCheckout(userId, body, request),
    );
  }

  /**
   * The checkout an earlier request under this key made, answered again; 409 when that request asked for something
   * else.
   */
  async #earlier(userId: string, request: IdempotentRequest): Promise<CheckoutAnswer | undefined> {
    const row = await checkoutByRequestKey(this.db, userId, request.key);
    if (row === undefined) return undefined;
    if (row.request_fingerprint !== request.fingerprint)
      throw conflict({ reason: 'this idempotency key was already used for a different request' });
    return { url: row.url, id: row.provider_checkout_id, replayed: true };
  }

  async #createCheckout(
    userId: string,
    body: CheckoutSessionBody,
    request: IdempotentRequest | undefined,
  ): Promise<CheckoutAnswer> {
    const resolution = await resolveCheckoutPrice(this.db, {
      ...(body.productId !== undefined ? { productId: body.productId } : {}),
      ...(body.priceId !== undefined ? { priceId: body.priceId } : {}),
    });
    if (!resolution.ok) throw checkoutRefusalError(resolution);
    const { product, price, mode } = resolution;
    if (mode === 'subscription' && body.quantity !== undefined && body.quantity !== 1) {
      throw invalidRequest({ field: 'quantity', reason: 'a plan is a single seat: quantity must be 1' });
    }
    const quantity = body.quantity ?? 1;
    checkRedirectUrl('successUrl', body.successUrl, this.config.checkoutAllowedOrigins);
    checkRedirectUrl('cancelUrl', body.cancelUrl, this.config.checkoutAllowedOrigins);

    const promotion =
      body.promotionCode === undefined
        ? undefined
        : await promotionForCheckout(this.db, {
            code: body.promotionCode,
            userId,
            currency: price.currency,
            now: this.now(),
          });

    const customerId = await this.ensureCustomer(userId);
    // For people reading the provider's dashboard: fulfilment reads the checkout row, never these.
    const metadata: Record<string, string> = {
      user_id: userId,
      product_id: product.id,
      price_id: price.providerPriceId,
      quantity: String(quantity),
    };
    if (product.credits !== null) metadata.credits = String(product.credits);
    const idempotencyKey =
      request === undefined
        ? await this.#checkoutKey(userId, price.id, quantity, body)
        : requestCheckoutKey(userId, request.key);
    // The provider may still refuse a code the mirror accepted (it settles races for a last redemption).
    let checkout: ProviderCheckout;
    try {
      checkout = await this.payments.createCheckout({
        customerId,
        mode,
        providerPriceId: price.providerPriceId,
        quantity,
        successUrl: body.successUrl,
        cancelUrl: body.cancelUrl,
        metadata,
        idempotencyKey,
        ...(promotion === undefined ? {} : { promotionCodeId: promotion.providerPromotionCodeId }),
      });
    } catch (error) {
      throw providerError(error);
    }
    // A repeated provider key answers the checkout already recorded: keep the first row. So does
    // a racing repeat of the player's key: it waits on the key's unique index, then replays.
    const inserted = await insertCheckoutSession(this.db, {
      user_id: userId,
      provider: this.payments.kind,
      provider_checkout_id: checkout.id,
      product_id: product.id,
      price_id: price.id,
      // The credits a pack adds are fixed here: a later catalog edit does not change what was bought.
      mode,
      quantity,
      credits: mode === 'payment' ? product.credits : null,
      success_url: body.successUrl,
      cancel_url: body.cancelUrl,
      promotion_code_id: promotion?.id ?? null,
      url: checkout.url,
      request_key: request?.key ?? null,
      request_fingerprint: request?.fingerprint ?? null,
    });
    if (request !== undefined && !inserted) {
      const earlier = await this.#earlier(userId, request);
      if (earlier !== undefined) return earlier;
    }
    return { url: checkout.url, id: checkout.id, replayed: false };
  }

  /** The provider's self-service portal; the customer is made first when the player has none yet. */
  async createPortalSession(userId: string, returnUrl: string): Promise<{ url: string }> {
    checkRedirectUrl('return_url', returnUrl, this.config.checkoutAllowedOrigins);
    const customerId = await this.ensureCustomer(userId);
    try {
      return await this.payments.createPortalSession(customerId, returnUrl);
    } catch (error) {
      throw providerError(error);
    }
  }

  /**
   * The player's customer at the configured provider: the stored one, else one made now. Two
   * first checkouts racing each make one at the provider; the first stored wins and both use it
   * (the other stays unused at the provider, harmless).
   */
  async ensureCustomer(userId: string): Promise<string> {
    const kind = this.payments.kind;
    const stored = await storedCustomer(this.db, userId);
    if (stored?.provider === kind) return stored.provider_customer_id;
    const user = await customerContact(this.db, userId);
    let created: { id: string };
    try {
      created = await this.payments.createCustomer({ userId, email: user.email, name: user.display_name });
    } catch (error) {
      throw providerError(error);
    }
    await storeCustomer(this.db, userId, kind, created.id);
    const winner = await storedCustomer(this.db, userId);
    return winner!.provider_customer_id;
  }

  /** GET /v1/me/billing. */
  myBilling(userId: string): Promise<MyBillingView> {
    return myBilling(this.db, userId, this.payments.kind);
  }

  /** GET /v1/me/billing/invoices. */
  async myInvoices(userId: string, query: MyInvoicesQuery) {
    const { rows, total } = await myInvoices(this.db, userId, query);
    return paged(rows, query, total);
  }

  /** The product's name for the local provider's checkout page; undefined: no such product. */
  productName(productId: string): Promise<string | undefined> {
    return productName(this.db, productId);
  }

  /**
   * Same request within the window → same key → the provider answers the same checkout. Once one
   * of the player's checkouts completes or expires the key changes, so buying the same pack again
   * right after gets a fresh checkout rather than the finished one.
   */
  async #checkoutKey(userId: string, priceRowId: string, quantity: number, body: CheckoutSessionBody): Promise<string> {
    const closed = await closedCheckoutCount(this.db, userId);
    const window = Math.floor(this.now().getTime() / CHECKOUT_KEY_WINDOW_MS);
    const digest = createHash('sha256')
      .update(
        JSON.stringify([
          userId,
          priceRowId,
          quantity,
          body.successUrl,
          body.cancelUrl,
          body.promotionCode?.toUpperCase() ?? null,
          closed,
          window,
        ]),
      )
      .digest('hex');
    return `checkout:${digest}`;
  }
}

/**
 * The provider's key under the player's Idempotency-Key: it names that request (the key hashed,
 * never sent as given), so a retry after the provider answered but before the row was written,
 * or a repeat racing on another instance, gets the same checkout back.
 */
function requestCheckoutKey(userId: string, key: string): string {
  return `checkout:${userId}:request:${createHash('sha256').update(key).digest('hex').slice(0, 40)}`;
}
