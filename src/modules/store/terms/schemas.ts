import { z } from 'zod';
import { pageQuery, pagedResponse } from '../../../kernel/pagination.js';
import { isTermSlug } from '../term-kinds.js';

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
