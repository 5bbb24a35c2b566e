import { z } from 'zod';

export const siteQuery = z.object({
  surface: z.enum(['landing', 'portal']).default('landing'),
  locale: z
    .string()
    .min(1)
    .max(16)
    .regex(/^[A-Za-z0-9_-]+$/)
    .default('en'),
});

export const sitePayload = z
  .object({
    surface: z.enum(['landing', 'portal']),
    locale: z.string(),
    settings: z
      .record(z.string(), z.unknown())
      .describe('Every published settings section by name; unpublished sections are absent.'),
    content_blocks: z
      .array(
        z.object({
          slot: z.string(),
          locale: z.string().describe('The requested locale, or `en` where the slot has no block in it.'),
          content: z.record(z.string(), z.unknown()),
          sortOrder: z.number().int(),
        }),
      )
      .describe('Live blocks of the surface, ordered by sortOrder then slot.'),
    announcements: z
      .array(
        z.object({
          id: z.guid(),
          title: z.string(),
          body: z.string(),
          severity: z.enum(['info', 'success', 'warning', 'critical']),
          surface: z.enum(['landing', 'portal', 'all']),
          action_url: z.string().nullable(),
          starts_at: z.string().nullable(),
          ends_at: z.string().nullable(),
        }),
      )
      .describe('Active announcements for the surface now, most severe first.'),
    pages: z
      .array(z.object({ slug: z.string(), title: z.string(), version: z.number().int(), published_at: z.string() }))
      .describe('Published pages; read one with GET /v1/public/site/pages/{slug}.'),
  })
  .meta({
    id: 'PublicSite',
    description: 'The public site of a surface in a locale: settings, content blocks, announcements and pages.',
  });
