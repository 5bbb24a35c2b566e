import { z } from 'zod';
import { pageQuery, pagedResponse } from '../../../kernel/pagination.js';
import { idParams } from '../ids.js';
import { isTermSlug, TERM_KINDS, type TermKind } from '../term-kinds.js';

const termName = z.string().trim().min(1).max(100);
const termSlug = z
  .string()
  .max(64)
  .refine(isTermSlug, 'slug must match ^[a-z0-9][a-z0-9-]{0,63}$ and not be all digits');

export const createTermBody = z
  .object({
    name: termName,
    slug: termSlug.optional().describe('Derived from the name when omitted.'),
  })
  .strict();
export type CreateTermInput = z.infer<typeof createTermBody>;

export const updateTermBody = z
  .object({
    name: termName.optional(),
    slug: termSlug.optional().describe('Slugs are in public URLs: renaming keeps the slug unless you send one.'),
  })
  .strict()
  .refine((body) => Object.keys(body).length > 0, { error: 'provide at least one of name, slug' });
export type UpdateTermInput = z.infer<typeof updateTermBody>;

export const termBody = z
  .object({
    id: z.number().int(),
    name: z.string(),
    slug: z.string(),
    game_count: z.number().int().describe('Games linked to it, whatever their status.'),
    created_at: z.date(),
    updated_at: z.date(),
  })
  .meta({ id: 'StoreTerm', description: 'A genre, developer or publisher, with how many games link to it.' });
export type TermView = z.infer<typeof termBody>;

export const listTermsQuery = pageQuery(['name', 'created_at'], { field: 'name', direction: 'asc' });
export type ListTermsQuery = z.infer<typeof listTermsQuery>;
export const termsPage = pagedResponse(termBody);

// The routes' options of one kind (genres, developers, publishers): permission, errors, OpenAPI text.

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
