import { z } from 'zod';
import { noTextFilter, pageQuery, pagedResponse } from '../../../kernel/pagination.js';
import { FIELD_TYPES } from './sections.js';

/** Any string: an unknown section is a 404 `not_found` (spec), not a validation error. */
export const sectionParams = z.object({ section: z.string().min(1).max(64) });

export const draftBody = z
  .object({ draft: z.record(z.string(), z.unknown()) })
  .strict()
  .meta({
    examples: [{ draft: { site_name: 'Nimbus Play', support_email: 'help@nimbusplay.example', default_locale: 'en' } }],
  });
/** The body is optional: Fastify hands a missing body to validation as null. */
export const publishBody = z
  .object({ note: z.string().max(500).optional() })
  .strict()
  .nullish()
  .meta({ examples: [{ note: 'New support address' }] });
export const rollbackBody = z
  .object({
    version: z.number().int().min(1),
    note: z.string().max(500).optional(),
  })
  .strict();

export const sectionBody = z.object({
  section: z.string(),
  write_permission: z.string(),
  draft: z.record(z.string(), z.unknown()),
  draft_updated_by: z.string().nullable(),
  draft_updated_at: z.date().nullable(),
  published_version: z.number().int().nullable(),
  published_value: z.record(z.string(), z.unknown()).nullable(),
  published_by: z.string().nullable(),
  published_at: z.date().nullable(),
  has_unpublished_changes: z.boolean(),
  known_fields: z
    .array(
      z.object({
        name: z.string(),
        type: z.enum(FIELD_TYPES),
        description: z.string(),
      }),
    )
    .describe(
      "The fields the platform's sites and apps read from this section, with their types (`color` is #rrggbb, " +
        '`locale` a BCP 47 tag): a guide for editors. The draft stays free-form: any field, listed or not, is ' +
        'stored and served as given.',
    ),
});
export const sectionsBody = z
  .object({ data: z.array(sectionBody) })
  .describe('Every settings section, with its draft and published value.');

export const versionsQuery = pageQuery(['version'], { field: 'version', direction: 'desc' }).extend({
  q: noTextFilter,
});
export type VersionsQuery = z.infer<typeof versionsQuery>;
export const versionBody = z.object({
  version: z.number().int(),
  value: z.record(z.string(), z.unknown()),
  note: z.string().nullable(),
  restored_version: z.number().int().nullable(),
  published_by: z.string().nullable(),
  published_by_email: z.string().nullable(),
  published_at: z.date(),
});
export const versionsPage = pagedResponse(versionBody);
