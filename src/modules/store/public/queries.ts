import { sql, type Kysely } from 'kysely';
import type { Tables } from '../../../db/tables.js';
import { likePattern, readPage } from '../../../kernel/pagination.js';
import { INT4_MAX } from '../ids.js';
import type { PublicGameDetail, PublicGameSummary, PublicGamesQuery, TermRef } from './schemas.js';
import { TERM_KINDS, type TermConfig } from '../term-kinds.js';

type Db = Kysely<Tables>;

/** `{ id, slug, name }` of each linked term, by name: one JSON array subquery per kind. */
function termRefsOf(term: TermConfig) {
  return sql<TermRef[]>`coalesce((
    SELECT json_agg(json_build_object('id', t.id, 'slug', t.slug, 'name', t.name) ORDER BY t.name, t.id)
      FROM ${sql.table(term.link)} AS l
      JOIN ${sql.table(term.table)} AS t ON t.id = ${sql.ref(`l.${term.linkColumn}`)}
     WHERE l.game_id = store_games.id), '[]'::json)`;
}

/** Published games only: a draft or hidden game does not exist for the public. */
function publishedGames(db: Db) {
  return db.selectFrom('store_games').where('store_games.status', '=', 'published');
}

const SUMMARY_COLUMNS = [
  'store_games.id',
  'store_games.slug',
  'store_games.title',
  'store_games.summary',
  'store_games.game_type',
  'store_games.release_date',
  'store_games.controller_support',
  'store_games.required_age',
  'store_games.license_required',
] as const;

function withTerms<T extends ReturnType<typeof publishedGames>>(query: T) {
  return query.select([
    termRefsOf(TERM_KINDS.genres).as('genres'),
    termRefsOf(TERM_KINDS.developers).as('developers'),
    termRefsOf(TERM_KINDS.publishers).as('publishers'),
  ]);
}

/** A genre filter value: digits name an id (term slugs are never all digits), anything else a slug. */
function genreMatch(genre: string) {
  if (!/^[0-9]+$/.test(genre)) return sql<boolean>`store_genres.slug = ${genre}`;
  const id = Number(genre);
  return id <= INT4_MAX ? sql<boolean>`store_genres.id = ${id}` : sql<boolean>`false`;
}

export async function listPublishedGames(
  db: Db,
  query: PublicGamesQuery,
): Promise<{ rows: PublicGameSummary[]; total: number }> {
  let filtered = publishedGames(db);
  if (query.q !== undefined) {
    const pattern = likePattern(query.q);
    filtered = filtered.where((eb) =>
      eb.or([eb('store_games.title', 'ilike', pattern), eb('store_games.slug', 'ilike', pattern)]),
    );
  }
  if (query.game_type !== undefined) filtered = filtered.where('store_games.game_type', '=', query.game_type);
  if (query.genre !== undefined) {
    const genre = query.genre;
    filtered = filtered.where((eb) =>
      eb.exists(
        eb
          .selectFrom('store_game_genres')
          .innerJoin('store_genres', 'store_genres.id', 'store_game_genres.genre_id')
          .select(sql`1`.as('one'))
          .whereRef('store_game_genres.game_id', '=', 'store_games.id')
          .where(genreMatch(genre)),
      ),
    );
  }
  const { field, direction } = query.sort;
  const order =
    field === 'release_date'
      ? sql`store_games.release_date ${sql.raw(direction)} NULLS LAST`
      : sql`store_games.title ${sql.raw(direction)}`;
  return readPage(filtered, query, (matching) =>
    withTerms(matching).select(SUMMARY_COLUMNS).orderBy(order).orderBy('store_games.id', direction),
  );
}

export async function findPublishedGame(db: Db, slug: string): Promise<PublicGameDetail | undefined> {
  const row = await withTerms(publishedGames(db))
    .select([
      ...SUMMARY_COLUMNS,
      'store_games.description',
      'store_games.website',
      'store_games.legal_notice',
      'store_games.content_description',
      'store_games.metadata',
    ])
    .where('store_games.slug', '=', slug)
    .executeTakeFirst();
  return row && { ...row, metadata: row.metadata as Record<string, unknown> };
}

/** A published game's id, slug and title (a player may start it: game sessions); undefined: none. */
export function publishedGameById(db: Db, gameId: number) {
  return publishedGames(db)
    .select(['store_games.id', 'store_games.slug', 'store_games.title'])
    .where('store_games.id', '=', gameId)
    .executeTakeFirst();
}
