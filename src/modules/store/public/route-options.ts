// What each route of routes.ts is (permission, errors, schemas, OpenAPI text), named by its operationId. Both are
// open: no permission.
import { publicGameDetail, publicGamesPage, publicGamesQuery, slugParams } from './schemas.js';

export const listPublicStoreGames = {
  schema: {
    operationId: 'listPublicStoreGames',
    tags: ['public'],
    summary: 'Published store games',
    description:
      'Published games only, newest release first by default (undated last). Filters: `genre` (id or slug), ' +
      '`game_type`, `q` (title or slug).',
    querystring: publicGamesQuery,
    response: { 200: publicGamesPage },
  },
} as const;

export const getPublicStoreGame = {
  config: { errors: { 404: ['game_not_found'] } },
  schema: {
    operationId: 'getPublicStoreGame',
    tags: ['public'],
    summary: 'One published store game',
    description: 'With its genres, developers and publishers. A draft, hidden or unknown game is 404 `game_not_found`.',
    params: slugParams,
    response: { 200: publicGameDetail },
  },
} as const;
