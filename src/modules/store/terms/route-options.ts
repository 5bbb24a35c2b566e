// What each route of routes.ts is (permission, errors, schemas, OpenAPI text), for each kind of term (genres,
// developers, publishers): the routes of a kind are named by their operationId.
import { z } from 'zod';
import { idParams } from '../ids.js';
import { TERM_KINDS, type TermKind } from '../term-kinds.js';
import { createTermBody, listTermsQuery, termBody, termsPage, updateTermBody } from './schemas.js';

const READ = { perms: ['store.read'] } as const;
const WRITE = { perms: ['store.write'] } as const;
const tags = ['store'];

/** The options of a kind's four routes, named after the kind (`listStoreGenres`, `createStoreGenre`, …). */
export function termRoutes(kind: TermKind) {
  const { noun } = TERM_KINDS[kind];
  const [Kinds, Noun] = [kind, noun].map((word) => word[0]!.toUpperCase() + word.slice(1));
  return {
    list: {
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
    create: {
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
    rename: {
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
    delete: {
      config: { ...WRITE, errors: { 404: ['not_found'] } },
      schema: {
        operationId: `deleteStore${Noun}`,
        tags,
        summary: `Delete a ${noun}`,
        description:
          'Games linked to it lose that link and stay; audited with the number of games unlinked. 404 `not_found`.',
        params: idParams,
        response: { 204: z.null().describe('Done') },
      },
    },
  };
}
