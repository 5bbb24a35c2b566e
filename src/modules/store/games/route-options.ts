// What each route of routes.ts is (permission, errors, schemas, OpenAPI text), named by its operationId.
import { z } from 'zod';
import { idParams } from '../ids.js';
import { createGameBody, gameBody, gamesPage, listGamesQuery, updateGameBody } from './schemas.js';

const READ = { perms: ['store.read'] } as const;
const WRITE = { perms: ['store.write'] } as const;
const tags = ['store'];
const linkRule =
  'An id in `genre_ids`, `developer_ids` or `publisher_ids` that names nothing is 422 `invalid_request` with ' +
  '`details` listing those ids per list.';

export const listStoreGames = {
  config: READ,
  schema: {
    operationId: 'listStoreGames',
    tags,
    summary: 'List store games',
    description:
      'Every status. `q` matches title or slug; filters `status`, `game_type`, and `genre_id`, `developer_id`, ' +
      '`publisher_id` (games linked to that term).',
    querystring: listGamesQuery,
    response: { 200: gamesPage },
  },
} as const;

export const createStoreGame = {
  config: { ...WRITE, errors: { 409: ['conflict'], 422: ['invalid_request'] } },
  schema: {
    operationId: 'createStoreGame',
    tags,
    summary: 'Create a store game',
    description: `Returns the StoreGame row. A taken slug is 409 \`conflict\`. ${linkRule}`,
    body: createGameBody,
    response: { 201: gameBody },
  },
} as const;

export const getStoreGame = {
  config: { ...READ, errors: { 404: ['game_not_found'] } },
  schema: {
    operationId: 'getStoreGame',
    tags,
    summary: 'Get a store game',
    description: '404 `game_not_found`.',
    params: idParams,
    response: { 200: gameBody },
  },
} as const;

export const updateStoreGame = {
  config: { ...WRITE, errors: { 404: ['game_not_found'], 409: ['conflict'], 422: ['invalid_request'] } },
  schema: {
    operationId: 'updateStoreGame',
    tags,
    summary: 'Update a store game',
    description:
      "Changes any of the game's fields; omitted fields keep their value, `null` clears, `metadata` and link " +
      'lists are replaced whole. Answers the game; a change that changes nothing writes nothing. In depth: ' +
      '[docs/api/store.md](docs/api/store.md#update-a-store-game).',
    params: idParams,
    body: updateGameBody,
    response: { 200: gameBody },
  },
} as const;

export const deleteStoreGame = {
  config: { ...WRITE, errors: { 404: ['game_not_found'] } },
  schema: {
    operationId: 'deleteStoreGame',
    tags,
    summary: 'Delete a store game',
    description: 'Removes the game and its links; audited. 404 `game_not_found`.',
    params: idParams,
    response: { 204: z.null().describe('Done') },
  },
} as const;
