import { asBrief, auditPicture } from '../../../kernel/audit.js';
import type { StoreGamesTable } from '../tables.js';
import type { GameLinks } from '../term-kinds.js';

/**
 * What a game's audit rows keep: what staff set (long texts cut, `metadata` as its keys) and its
 * links. A create or delete keeps the game's names and links; an update, each field it changes
 * (game-changes.ts).
 */
export const gamePicture = auditPicture<StoreGamesTable & GameLinks>({
  id: false,
  slug: true,
  title: true,
  summary: asBrief('summary'),
  description: asBrief('description'),
  game_type: true,
  status: true,
  release_date: true,
  controller_support: true,
  website: asBrief('website'),
  required_age: true,
  legal_notice: asBrief('legal_notice'),
  license_required: true,
  content_description: asBrief('content_description'),
  metadata: asBrief('metadata'),
  created_at: false,
  updated_at: false,
  genre_ids: true,
  developer_ids: true,
  publisher_ids: true,
});

/** The columns a game's create and delete rows have always kept. */
export const GAME_NAMES_AND_LINKS = [
  'slug',
  'title',
  'status',
  'game_type',
  'genre_ids',
  'developer_ids',
  'publisher_ids',
] as const;
