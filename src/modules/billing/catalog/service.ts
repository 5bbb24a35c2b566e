import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { PaymentProviderKind } from '../../../adapters/payments/index.js';
import type { Tables } from '../../../db/tables.js';
import type { Actor } from '../../../kernel/actor.js';
import { AppError, conflict, invalidRequest, notFound } from '../../../kernel/errors.js';
import {
  activePriceIn,
  findPrice,
  findPriceByProviderId,
  findProduct,
  insertPrice,
  insertProduct,
  listProducts,
  lockPrice,
  lockProduct,
  publicProducts,
  setPriceActive,
  updateProduct,
  type CheckoutRefusal,
  type ProductChanges,
} from './queries.js';
import { shareLockTier } from '../../plans/index.js';
import {
  PRODUCT_FIELDS,
  type CreatePriceInput,
  type CreateProductInput,
  type ListProductsQuery,
  type PriceView,
  type ProductView,
  type PublicProduct,
  type UpdatePriceInput,
  type UpdateProductInput,
} from './schemas.js';
import type { ProductRow } from './tables.js';
import { isUniqueViolation } from '../../../lib/sql-errors.js';
import type { Writes } from '../../../kernel/write.js';
import { pricePicture, productPicture } from './audit-picture.js';

/** Operation 6's refusals as the spec's errors (checkout throws what `resolveCheckoutPrice` refused). */
export function checkoutRefusalError(refusal: CheckoutRefusal): AppError {
  switch (refusal.reason) {
    case 'product':
      return notFound('product');
    case 'price_mismatch':
      return new AppError(422, 'price_mismatch', { productId: refusal.productId, priceId: refusal.priceId });
    case 'product_has_no_price':
      return new AppError(422, 'product_has_no_price', { productId: refusal.productId });
    case 'price_required':
      return invalidRequest({
        reason: 'the product has active prices in several currencies: pass priceId',
        productId: refusal.productId,
        priceIds: refusal.priceIds,
      });
  }
}

type ProductField = (typeof PRODUCT_FIELDS)[number];
const PRODUCT_COLUMN: Record<ProductField, keyof ProductChanges & keyof ProductRow> = {
  name: 'name',
  description: 'description',
  credits: 'credits',
  tierKey: 'tier_key',
  isActive: 'is_active',
  sortOrder: 'sort_order',
  metadata: 'metadata',
};

const providerPriceIdTaken = (providerPriceId: string) =>
  conflict({ reason: 'providerPriceId is taken', providerPriceId });
const activePriceExists = (currency: string, activePriceId?: string) =>
  conflict({
    reason: 'the product already has an active price in this currency; deactivate it first',
    currency,
    ...(activePriceId ? { activePriceId } : {}),
  });

/** Staff CRUD of billing products and prices, and the storefront's list. */
export class BillingCatalogService {
  constructor(
    private readonly db: Kysely<Tables>,
    private readonly write: Writes,
    private readonly providerKind: PaymentProviderKind,
  ) {}

  async list(query: ListProductsQuery): Promise<{ data: ProductView[] }> {
    return { data: await listProducts(this.db, query) };
  }

  async get(id: string): Promise<ProductView> {
    const product = await findProduct(this.db, id);
    if (product === undefined) throw notFound();
    return product;
  }

  publicProducts(): Promise<PublicProduct[]> {
    return publicProducts(this.db);
  }

  async createProduct(actor: Actor, input: CreateProductInput): Promise<{ id: string }> {
    return this.write(actor, async (w) => {
      const credits = input.kind === 'credit_pack' ? input.credits : null;
      const tierKey = input.kind === 'plan' ? input.tierKey : null;
      if (tierKey !== null && !(await shareLockTier(w.trx, tierKey)))
        throw invalidRequest({ reason: 'unknown tier', tierKey });
      const product = {
        kind: input.kind,
        name: input.name,
        description: input.description ?? null,
        credits,
        tier_key: tierKey,
        is_active: input.isActive,
        sort_order: input.sortOrder,
        metadata: input.metadata,
      };
      const id = await insertProduct(w.trx, product, actor.userId);
      await w.auditRow(productPicture, {
        action: 'plans.product.create',
        targetType: 'billing_product',
        targetId: id,
        after: product,
      });
      return { id };
    });
  }

