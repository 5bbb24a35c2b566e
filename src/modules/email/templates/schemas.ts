import { z } from 'zod';
import { pageQuery, pagedResponse } from '../../../kernel/pagination.js';

/** Bounds of a stored template and version; the migration's CHECK constraints say the same. */
export const MAX_SUBJECT_CHARS = 300;
export const MAX_HTML_CHARS = 200_000;
export const MAX_TEXT_CHARS = 100_000;
export const MAX_NOTE_CHARS = 500;
export const MAX_DESCRIPTION_CHARS = 500;
/** Version numbers are PostgreSQL integers: anything larger is a 400, never an out-of-range 500. */
const versionNumber = z.number().int().min(1).max(2_147_483_647);

/** The spec's `template_key`. */
export const templateKey = z.string().regex(/^[a-z][a-z0-9-]{1,63}$/, 'key must match ^[a-z][a-z0-9-]{1,63}$');
const templateName = z.string().trim().min(1).max(200);
/** An empty description is no description. */
const templateDescription = z
  .string()
  .trim()
  .max(MAX_DESCRIPTION_CHARS)
  .transform((text) => (text === '' ? null : text));
const category = z
  .enum(['marketing', 'transactional'])
  .describe(
    '`marketing` mail carries List-Unsubscribe and is never sent to a suppressed address; `transactional` mail ' +
      '(receipts, security notices) is sent regardless.',
  );

export const keyParams = z.object({ key: templateKey });
export const versionParams = z.object({ key: templateKey, version: z.coerce.number().int().min(1).max(2_147_483_647) });

const placeholderHelp =
  'Placeholders: `{{ name }}`, `{{ a.b }}`, `{{ name | "default" }}`; values are HTML-escaped in `html`.';
export const newVersionBody = z
  .object({
    // One line: a line break in a subject would start a new mail header.
    subject: z
      .string()
      .trim()
      .min(1)
      .max(MAX_SUBJECT_CHARS)
      .regex(/^[^\r\n]*$/, 'subject must be one line'),
    html: z.string().min(1).max(MAX_HTML_CHARS),
    text: z.string().min(1).max(MAX_TEXT_CHARS),
    note: z
      .string()
      .max(MAX_NOTE_CHARS)
      .optional()
      .describe('Why this version was written (shown in the version list).'),
  })
  .strict()
  .describe(placeholderHelp);
export type NewVersionInput = z.infer<typeof newVersionBody>;

export const createTemplateBody = z
  .object({
    key: templateKey,
    name: templateName,
    description: templateDescription.optional(),
    category: category.default('marketing'),
    version: newVersionBody.optional().describe('A first version (version 1), stored unpublished.'),
  })
  .strict();
export type CreateTemplateInput = z.infer<typeof createTemplateBody>;

export const updateTemplateBody = z
  .object({
    name: templateName.optional(),
    description: templateDescription.nullable().optional().describe('null or an empty string clears it.'),
    category: category.optional(),
  })
  .strict()
  .refine((body) => body.name !== undefined || body.description !== undefined || body.category !== undefined, {
    error: 'provide at least one of name, description, category',
  });
export type UpdateTemplateInput = z.infer<typeof updateTemplateBody>;

export const publishBody = z.object({ version: versionNumber }).strict();
/** No fields; a missing body reaches validation as null. */
export const emptyBody = z.object({}).strict().nullish();

export const previewBody = z
  .object({
    version: versionNumber.optional().describe('Default: the published version, else the newest.'),
    vars: z
      .record(z.string(), z.unknown())
      .default({})
      .describe('The message vars; `email` and `unsubscribe_url` get sample values unless given.'),
  })
  .strict()
  .nullish();
export type PreviewInput = z.infer<typeof previewBody>;

export const templateSummary = z
  .object({
    id: z.guid(),
    key: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    category,
    published_version: z
      .number()
      .int()
      .nullable()
      .describe('The version mail is sent with; null while unpublished (the template cannot be used).'),
    published_at: z.date().nullable(),
    latest_version: z.number().int().nullable().describe('The newest stored version; null before the first.'),
    created_by: z.string().nullable(),
    updated_by: z.string().nullable(),
    created_at: z.date(),
    updated_at: z.date(),
  })
  .meta({ id: 'EmailTemplateSummary', description: 'An email template as lists show it.' });
export type TemplateSummary = z.infer<typeof templateSummary>;
export const templatesPage = pagedResponse(templateSummary);

export const listTemplatesQuery = pageQuery(['updated_at', 'key', 'name'], {
  field: 'updated_at',
  direction: 'desc',
}).extend({
  category: category.optional(),
  published: z
    .enum(['true', 'false'])
    .optional()
    .describe('`true`: only templates with a published version; `false`: only unpublished ones.'),
});
export type ListTemplatesQuery = z.infer<typeof listTemplatesQuery>;

export const versionSummary = z.object({
  version: z.number().int(),
  subject: z.string(),
  note: z.string().nullable(),
  is_published: z.boolean(),
  created_by: z.string().nullable(),
  created_at: z.date(),
});
export type VersionSummary = z.infer<typeof versionSummary>;

export const versionBody = versionSummary
  .extend({
    html: z.string(),
    text: z.string(),
    variables: z.array(z.string()).describe('The var names its placeholders read (top-level names), sorted.'),
  })
  .meta({ id: 'EmailTemplateVersion', description: 'One version of an email template, with its bodies.' });
export type VersionView = z.infer<typeof versionBody>;

export const templateDetail = templateSummary
  .extend({
    versions: z.array(versionSummary).describe('Every version, newest first, without bodies.'),
    published: versionBody.nullable().describe('The published version with its bodies; null while unpublished.'),
  })
  .meta({ id: 'EmailTemplate', description: 'An email template with its versions and the published one.' });
export type TemplateDetail = z.infer<typeof templateDetail>;

export const previewResult = z
  .object({
    version: z.number().int(),
    subject: z.string(),
    html: z.string(),
    text: z.string(),
    variables: z.array(z.string()).describe('The var names the version reads, sorted.'),
  })
  .describe('The version rendered with the given variables.');
