import type { Kysely } from 'kysely';
import type { Tables } from '../../db/tables.js';
import { notFound } from '../../kernel/errors.js';
import { paged } from '../../kernel/pagination.js';
import { findPublishedGame, listPublishedGames } from './public-queries.js';
import type { PublicGameDetail, PublicGamesQuery } from './public-schemas.js';

/** The public store: published games only, read straight from the database (a publish shows at once). */
export class PublicStoreService {
  constructor(private readonly db: Kysely<Tables>) {}

  async list(query: PublicGamesQuery) {
    const { rows, total } = await listPublishedGames(this.db, query);
    return paged(rows, query, total);
  }

  /** Draft, hidden and unknown games answer alike: 404 `game_not_found`. */
  async get(slug: string): Promise<PublicGameDetail> {
    const game = await findPublishedGame(this.db, slug);
    if (game === undefined) throw notFound('game_not_found');
    return game;
  }
}
