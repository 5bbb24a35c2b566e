import { sql, type Expression, type ExpressionBuilder, type Kysely, type SqlBool } from 'kysely';
import type { Tables } from '../../../db/tables.js';
import { likePattern, offsetOf, readPage, type PageRequest } from '../../../kernel/pagination.js';
import type { LedgerEntryView, ListLedgerQuery, ListLotsQuery, LotView, MyLedgerEntryView } from './schemas.js';
import { playerEmailOf } from '../player-email.js';

type Db = Kysely<Tables>;

/** Entries with the lot an addition made (deductions have none). */
function entries(db: Db) {
  return db.selectFrom('credit_ledger').leftJoin('credit_lots', 'credit_lots.entry_id', 'credit_ledger.id');
}

function ledgerConditions(eb: ExpressionBuilder<Tables, 'credit_ledger'>, query: ListLedgerQuery): Expression<SqlBool> {
  const conditions: Expression<SqlBool>[] = [];
  if (query.user_id) conditions.push(eb('credit_ledger.user_id', '=', query.user_id));
  if (query.kind) conditions.push(eb('credit_ledger.kind', '=', query.kind));
  if (query.reference_type) conditions.push(eb('credit_ledger.reference_type', '=', query.reference_type));
  if (query.reference_id) conditions.push(eb('credit_ledger.reference_id', '=', query.reference_id));
  if (query.created_from) conditions.push(eb('credit_ledger.created_at', '>=', new Date(query.created_from)));
  if (query.created_to) conditions.push(eb('credit_ledger.created_at', '<', new Date(query.created_to)));
  if (query.q) {
    const pattern = likePattern(query.q);
    conditions.push(
      eb.or([eb('credit_ledger.reason', 'ilike', pattern), eb('credit_ledger.reference_id', 'ilike', pattern)]),
    );
  }
  return eb.and(conditions);
}

export async function listLedger(db: Db, query: ListLedgerQuery): Promise<{ rows: LedgerEntryView[]; total: number }> {
  const direction = query.sort.direction;
  const { rows, total } = await readPage(
    db.selectFrom('credit_ledger').where((eb) => ledgerConditions(eb, query)),
    query,
    () =>
      entries(db)
        .where((eb) => ledgerConditions(eb, query))
        .select([
          'credit_ledger.id',
          'credit_ledger.user_id',
          playerEmailOf('credit_ledger'),
          'credit_ledger.amount',
          'credit_ledger.kind',
          'credit_ledger.balance_after',
          'credit_ledger.reference_type',
          'credit_ledger.reference_id',
          'credit_ledger.actor_id',
          'credit_ledger.reason',
          'credit_ledger.details',
          'credit_lots.id as lot_id',
          'credit_lots.expires_at',
          'credit_ledger.created_at',
        ])
        .orderBy('credit_ledger.created_at', direction)
        .orderBy('credit_ledger.id', direction),
  );
  return { rows: rows.map((row) => ({ ...row, details: row.details as Record<string, unknown> })), total };
}

/** The caller's entries, newest first; the user's writes are serialized, so id order is their order. */
export function listUserLedger(db: Db, userId: string, page: PageRequest): Promise<MyLedgerEntryView[]> {
  return entries(db)
    .where('credit_ledger.user_id', '=', userId)
    .select([
      'credit_ledger.id',
      'credit_ledger.amount',
      'credit_ledger.kind',
      'credit_ledger.balance_after',
      'credit_ledger.reference_type',
      'credit_ledger.reference_id',
      'credit_ledger.reason',
      'credit_lots.expires_at',
      'credit_ledger.created_at',
    ])
    .orderBy('credit_ledger.id', 'desc')
    .limit(page.per_page)
    .offset(offsetOf(page))
    .execute();
}

const liveLot = sql<boolean>`(credit_lots.remaining > 0 AND (credit_lots.expires_at IS NULL OR
  credit_lots.expires_at > now()))`;

function lotConditions(eb: ExpressionBuilder<Tables, 'credit_lots'>, query: ListLotsQuery): Expression<SqlBool> {
  const conditions: Expression<SqlBool>[] = [];
  if (query.user_id) conditions.push(eb('credit_lots.user_id', '=', query.user_id));
  if (query.active === true) conditions.push(liveLot);
  if (query.active === false) conditions.push(eb.not(liveLot));
  if (query.expiring_before) conditions.push(eb('credit_lots.expires_at', '<', new Date(query.expiring_before)));
  return eb.and(conditions);
}

export async function listLots(db: Db, query: ListLotsQuery): Promise<{ rows: LotView[]; total: number }> {
  const { field, direction } = query.sort;
  // Never-expiring lots sort after expiring ones either way: "expires soonest" starts with one that expires.
  const order =
    field === 'expires_at'
      ? sql`credit_lots.expires_at ${sql.raw(direction)} NULLS LAST`
      : sql`credit_lots.created_at ${sql.raw(direction)}`;
  const filtered = db.selectFrom('credit_lots').where((eb) => lotConditions(eb, query));
  return readPage(filtered, query, (lots) =>
    lots
      .innerJoin('credit_ledger', 'credit_ledger.id', 'credit_lots.entry_id')
      .select([
        'credit_lots.id',
        'credit_lots.user_id',
        playerEmailOf('credit_lots'),
        'credit_lots.entry_id',
        'credit_ledger.kind',
        'credit_lots.amount',
        'credit_lots.remaining',
        'credit_lots.expires_at',
        liveLot.as('active'),
        'credit_lots.created_at',
      ])
      .orderBy(order)
      .orderBy('credit_lots.id', direction),
  );
}

// Gifts of credit packs (gifts.ts).

/** What a gift needs to know of a product; undefined: no such product. */
export function productToGift(db: Db, productId: string) {
  return db
    .selectFrom('catalog_products')
    .select(['id', 'kind', 'name', 'credits', 'is_active'])
    .where('id', '=', productId)
    .executeTakeFirst();
}

/** Every plan tier, by rank. */
export function tiersByRank(db: Db) {
  return db.selectFrom('plan_tier_directory').select(['key', 'name', 'rank']).orderBy('rank').orderBy('key').execute();
}

/** Active plan products, each with its active prices (one row per price; none: one row without). */
export function activePlansWithPrices(db: Db) {
  return db
    .selectFrom('catalog_products as product')
    .leftJoin('catalog_prices as price', (join) =>
      join.onRef('price.product_id', '=', 'product.id').on('price.is_active', '=', true),
    )
    .select([
      'product.id',
      'product.name',
      'product.tier_key',
      'price.id as price_id',
      'price.provider_price_id',
      'price.currency',
      'price.unit_amount',
      'price.interval',
    ])
    .where('product.kind', '=', 'plan')
    .where('product.is_active', '=', true)
    .orderBy('product.sort_order')
    .orderBy('product.name')
    .orderBy('product.id')
    .orderBy('price.currency')
    .orderBy('price.interval')
    .execute();
}

export function activeCreditPacks(db: Db) {
  return db
    .selectFrom('catalog_products')
    .select(['id', 'name', 'credits'])
    .where('kind', '=', 'credit_pack')
    .where('is_active', '=', true)
    .orderBy('sort_order')
    .orderBy('name')
    .orderBy('id')
    .execute();
}
