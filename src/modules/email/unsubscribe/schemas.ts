import { z } from 'zod';
import { pageQuery, pagedResponse } from '../../../kernel/pagination.js';
import { MAX_EMAIL_LENGTH, emailAddress } from '../audiences/index.js';

/** Repeated `token=` keys arrive as an array: the first one counts, as a browser would send one. */
const firstValue = (value: unknown) => (Array.isArray(value) ? value[0] : value);

/**
 * The token is optional to the schema: a missing or broken one is the HTML "link not valid"
 * page (400), not a JSON validation body a person cannot read.
 */
export const unsubscribeQuery = z.object({
  token: z
    .preprocess(firstValue, z.string().optional())
    .describe('The signed token of the link (`List-Unsubscribe` URL).'),
});

/**
 * RFC 8058 one-click posts `List-Unsubscribe=One-Click` (form-encoded or multipart); the page's
 * button posts an empty form. Either unsubscribes: the token, not the body, is the authority.
 */
export const unsubscribeBody = z
  .object({
    'List-Unsubscribe': z
      .string()
      .optional()
      .describe(
        '`One-Click` from a mail provider (RFC 8058); recorded as source `one_click`, anything else as `link`.',
      ),
  })
  .loose()
  .nullable(); // Fastify validates a missing body as null

export const htmlPage = z.string().describe('text/html');

const maskedEmail = z.string().describe("The link's address, partly masked (`ja******@example.com`).");
/** GET for an API client: the link is good, and whose it is. */
export const unsubscribeLinkView = z.object({ email: maskedEmail });
/** POST for an API client: done (the same answer a second time: whether it was already is not said). */
export const unsubscribedView = z.object({ email: maskedEmail, unsubscribed: z.literal(true) });
/** A browser gets the page, an API client the JSON. */
export const linkAnswer = z
  .union([htmlPage, unsubscribeLinkView])
  .describe('The unsubscribe page (text/html) for a browser; for an API client, whose link it is.');
export const unsubscribedAnswer = z
  .union([htmlPage, unsubscribedView])
  .describe('Unsubscribed: the confirmation page (text/html) for a browser, JSON for an API client.');

/**
 * A 400 is the "link not valid" page, or (for a body that is not a form at all, e.g. a JSON
 * array) the usual JSON SchemaError: the schema must let both through.
 */
export const invalidLinkAnswer = z
  .unknown()
  .describe(
    'text/html: the page saying the link is not valid; for an API client the JSON error `invalid_link`. A body ' +
      'that is neither a form nor a JSON object is a JSON SchemaError instead.',
  );

/** The GET's 400: the page, or (a `token` holding text no link has) the JSON SchemaError every route answers for it. */
export const invalidLinkPageAnswer = z
  .unknown()
  .describe(
    'text/html: the page saying the link is not valid; for an API client the JSON error `invalid_link`. A `token` ' +
      'holding U+0000 or a lone surrogate is a JSON SchemaError instead.',
  );

const SUPPRESSION_REASONS = ['unsubscribed', 'bounced', 'complained', 'manual'] as const;
const STAFF_REASONS = ['manual', 'bounced', 'complained'] as const;

export const suppressionView = z
  .object({
    email: z.string(),
    reason: z.enum(SUPPRESSION_REASONS),
    source: z.string().describe('`one_click` or `link` (the unsubscribe link), `staff`, `smtp`.'),
    message_id: z.guid().nullable().describe('The message whose link or bounce caused it, when known.'),
    created_at: z.date(),
  })
  .meta({ id: 'Suppression', description: 'A suppressed address: why, and since when.' });
export type SuppressionView = z.infer<typeof suppressionView>;
export const suppressionsPage = pagedResponse(suppressionView);

export const listSuppressionsQuery = pageQuery(['created_at', 'email'], {
  field: 'created_at',
  direction: 'desc',
}).extend({
  reason: z.enum(SUPPRESSION_REASONS).optional(),
});
export type ListSuppressionsQuery = z.infer<typeof listSuppressionsQuery>;

export const addSuppressionBody = z
  .object({
    email: emailAddress,
    reason: z
      .enum(STAFF_REASONS)
      .default('manual')
      .describe('`unsubscribed` is left to the person themselves (the link).'),
    note: z.string().trim().min(1).max(500).optional().describe('Kept in the audit entry.'),
  })
  .strict();
export type AddSuppressionInput = z.infer<typeof addSuppressionBody>;

export const suppressionParams = z.object({ email: z.string().min(1).max(MAX_EMAIL_LENGTH) });
export const removeSuppressionQuery = z.object({
  reason: z
    .string()
    .trim()
    .min(1)
    .max(300)
    .optional()
    .describe('Why mail may go to the address again; kept in the audit entry.'),
});
