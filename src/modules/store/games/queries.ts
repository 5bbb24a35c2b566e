import { sql, type Insertable, type Kysely, type Updateable } from 'kysely';
import type { Tables } from '../../../db/tables.js';
import { likePattern, readPage } from '../../../kernel/pagination.js';
import type { GameView, ListGamesQuery } from './schemas.js';
import type { StoreGameRow, StoreGamesTable } from '../tables.js';
import { TERM_KINDS, type GameLinks, type TermConfig } from '../term-kinds.js';

type Db = Kysely<Tables>;

/** The ids a game links to, ascending; an array subquery per kind (the link primary keys serve it). */
function linkIdsOf(term: TermConfig) {
  return sql<
    number[]
  >`array(SELECT ${sql.ref(term.linkColumn)} FROM ${sql.table(term.link)} WHERE game_id = store_games.id ORDER BY 1)`;
}

function gameViews(db: Db) {
  return db
    .selectFrom('store_games')
    .select([
      'store_games.id',
      'store_games.slug',
      'store_games.title',
      'store_games.summary',
      'store_games.description',
      'store_games.game_type',
      'store_games.status',
      'store_games.release_date',
      'store_games.controller_support',
      'store_games.website',
      'store_games.required_age',
      'store_games.legal_notice',
      'store_games.license_required',
      'store_games.content_description',
      'store_games.metadata',
      'store_games.created_at',
      'store_games.updated_at',
    ])
    .select([
      linkIdsOf(TERM_KINDS.genres).as('genre_ids'),
      linkIdsOf(TERM_KINDS.developers).as('developer_ids'),
      linkIdsOf(TERM_KINDS.publishers).as('publisher_ids'),
    ]);
}

function asView(row: StoreGameRow & GameLinks): GameView {
  return { ...row, metadata: row.metadata as Record<string, unknown> };
}

export async function listGames(db: Db, query: ListGamesQuery): Promise<{ rows: GameView[]; total: number }> {
  let filtered = db.selectFrom('store_games');
  if (query.q !== undefined) {
    const pattern = likePattern(query.q);
    filtered = filtered.where((eb) => eb.or([eb('title', 'ilike', pattern), eb('slug', 'ilike', pattern)]));
  }
  if (query.status !== undefined) filtered = filtered.where('status', '=', query.status);
  if (query.game_type !== undefined) filtered = filtered.where('game_type', '=', query.game_type);
  for (const [id, term] of [
    [query.genre_id, TERM_KINDS.genres],
    [query.developer_id, TERM_KINDS.developers],
    [query.publisher_id, TERM_KINDS.publishers],
  ] as const) {
    if (id === undefined) continue;
    filtered = filtered.where(
      sql<boolean>`exists (SELECT 1 FROM ${sql.table(term.link)} WHERE game_id = store_games.id AND ${sql.ref(term.linkColumn)} = ${id})`,
    );
  }
  const { field, direction } = query.sort;
  // Undated games sort last either way: "newest release first" should not open on unknowns.
  const order =
    field === 'release_date'
      ? sql`release_date ${sql.raw(direction)} NULLS LAST`
      : sql`${sql.ref(field)} ${sql.raw(direction)}`;
  const { rows, total } = await readPage(filtered, query, (matching) =>
    gameViews(db)
      .where('store_games.id', 'in', matching.select('id'))
      .orderBy(order)
      .orderBy('store_games.id', direction),
  );
  return { rows: rows.map(asView), total };
}

export async function findGame(db: Db, id: number): Promise<GameView | undefined> {
  const row = await gameViews(db).where('store_games.id', '=', id).executeTakeFirst();
  return row && asView(row);
}

/** The game row locked for the rest of the transaction, so concurrent edits queue up. */
export function lockGame(trx: Db, id: number) {
  return trx.selectFrom('store_games').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
}

export async function gameLinks(db: Db, gameId: number): Promise<GameLinks> {
  const row = await db
    .selectFrom('store_games')
    .select([
      linkIdsOf(TERM_KINDS.genres).as('genre_ids'),
      linkIdsOf(TERM_KINDS.developers).as('developer_ids'),
      linkIdsOf(TERM_KINDS.publishers).as('publisher_ids'),
    ])
    .where('id', '=', gameId)
    .executeTakeFirstOrThrow();
  return row;
}

export type NewGameValues = Omit<Insertable<StoreGamesTable>, 'id' | 'created_at' | 'updated_at' | 'metadata'> & {
  metadata: Record<string, unknown>;
};

export async function insertGame(trx: Db, values: NewGameValues): Promise<number> {
  const row = await trx
    .insertInto('store_games')
    .values({ ...values, metadata: JSON.stringify(values.metadata) })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

export type GameChanges = Omit<Updateable<StoreGamesTable>, 'id' | 'created_at' | 'updated_at' | 'metadata'> & {
  metadata?: Record<string, unknown>;
};

export async function updateGame(trx: Db, id: number, changes: GameChanges): Promise<void> {
  const { metadata, ...rest } = changes;
  await trx
    .updateTable('store_games')
    .set({ ...rest, ...(metadata === undefined ? {} : { metadata: JSON.stringify(metadata) }), updated_at: sql`now()` })
    .where('id', '=', id)
    .execute();
}

export async function deleteGame(trx: Db, id: number): Promise<void> {
  await trx.deleteFrom('store_games').where('id', '=', id).execute();
}

/** Replaces one kind of a game's links with exactly these ids, in two set-based statements. */
export async function replaceLinks(trx: Db, term: TermConfig, gameId: number, ids: number[]): Promise<void> {
  await sql`DELETE FROM ${sql.table(term.link)} WHERE game_id = ${gameId}`.execute(trx);
  if (ids.length === 0) return;
  await sql`
    INSERT INTO ${sql.table(term.link)} (game_id, ${sql.ref(term.linkColumn)})
    SELECT ${gameId}, id FROM unnest(${ids}::integer[]) AS id`.execute(trx);
}

/**
 * The ids among these that name no row. The existing rows are share-locked until commit, so
 * one deleted meanwhile cannot slip past this check into a foreign-key error.
 */
export async function missingTermIds(trx: Db, term: TermConfig, ids: number[]): Promise<number[]> {
  if (ids.length === 0) return [];
  const found = await sql<{ id: number }>`
    SELECT id FROM ${sql.table(term.table)} WHERE id = ANY(${ids}::integer[]) FOR KEY SHARE`.execute(trx);
  const existing = new Set(found.rows.map((row) => row.id));
  return ids.filter((id) => !existing.has(id));
}
