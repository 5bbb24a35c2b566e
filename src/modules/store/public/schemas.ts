import { z } from 'zod';
import { pageQuery, pagedResponse } from '../../../kernel/pagination.js';
import { CONTROLLER_SUPPORT, GAME_TYPES } from '../tables.js';

export const slugParams = z.object({ slug: z.string().min(1).max(200) });

export const publicGamesQuery = pageQuery(['release_date', 'title'], {
  field: 'release_date',
  direction: 'desc',
}).extend({
  genre: z
    .string()
    .regex(/^[a-z0-9][a-z0-9-]{0,63}$/, 'genre must be a genre id or slug')
    .optional()
    .describe('A genre id (digits) or slug.'),
  game_type: z.enum(GAME_TYPES).optional(),
});
export type PublicGamesQuery = z.infer<typeof publicGamesQuery>;

const termRef = z.object({ id: z.number().int(), slug: z.string(), name: z.string() });
export type TermRef = z.infer<typeof termRef>;

export const publicGameSummary = z.object({
  id: z.number().int(),
  slug: z.string(),
  title: z.string(),
  summary: z.string().nullable(),
  game_type: z.enum(GAME_TYPES),
  release_date: z.string().nullable().describe('YYYY-MM-DD'),
  controller_support: z.enum(CONTROLLER_SUPPORT),
  required_age: z.number().int(),
  license_required: z.boolean(),
  genres: z.array(termRef),
  developers: z.array(termRef),
  publishers: z.array(termRef),
});
export type PublicGameSummary = z.infer<typeof publicGameSummary>;

export const publicGameDetail = publicGameSummary
  .extend({
    description: z.string().nullable(),
    website: z.string().nullable(),
    legal_notice: z.string().nullable(),
    content_description: z.string().nullable(),
    metadata: z.record(z.string(), z.unknown()),
  })
  .meta({ id: 'PublicStoreGame', description: 'A published store game, as the store shows it.' });
export type PublicGameDetail = z.infer<typeof publicGameDetail>;

export const publicGamesPage = pagedResponse(publicGameSummary);
