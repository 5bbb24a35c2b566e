import { z } from 'zod';
import { actorOf } from '../../../kernel/auth.js';
import type { Deps } from '../../../composition/platform.js';
import type { ZodApp } from '../../../kernel/http/zod-app.js';
import { publicGameDetail, publicGamesPage, publicGamesQuery, slugParams } from './public-schemas.js';
import { PublicStoreService } from './public-service.js';
import { createGameBody, gameBody, gamesPage, idParams, listGamesQuery, updateGameBody } from './schemas.js';
import { StoreGamesService } from './service.js';
import { createTermBody, listTermsQuery, termBody, termsPage, updateTermBody } from './term-schemas.js';
import { StoreTermsService } from './term-service.js';
import { TERM_KIND_NAMES, TERM_KINDS } from './terms.js';

const READ = { perms: ['store.read'] } as const;
const WRITE = { perms: ['store.write'] } as const;
const noContent = { 204: z.null().describe('Done') };
const tags = ['store'];
const linkRule =
  'An id in `genre_ids`, `developer_ids` or `publisher_ids` that names nothing is 422 `invalid_request` with ' +
  '`details` listing those ids per list.';

/**
 * Staff:  GET|POST /v1/admin/store/games, GET|PATCH|DELETE /v1/admin/store/games/{id},
 *         GET|POST /v1/admin/store/{genres,developers,publishers}, PATCH|DELETE …/{id}.
 * Public: GET /v1/public/store/games, GET /v1/public/store/games/{slug}. No public writes.
 */
export function registerStoreRoutes(app: ZodApp, deps: Deps<'bus' | 'db' | 'write'>): void {
  const games = new StoreGamesService(deps.db, deps.write);
  const publicStore = new PublicStoreService(deps.db, deps.bus);

  app.get(
    '/v1/admin/store/games',
    {
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
    },
    (request) => games.list(request.query),
  );

  app.post(
    '/v1/admin/store/games',
    {
      config: { ...WRITE, errors: { 409: ['conflict'], 422: ['invalid_request'] } },
      schema: {
        operationId: 'createStoreGame',
        tags,
        summary: 'Create a store game',
        description: `Returns the StoreGame row. A taken slug is 409 \`conflict\`. ${linkRule}`,
        body: createGameBody,
        response: { 201: gameBody },
      },
    },
    async (request, reply) => reply.code(201).send(await games.create(actorOf(request), request.body)),
  );

  app.get(
    '/v1/admin/store/games/:id',
    {
      config: { ...READ, errors: { 404: ['game_not_found'] } },
      schema: {
        operationId: 'getStoreGame',
        tags,
        summary: 'Get a store game',
        description: '404 `game_not_found`.',
        params: idParams,
        response: { 200: gameBody },
      },
    },
    (request) => games.get(request.params.id),
  );

  app.patch(
    '/v1/admin/store/games/:id',
    {
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
    },
    (request) => games.update(actorOf(request), request.params.id, request.body),
  );

  app.delete(
    '/v1/admin/store/games/:id',
    {
      config: { ...WRITE, errors: { 404: ['game_not_found'] } },
      schema: {
        operationId: 'deleteStoreGame',
        tags,
        summary: 'Delete a store game',
        description: 'Removes the game and its links; audited. 404 `game_not_found`.',
        params: idParams,
        response: noContent,
      },
    },
    async (request, reply) => {
      await games.delete(actorOf(request), request.params.id);
      return reply.code(204).send(null);
    },
  );

  for (const kind of TERM_KIND_NAMES) {
    const terms = new StoreTermsService(deps.db, kind, deps.write);
    const { noun } = TERM_KINDS[kind];
    const path = `/v1/admin/store/${kind}`;
    const [Kinds, Noun] = [kind, noun].map((word) => word[0]!.toUpperCase() + word.slice(1));

    app.get(
      path,
      {
        config: READ,
        schema: {
          operationId: `listStore${Kinds}`,
          tags,
          summary: `List ${kind}`,
          description: '`q` matches name or slug.',
          querystring: listTermsQuery,
          response: { 200: termsPage },
        },
      },
      (request) => terms.list(request.query),
    );

    app.post(
      path,
      {
        config: { ...WRITE, errors: { 409: ['conflict'], 422: ['invalid_request'] } },
        schema: {
          operationId: `createStore${Noun}`,
          tags,
          summary: `Create a ${noun}`,
          description:
            'Names are unique regardless of case, slugs unique: 409 `conflict` naming the taken value. Without ' +
            '`slug`, one is made from the name (422 `invalid_request` when none can be).',
          body: createTermBody,
          response: { 201: termBody },
        },
      },
      async (request, reply) => reply.code(201).send(await terms.create(actorOf(request), request.body)),
    );

    app.patch(
      `${path}/:id`,
      {
        config: { ...WRITE, errors: { 404: ['not_found'], 409: ['conflict'] } },
        schema: {
          operationId: `renameStore${Noun}`,
          tags,
          summary: `Rename a ${noun}`,
          description: '404 `not_found`; 409 `conflict` when the name or slug is taken.',
          params: idParams,
          body: updateTermBody,
          response: { 200: termBody },
        },
      },
      (request) => terms.update(actorOf(request), request.params.id, request.body),
    );

    app.delete(
      `${path}/:id`,
      {
        config: { ...WRITE, errors: { 404: ['not_found'] } },
        schema: {
          operationId: `deleteStore${Noun}`,
          tags,
          summary: `Delete a ${noun}`,
          description:
            'Games linked to it lose that link and stay; audited with the number of games unlinked. 404 `not_found`.',
          params: idParams,
          response: noContent,
        },
      },
      async (request, reply) => {
        await terms.delete(actorOf(request), request.params.id);
        return reply.code(204).send(null);
      },
    );
  }

  app.get(
    '/v1/public/store/games',
    {
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
    },
    async (request, reply) => {
      // Serialized once per change (see PublicStoreService): a JSON string is sent as it is.
      const page = await publicStore.list(request.query);
      return reply.type('application/json; charset=utf-8').send(page.body as never);
    },
  );

  app.get(
    '/v1/public/store/games/:slug',
    {
      config: { errors: { 404: ['game_not_found'] } },
      schema: {
        operationId: 'getPublicStoreGame',
        tags: ['public'],
        summary: 'One published store game',
        description:
          'With its genres, developers and publishers. A draft, hidden or unknown game is 404 `game_not_found`.',
        params: slugParams,
        response: { 200: publicGameDetail },
      },
    },
    (request) => publicStore.get(request.params.slug),
  );
}