  /** Omitted fields keep their value; `kind` never changes; a body that changes nothing writes nothing. */
  async updateProduct(actor: Actor, id: string, input: UpdateProductInput): Promise<ProductView> {
    return this.write(actor, async (w) => {
      const current = await lockProduct(w.trx, id);
      if (current === undefined) throw notFound();
      if (input.credits !== undefined && current.kind !== 'credit_pack')
        throw invalidRequest({ reason: 'credits apply to credit packs only', kind: current.kind });
      if (input.tierKey !== undefined && current.kind !== 'plan')
        throw invalidRequest({ reason: 'tierKey applies to plans only', kind: current.kind });
      const wanted = Object.fromEntries(PRODUCT_FIELDS.map((field) => [PRODUCT_COLUMN[field], input[field]]));
      const { before, after, changed } = productPicture.changes(current, wanted);
      if (changed.length > 0) {
        const changes: Record<string, unknown> = Object.fromEntries(changed.map((column) => [column, wanted[column]]));
        if (changes.tier_key !== undefined && !(await shareLockTier(w.trx, changes.tier_key as string))) {
          throw invalidRequest({ reason: 'unknown tier', tierKey: changes.tier_key });
        }
        await updateProduct(w.trx, id, changes as ProductChanges, actor.userId);
        await w.audit({
          action: 'plans.product.update',
          targetType: 'billing_product',
          targetId: id,
          before,
          after,
          extra: { kind: current.kind },
        });
      }
      return (await findProduct(w.trx, id))!;
    });
  }

  /**
   * A new price for a product. A plan's price recurs (`interval` required), a pack's does not.
   * At most one active price per product and currency, so checkout never has to guess.
   */
  async createPrice(
    actor: Actor,
    productId: string,
    input: CreatePriceInput,
  ): Promise<{ id: string; providerPriceId: string }> {
    const interval = input.interval ?? null;
    try {
      return await this.write(actor, async (w) => {
        const product = await lockProduct(w.trx, productId);
        if (product === undefined) throw notFound();
        if (product.kind === 'plan' && interval === null)
          throw invalidRequest({ reason: 'a plan price needs an interval (month or year)', kind: product.kind });
        if (product.kind === 'credit_pack' && interval !== null)
          throw invalidRequest({ reason: 'a credit pack price is paid once and has no interval', kind: product.kind });
        const providerPriceId = input.providerPriceId ?? this.#localPriceId();
        if (input.providerPriceId !== undefined && (await findPriceByProviderId(w.trx, providerPriceId)) !== undefined)
          throw providerPriceIdTaken(providerPriceId);
        if (input.isActive) {
          const active = await activePriceIn(w.trx, productId, input.currency);
          if (active !== undefined) throw activePriceExists(input.currency, active.id);
        }
        const price = {
          product_id: productId,
          product_kind: product.kind,
          provider_price_id: providerPriceId,
          currency: input.currency,
          unit_amount: input.unitAmount,
          interval,
          is_active: input.isActive,
        };
        const id = await insertPrice(w.trx, price, actor.userId);
        await w.auditRow(pricePicture, {
          action: 'plans.price.create',
          targetType: 'billing_price',
          targetId: id,
          after: price,
          extra: { productId, generated: input.providerPriceId === undefined },
        });
        return { id, providerPriceId };
      });
    } catch (error) {
      // A concurrent create got there between our check and our insert.
      if (isUniqueViolation(error, 'billing_prices_provider_price_id_key'))
        throw providerPriceIdTaken(input.providerPriceId ?? '');
      if (isUniqueViolation(error, 'billing_prices_one_active_per_currency')) throw activePriceExists(input.currency);
      throw error;
    }
  }

  /** Only the active flag changes: a price's terms are fixed once made (invoices refer to them). */
  async updatePrice(actor: Actor, id: string, input: UpdatePriceInput): Promise<PriceView> {
    let currency = '';
    try {
      return await this.write(actor, async (w) => {
        const known = await findPrice(w.trx, id);
        if (known === undefined) throw notFound();
        // Product first, then price: the order createPrice takes them in, so the two never deadlock.
        await lockProduct(w.trx, known.productId);
        const current = (await lockPrice(w.trx, id))!;
        currency = current.currency;
        if (current.is_active === input.isActive) return known;
        if (input.isActive) {
          const active = await activePriceIn(w.trx, current.product_id, current.currency);
          if (active !== undefined) throw activePriceExists(current.currency, active.id);
        }
        await setPriceActive(w.trx, id, input.isActive, actor.userId);
        await w.auditRow(pricePicture, {
          action: 'plans.price.update',
          targetType: 'billing_price',
          targetId: id,
          before: current,
          after: { is_active: input.isActive },
          only: ['is_active'],
          extra: {
            productId: current.product_id,
            providerPriceId: current.provider_price_id,
            currency: current.currency,
          },
        });
        return (await findPrice(w.trx, id))!;
      });
    } catch (error) {
      if (isUniqueViolation(error, 'billing_prices_one_active_per_currency')) throw activePriceExists(currency);
      throw error;
    }
  }

  /** The local provider knows any price id it is given; one made here is unique by its randomness. */
  #localPriceId(): string {
    if (this.providerKind !== 'local')
      throw invalidRequest({
        reason: 'providerPriceId is required: create the price at the payment provider first',
        provider: this.providerKind,
      });
    return `local_price_${randomBytes(12).toString('hex')}`;
  }
}
