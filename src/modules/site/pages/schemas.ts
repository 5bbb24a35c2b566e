import { z } from 'zod';
import { noTextFilter, pageQuery, pagedResponse } from '../../../kernel/pagination.js';

/** Bounds of a stored page; the migration's CHECK constraints say the same. */
export const MAX_MARKDOWN_CHARS = 200_000;
export const MAX_NOTE_CHARS = 500;
/** Version numbers are PostgreSQL integers: anything larger is a 400, never an out-of-range 500. */
const versionNumber = z.number().int().min(1).max(2_147_483_647);

export const pageSlug = z.string().regex(/^[a-z0-9][a-z0-9-]{0,127}$/, 'slug must match ^[a-z0-9][a-z0-9-]{0,127}$');
export const pageTitle = z.string().trim().min(1).max(200);

export const pageIdParams = z.object({ id: z.guid() });
export const versionParams = z.object({ id: z.guid(), version: z.coerce.number().int().min(1).max(2_147_483_647) });

export const createPageBody = z.object({ slug: pageSlug, title: pageTitle }).strict();
export type CreatePageInput = z.infer<typeof createPageBody>;

export const updatePageBody = z
  .object({ slug: pageSlug.optional(), title: pageTitle.optional() })
  .strict()
  .refine((body) => body.slug !== undefined || body.title !== undefined, {
    error: 'provide at least one of slug, title',
  });
export type UpdatePageInput = z.infer<typeof updatePageBody>;

/** Operation 10 (saveSitePageVersion). */
export const saveVersionBody = z
  .object({
    markdown: z.string().min(1).max(MAX_MARKDOWN_CHARS),
    note: z.string().max(MAX_NOTE_CHARS).optional(),
  })
  .strict()
  .meta({
    examples: [{ markdown: '# Terms of service\n\nThese terms apply from 1 January 2027.', note: '2027 terms' }],
  });
export type SaveVersionInput = z.infer<typeof saveVersionBody>;

export const publishBody = z.object({ version: versionNumber }).strict();
/** No fields; a missing body reaches validation as null. */
export const emptyBody = z.object({}).strict().nullish();

export const pageBody = z
  .object({
    id: z.guid(),
    slug: z.string(),
    title: z.string(),
    published_version: z.number().int().nullable().describe('The live version; null while unpublished.'),
    published_at: z.date().nullable(),
    published_by: z.string().nullable(),
    latest_version: z.number().int().nullable().describe('The newest stored version; null before the first save.'),
    created_by: z.string().nullable(),
    created_at: z.date(),
    updated_at: z.date(),
  })
  .meta({ id: 'SitePage', description: 'A site page: its slug, title and live version.' });
export type PageView = z.infer<typeof pageBody>;
export const pagesPage = pagedResponse(pageBody);

export const listPagesQuery = pageQuery(['title', 'updated_at', 'created_at'], {
  field: 'updated_at',
  direction: 'desc',
}).extend({
  published: z.enum(['true', 'false']).optional().describe('`true`: only live pages; `false`: only unpublished ones.'),
});
export type ListPagesQuery = z.infer<typeof listPagesQuery>;

export const versionSummary = z.object({
  version: z.number().int(),
  note: z.string().nullable(),
  markdown_length: z.number().int().describe('Characters of markdown; read the version itself for the text.'),
  is_published: z.boolean().describe('This version is the live one.'),
  created_by: z.string().nullable(),
  created_by_email: z.string().nullable(),
  created_at: z.date(),
});
export type VersionSummary = z.infer<typeof versionSummary>;
export const versionsPage = pagedResponse(versionSummary);
export const versionBody = versionSummary
  .extend({ markdown: z.string() })
  .meta({ id: 'SitePageVersion', description: 'One version of a page, with its markdown.' });

export const versionsQuery = pageQuery(['version'], { field: 'version', direction: 'desc' }).extend({
  q: noTextFilter,
});
export type VersionsQuery = z.infer<typeof versionsQuery>;

/** Anything that is not a stored slug is simply unknown (404), so only the length is checked. */
export const publicPageParams = z.object({ slug: z.string().min(1).max(200) });
export const publicPageBody = z
  .object({
    slug: z.string(),
    title: z.string(),
    markdown: z.string().describe('As stored; render it on the client.'),
    version: z.number().int(),
    published_at: z.date(),
  })
  .meta({ id: 'PublicSitePage', description: 'A published page: its markdown and version.' });
