import type { ColumnType, Generated, Selectable } from 'kysely';
import type { DefaultedJson, DefaultedTimestamp } from '../../../db/column-types.js';

export type ProductKind = 'credit_pack' | 'plan';
export type PriceInterval = 'month' | 'year';

export interface BillingProductsTable {
  id: Generated<string>;
  /** Never updated: prices carry it too. */
  kind: ColumnType<ProductKind, ProductKind, never>;
  name: string;
  description: string | null;
  /** Credit packs only (null for plans). */
  credits: number | null;
  /** Plans only (null for credit packs). */
  tier_key: string | null;
  is_active: Generated<boolean>;
  sort_order: Generated<number>;
  metadata: DefaultedJson;
  created_by: string | null;
  updated_by: string | null;
  created_at: DefaultedTimestamp;
  updated_at: DefaultedTimestamp;
}

export interface BillingPricesTable {
  id: Generated<string>;
  // The terms of a price never change (a database trigger refuses it): only is_active does.
  product_id: ColumnType<string, string, never>;
  product_kind: ColumnType<ProductKind, ProductKind, never>;
  provider_price_id: ColumnType<string, string, never>;
  currency: ColumnType<string, string, never>;
  /** Minor units (bigint, read as a number: the column is capped well below 2^53). */
  unit_amount: ColumnType<number, number, never>;
  interval: ColumnType<PriceInterval | null, PriceInterval | null, never>;
  is_active: Generated<boolean>;
  created_by: ColumnType<string | null, string | null, never>;
  updated_by: string | null;
  created_at: ColumnType<Date, Date | string | undefined, never>;
  updated_at: DefaultedTimestamp;
}

/** Migration 0050's views: what the catalog publishes of its products and prices for the family to read. */
export interface CatalogProductsView {
  id: string;
  kind: ProductKind;
  name: string;
  credits: number | null;
  tier_key: string | null;
  is_active: boolean;
  sort_order: number;
}

export interface CatalogPricesView {
  id: string;
  product_id: string;
  provider_price_id: string;
  currency: string;
  unit_amount: number;
  interval: PriceInterval | null;
  is_active: boolean;
}

declare module '../../../db/tables.js' {
  interface Tables {
    billing_products: BillingProductsTable;
    billing_prices: BillingPricesTable;
    /** @published (a view: a product as subscriptions, credits and the overview name it) */
    catalog_products: CatalogProductsView;
    /** @published (a view: a price as subscriptions, credits and the overview read it) */
    catalog_prices: CatalogPricesView;
  }
}

export type ProductRow = Selectable<BillingProductsTable>;
export type PriceRow = Selectable<BillingPricesTable>;
