import type { Kysely } from 'kysely';
import type { CheckoutMode } from '../../../adapters/payments/index.js';
import type { Tables } from '../../../db/tables.js';
import type { ListProductsQuery, PriceView, ProductView, PublicProduct } from './schemas.js';
import type { PriceInterval, ProductKind, ProductRow } from './tables.js';
import './tables.js';

const PRICE_COLUMNS = [
  'billing_prices.id',
  'billing_prices.product_id as productId',
  'billing_prices.provider_price_id as providerPriceId',
  'billing_prices.currency',
  'billing_prices.unit_amount as unitAmount',
  'billing_prices.interval',
  'billing_prices.is_active as isActive',
  'billing_prices.created_at as createdAt',
  'billing_prices.updated_at as updatedAt',
] as const;

const PRODUCT_COLUMNS = [
  'billing_products.id',
  'billing_products.kind',
  'billing_products.name',
  'billing_products.description',
  'billing_products.credits',
  'billing_products.tier_key as tierKey',
  'billing_products.is_active as isActive',
  'billing_products.sort_order as sortOrder',
  'billing_products.metadata',
  'billing_products.updated_by as updatedBy',
  'billing_products.created_at as createdAt',
  'billing_products.updated_at as updatedAt',
] as const;

/** Every price of these products, active first, then by currency, newest first. */
async function pricesByProduct(db: Kysely<Tables>, productIds: string[]): Promise<Map<string, PriceView[]>> {
  const byProduct = new Map<string, PriceView[]>(productIds.map((id) => [id, []]));
  if (productIds.length === 0) return byProduct;
  const rows = await db
    .selectFrom('billing_prices')
    .select(PRICE_COLUMNS)
    .where('billing_prices.product_id', 'in', productIds)
    .orderBy('billing_prices.is_active', 'desc')
    .orderBy('billing_prices.currency')
    .orderBy('billing_prices.created_at', 'desc')
    .orderBy('billing_prices.id')
    .execute();
  for (const row of rows) byProduct.get(row.productId)?.push(row);
  return byProduct;
}

async function withPrices(
  db: Kysely<Tables>,
  rows: Array<Omit<ProductView, 'prices' | 'metadata'> & { metadata: unknown }>,
): Promise<ProductView[]> {
  const prices = await pricesByProduct(
    db,
    rows.map((row) => row.id),
  );
  return rows.map((row) => ({
    ...row,
    metadata: row.metadata as Record<string, unknown>,
    prices: prices.get(row.id) ?? [],
  }));
}

export async function listProducts(db: Kysely<Tables>, query: ListProductsQuery): Promise<ProductView[]> {
  let rows = db.selectFrom('billing_products').select(PRODUCT_COLUMNS);
  if (query.kind !== undefined) rows = rows.where('billing_products.kind', '=', query.kind);
  if (query.isActive !== undefined) rows = rows.where('billing_products.is_active', '=', query.isActive);
  const products = await rows
    .orderBy('billing_products.sort_order')
    .orderBy('billing_products.name')
    .orderBy('billing_products.id')
    .execute();
  return withPrices(db, products);
}

export async function findProduct(db: Kysely<Tables>, id: string): Promise<ProductView | undefined> {
  const row = await db
    .selectFrom('billing_products')
    .select(PRODUCT_COLUMNS)
    .where('billing_products.id', '=', id)
    .executeTakeFirst();
  return row === undefined ? undefined : (await withPrices(db, [row]))[0];
}

/** The product row locked for the rest of the transaction: edits and price changes of one product queue up. */
export function lockProduct(trx: Kysely<Tables>, id: string): Promise<ProductRow | undefined> {
  return trx.selectFrom('billing_products').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
}

export interface NewProduct {
  kind: ProductKind;
  name: string;
  description: string | null;
  credits: number | null;
  tier_key: string | null;
  is_active: boolean;
  sort_order: number;
  metadata: Record<string, unknown>;
}

