import { sql, type Kysely, type Selectable, type Updateable } from 'kysely';
import type { Tables } from '../../../db/tables.js';
import { asRead } from '../../../lib/split-pool.js';
import { likePattern, readPage } from '../../../kernel/pagination.js';
import type { BlockView, ListBlocksQuery, UpsertBlockInput } from './schemas.js';
import type { ContentBlocksTable } from './tables.js';

type BlockRow = Selectable<ContentBlocksTable>;

/** Every column of a block: its view shows each of them. */
const BLOCK_COLUMNS = [
  'id',
  'surface',
  'slot',
  'locale',
  'draft',
  'published',
  'status',
  'sort_order',
  'published_at',
  'published_by',
  'updated_by',
  'created_at',
  'updated_at',
] as const;

const SORT_COLUMNS = { sortOrder: 'sort_order', slot: 'slot', updatedAt: 'updated_at' } as const;

export function toBlockView(row: BlockRow): BlockView {
  return {
    id: row.id,
    surface: row.surface,
    slot: row.slot,
    locale: row.locale,
    draft: row.draft as Record<string, unknown>,
    published: row.published as Record<string, unknown> | null,
    status: row.status,
    sortOrder: row.sort_order,
    hasUnpublishedChanges: JSON.stringify(row.draft) !== JSON.stringify(row.published),
    publishedAt: row.published_at,
    publishedBy: row.published_by,
    updatedBy: row.updated_by,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export async function listBlocks(db: Kysely<Tables>, query: ListBlocksQuery) {
  let filtered = db.selectFrom('content_blocks');
  if (query.surface) filtered = filtered.where('surface', '=', query.surface);
  if (query.slot) filtered = filtered.where('slot', '=', query.slot);
  if (query.locale) filtered = filtered.where('locale', '=', query.locale);
  if (query.status) filtered = filtered.where('status', '=', query.status);
  if (query.q) filtered = filtered.where('slot', 'ilike', likePattern(query.q));
  const { rows, total } = await readPage(filtered, query, (matching) =>
    matching.select(BLOCK_COLUMNS).orderBy(SORT_COLUMNS[query.sort.field], query.sort.direction).orderBy('id'),
  );
  return { rows: rows.map(toBlockView), total };
}

export function findBlock(db: Kysely<Tables>, id: string) {
  return db.selectFrom('content_blocks').select(BLOCK_COLUMNS).where('id', '=', id).executeTakeFirst();
}

export function lockBlock(trx: Kysely<Tables>, id: string) {
  return trx.selectFrom('content_blocks').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
}

/**
 * Insert or replace the draft of the block at (surface, slot, locale). A live copy stays live;
 * the block's status becomes `draft` until it is published again (spec "States").
 */
export async function upsertBlockDraft(
  trx: Kysely<Tables>,
  input: UpsertBlockInput,
  userId: string,
): Promise<{ id: string; created: boolean }> {
  const row = await trx
    .insertInto('content_blocks')
    .values({
      surface: input.surface,
      slot: input.slot,
      locale: input.locale,
      draft: JSON.stringify(input.draft),
      sort_order: input.sortOrder,
      updated_by: userId,
    })
    .onConflict((oc) =>
      oc.columns(['surface', 'slot', 'locale']).doUpdateSet((eb) => ({
        draft: eb.ref('excluded.draft'),
        sort_order: eb.ref('excluded.sort_order'),
        updated_by: eb.ref('excluded.updated_by'),
        status: 'draft',
        updated_at: new Date(),
      })),
    )
    .returning(['id', sql<boolean>`xmax = 0`.as('created')])
    .executeTakeFirstOrThrow();
  return { id: row.id, created: row.created };
}

/** Writes the block's status change; answers the row as it is now. */
export function updateBlock(
  trx: Kysely<Tables>,
  id: string,
  changes: Updateable<ContentBlocksTable>,
): Promise<BlockRow> {
  return trx.updateTable('content_blocks').set(changes).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
}

export interface LiveBlock {
  slot: string;
  locale: string;
  content: unknown;
  sortOrder: number;
}

/** The live blocks of a surface in the locale, each slot falling back to `en` where the locale has none. */
export async function liveBlocks(db: Kysely<Tables>, surface: string, locale: string): Promise<LiveBlock[]> {
  const { rows } = await asRead(sql<{ slot: string; locale: string; published: unknown; sort_order: number }>`
    SELECT DISTINCT ON (slot) slot, locale, published, sort_order
      FROM content_blocks
     WHERE surface = ${surface} AND locale IN (${locale}, 'en')
       AND published IS NOT NULL AND status <> 'archived'
     ORDER BY slot, (locale = ${locale}) DESC`).execute(db);
  return rows
    .map((row) => ({ slot: row.slot, locale: row.locale, content: row.published, sortOrder: row.sort_order }))
    .sort((a, b) => a.sortOrder - b.sortOrder || a.slot.localeCompare(b.slot));
}
