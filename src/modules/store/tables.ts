import type { Generated, Selectable } from 'kysely';
import type { Defaulted, DefaultedTimestamp, Json } from '../../db/column-types.js';

/**
 * Table types of the store (migration 0004), merged into Kysely's `Tables`: the family's, since games
 * write the games and their links, terms the genres, developers and publishers, and public reads them all.
 */

export const GAME_TYPES = ['app', 'game', 'launcher'] as const;
export const GAME_STATUSES = ['draft', 'published', 'hidden'] as const;
export const CONTROLLER_SUPPORT = ['none', 'partial', 'full'] as const;
export type GameType = (typeof GAME_TYPES)[number];
export type GameStatus = (typeof GAME_STATUSES)[number];
export type ControllerSupport = (typeof CONTROLLER_SUPPORT)[number];

export interface StoreGamesTable {
  id: Generated<number>;
  slug: string;
  title: string;
  summary: string | null;
  description: string | null;
  game_type: Defaulted<GameType>;
  status: Defaulted<GameStatus>;
  /** A `date`: both drivers hand it over as 'YYYY-MM-DD' (no timezone shift). */
  release_date: string | null;
  controller_support: Defaulted<ControllerSupport>;
  website: string | null;
  required_age: Defaulted<number>;
  legal_notice: string | null;
  license_required: Defaulted<boolean>;
  content_description: string | null;
  metadata: Json;
  created_at: DefaultedTimestamp;
  updated_at: DefaultedTimestamp;
}

/** Genres, developers and publishers: three tables of this one shape. */
export interface StoreTermTable {
  id: Generated<number>;
  name: string;
  slug: string;
  created_at: DefaultedTimestamp;
  updated_at: DefaultedTimestamp;
}

export interface StoreGameGenresTable {
  game_id: number;
  genre_id: number;
}

export interface StoreGameDevelopersTable {
  game_id: number;
  developer_id: number;
}

export interface StoreGamePublishersTable {
  game_id: number;
  publisher_id: number;
}

export type StoreGameRow = Selectable<StoreGamesTable>;
export type StoreTermRow = Selectable<StoreTermTable>;

declare module '../../db/tables.js' {
  interface Tables {
    store_games: StoreGamesTable;
    store_genres: StoreTermTable;
    store_developers: StoreTermTable;
    store_publishers: StoreTermTable;
    store_game_genres: StoreGameGenresTable;
    store_game_developers: StoreGameDevelopersTable;
    store_game_publishers: StoreGamePublishersTable;
  }
}