export async function insertProduct(trx: Kysely<Tables>, product: NewProduct, actorId: string): Promise<string> {
  const row = await trx
    .insertInto('billing_products')
    .values({ ...product, metadata: JSON.stringify(product.metadata), created_by: actorId, updated_by: actorId })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

export type ProductChanges = Partial<Omit<NewProduct, 'kind'>>;

export async function updateProduct(
  trx: Kysely<Tables>,
  id: string,
  changes: ProductChanges,
  actorId: string,
): Promise<void> {
  const { metadata, ...columns } = changes;
  await trx
    .updateTable('billing_products')
    .set({
      ...columns,
      ...(metadata === undefined ? {} : { metadata: JSON.stringify(metadata) }),
      updated_by: actorId,
      updated_at: new Date(),
    })
    .where('id', '=', id)
    .execute();
}

/** The product's active price in a currency, if any (at most one: a partial unique index). */
export function activePriceIn(trx: Kysely<Tables>, productId: string, currency: string) {
  return trx
    .selectFrom('billing_prices')
    .select(['id', 'provider_price_id'])
    .where('product_id', '=', productId)
    .where('currency', '=', currency)
    .where('is_active', '=', true)
    .executeTakeFirst();
}

export function findPriceByProviderId(trx: Kysely<Tables>, providerPriceId: string) {
  return trx
    .selectFrom('billing_prices')
    .select(['id', 'product_id'])
    .where('provider_price_id', '=', providerPriceId)
    .executeTakeFirst();
}

/** What a price charges, by provider price id, active or not; undefined: not in the catalog. */
export function priceChargeByProviderId(db: Kysely<Tables>, providerPriceId: string) {
  return db
    .selectFrom('billing_prices')
    .select(['unit_amount', 'currency', 'interval'])
    .where('provider_price_id', '=', providerPriceId)
    .executeTakeFirst();
}

export interface NewPrice {
  product_id: string;
  product_kind: ProductKind;
  provider_price_id: string;
  currency: string;
  unit_amount: number;
  interval: PriceInterval | null;
  is_active: boolean;
}

export async function insertPrice(trx: Kysely<Tables>, price: NewPrice, actorId: string): Promise<string> {
  const row = await trx
    .insertInto('billing_prices')
    .values({ ...price, created_by: actorId, updated_by: actorId })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

export function lockPrice(trx: Kysely<Tables>, id: string) {
  return trx.selectFrom('billing_prices').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
}

export function findPrice(db: Kysely<Tables>, id: string): Promise<PriceView | undefined> {
  return db.selectFrom('billing_prices').select(PRICE_COLUMNS).where('billing_prices.id', '=', id).executeTakeFirst();
}

export async function setPriceActive(
  trx: Kysely<Tables>,
  id: string,
  isActive: boolean,
  actorId: string,
): Promise<void> {
  await trx
    .updateTable('billing_prices')
    .set({ is_active: isActive, updated_by: actorId, updated_at: new Date() })
    .where('id', '=', id)
    .execute();
}

/**
 * What the storefront sells: active products that have at least one active price (a product
 * nobody can buy is not shown), by sortOrder then name, each with its active prices by currency.
 */
export async function publicProducts(db: Kysely<Tables>): Promise<PublicProduct[]> {
  const rows = await db
    .selectFrom('billing_products as product')
    .innerJoin('billing_prices as price', (join) =>
      join.onRef('price.product_id', '=', 'product.id').on('price.is_active', '=', true),
    )
    .leftJoin('plan_tier_directory as tier', 'tier.key', 'product.tier_key')
    .where('product.is_active', '=', true)
    .select([
      'product.id',
      'product.kind',
      'product.name',
      'product.description',
      'product.credits',
      'tier.key as tierKey',
      'tier.name as tierName',
      'tier.rank as tierRank',
      'price.provider_price_id as priceId',
      'price.currency',
      'price.unit_amount as unitAmount',
      'price.interval',
    ])
    .orderBy('product.sort_order')
    .orderBy('product.name')
    .orderBy('product.id')
    .orderBy('price.currency')
    .execute();
  const products: PublicProduct[] = [];
  for (const row of rows) {
    let product = products[products.length - 1];
    if (product?.id !== row.id) {
      const tier =
        row.tierKey === null || row.tierName === null || row.tierRank === null
          ? null
          : { key: row.tierKey, name: row.tierName, rank: row.tierRank };
      product = {
        id: row.id,
        kind: row.kind,
        name: row.name,
        description: row.description,
        credits: row.credits,
        tier,
        prices: [],
      };
      products.push(product);
    }
    product.prices.push({
      priceId: row.priceId,
      currency: row.currency,
      unitAmount: row.unitAmount,
      interval: row.interval,
    });
  }
  return products;
}

// ---- Checkout (operation 6) resolves what is bought here ----

export interface CheckoutProduct {
  id: string;
  kind: ProductKind;
  name: string;
  /** Credit packs: credits per pack. */
  credits: number | null;
  /** Plans: the tier subscribers get. */
  tierKey: string | null;
}

export interface CheckoutPrice {
  id: string;
  providerPriceId: string;
  currency: string;
  unitAmount: number;
  interval: PriceInterval | null;
}

/**
 * Why a checkout request names nothing buyable, in operation 6's codes: `product` (404: no such
 * active product, or no such active price), `price_mismatch` (422: the price is not one of the
 * product's active prices), `product_has_no_price` (422). `price_required`: the product has an
 * active price in several currencies and only `productId` was sent, so the caller must choose.
 */
export type CheckoutRefusal =
  | { ok: false; reason: 'product' }
  | { ok: false; reason: 'price_mismatch'; productId: string; priceId: string }
  | { ok: false; reason: 'product_has_no_price'; productId: string }
  | { ok: false; reason: 'price_required'; productId: string; priceIds: string[] };

export type CheckoutPriceResolution =
  | { ok: true; product: CheckoutProduct; price: CheckoutPrice; mode: CheckoutMode }
  | CheckoutRefusal;

const CHECKOUT_MODE: Record<ProductKind, CheckoutMode> = { credit_pack: 'payment', plan: 'subscription' };

const CHECKOUT_COLUMNS = [
  'billing_products.id as productId',
  'billing_products.kind',
  'billing_products.name',
  'billing_products.credits',
  'billing_products.tier_key as tierKey',
  'billing_prices.id as priceRowId',
  'billing_prices.provider_price_id as providerPriceId',
  'billing_prices.currency',
  'billing_prices.unit_amount as unitAmount',
  'billing_prices.interval',
] as const;

/**
 * Operation 6's choice of product and price: `productId`, `priceId` (a provider price id) or
 * both (which must agree). Only active products and active prices are for sale; an inactive one
 * answers as if unknown. Runs on a transaction too (pass it as `db`).
 */
export async function resolveCheckoutPrice(
  db: Kysely<Tables>,
  request: { productId?: string; priceId?: string },
): Promise<CheckoutPriceResolution> {
  const { productId, priceId } = request;
  if (productId === undefined && priceId === undefined) return { ok: false, reason: 'product' };
  let candidates = db
    .selectFrom('billing_products')
    .leftJoin('billing_prices', (join) =>
      join.onRef('billing_prices.product_id', '=', 'billing_products.id').on('billing_prices.is_active', '=', true),
    )
    .select(CHECKOUT_COLUMNS)
    .where('billing_products.is_active', '=', true);
  candidates =
    productId !== undefined
      ? candidates.where('billing_products.id', '=', productId)
      : candidates.where('billing_prices.provider_price_id', '=', priceId!);
  const rows = await candidates.orderBy('billing_prices.currency').execute();
  const first = rows[0];
  if (first === undefined) return { ok: false, reason: 'product' };
  const product: CheckoutProduct = {
    id: first.productId,
    kind: first.kind,
    name: first.name,
    credits: first.credits,
    tierKey: first.tierKey,
  };
  const prices = rows.flatMap((row): CheckoutPrice[] =>
    row.priceRowId === null || row.providerPriceId === null || row.currency === null || row.unitAmount === null
      ? []
      : [
          {
            id: row.priceRowId,
            providerPriceId: row.providerPriceId,
            currency: row.currency,
            unitAmount: row.unitAmount,
            interval: row.interval,
          },
        ],
  );
  if (prices.length === 0) return { ok: false, reason: 'product_has_no_price', productId: product.id };
  let price: CheckoutPrice | undefined;
  if (priceId !== undefined) {
    price = prices.find((candidate) => candidate.providerPriceId === priceId);
    if (price === undefined) return { ok: false, reason: 'price_mismatch', productId: product.id, priceId };
  } else {
    if (prices.length > 1)
      return {
        ok: false,
        reason: 'price_required',
        productId: product.id,
        priceIds: prices.map((candidate) => candidate.providerPriceId),
      };
    price = prices[0]!;
  }
  return { ok: true, product, price, mode: CHECKOUT_MODE[product.kind] };
}
