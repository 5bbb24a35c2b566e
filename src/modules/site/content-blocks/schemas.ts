import { z } from 'zod';
import { pageQuery, pagedResponse } from '../../../kernel/pagination.js';

export const SURFACES = ['landing', 'portal'] as const;
export const BLOCK_STATUSES = ['draft', 'published', 'archived'] as const;

export const slot = z.string().regex(/^[a-z][a-z0-9_.-]{0,63}$/, 'slot must match ^[a-z][a-z0-9_.-]{0,63}$');
export const locale = z.string().min(1).max(16);

/** Operation 7: the spec's content block fields. */
export const upsertBlockBody = z
  .object({
    surface: z.enum(SURFACES),
    slot,
    locale: locale.default('en'),
    draft: z.record(z.string(), z.unknown()),
    sortOrder: z.number().int().min(-1_000_000).max(1_000_000).default(0),
  })
  .strict()
  .meta({
    examples: [
      {
        surface: 'landing',
        slot: 'hero.title',
        locale: 'en',
        draft: { text: 'Play anywhere. Own nothing but the fun.', cta: { label: 'Start free', href: '/signup' } },
        sortOrder: 0,
      },
    ],
  });
export type UpsertBlockInput = z.infer<typeof upsertBlockBody>;

export const blockIdParams = z.object({ id: z.guid() });

export const statusBody = z
  .object({
    status: z
      .enum(BLOCK_STATUSES)
      .describe(
        '`published` copies the draft live; `archived` takes the block off the site and keeps it; `draft` ' +
          'unpublishes it.',
      ),
  })
  .strict();
export type StatusInput = z.infer<typeof statusBody>;

export const blockBody = z
  .object({
    id: z.guid(),
    surface: z.enum(SURFACES),
    slot: z.string(),
    locale: z.string(),
    draft: z.record(z.string(), z.unknown()),
    published: z.record(z.string(), z.unknown()).nullable().describe('What the public site shows; null when not live.'),
    status: z.enum(BLOCK_STATUSES),
    sortOrder: z.number().int(),
    hasUnpublishedChanges: z.boolean(),
    publishedAt: z.date().nullable(),
    publishedBy: z.string().nullable(),
    updatedBy: z.string().nullable(),
    createdAt: z.date(),
    updatedAt: z.date(),
  })
  .meta({ id: 'ContentBlock', description: 'A content block: its draft, live value and state.' });
export type BlockView = z.infer<typeof blockBody>;

export const listBlocksQuery = pageQuery(['sortOrder', 'slot', 'updatedAt'], {
  field: 'sortOrder',
  direction: 'asc',
}).extend({
  surface: z.enum(SURFACES).optional(),
  slot: slot.optional(),
  locale: locale.optional(),
  status: z.enum(BLOCK_STATUSES).optional(),
});
export type ListBlocksQuery = z.infer<typeof listBlocksQuery>;
export const blocksPage = pagedResponse(blockBody);
