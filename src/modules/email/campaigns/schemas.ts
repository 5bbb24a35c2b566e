import { z } from 'zod';
import { isoDateTime } from '../../../lib/instant.js';
import { pagedResponse, pageQuery } from '../../../kernel/pagination.js';
import { CAMPAIGN_STATUSES } from './tables.js';

// Campaigns write snake_case, as the spec's create body does.

const templateKey = z
  .string()
  .regex(/^[a-z][a-z0-9-]{1,63}$/)
  .describe("An email template's key (`^[a-z][a-z0-9-]{1,63}$`).");
const maxFailures = z
  .number()
  .int()
  .min(1)
  .max(10_000)
  .describe('The campaign stops (status `failed`, resumable) after this many delivery failures in a row; default 10.');

/** Operation 11's body (the spec's "Email campaign (create body)"), plus the failure limit. */
export const createCampaignBody = z
  .object({
    name: z.string().min(1).max(200),
    template_key: templateKey,
    audience_id: z
      .guid()
      .nullable()
      .optional()
      .describe('The audience to send to; may be set later, but a campaign without one cannot launch.'),
    vars: z
      .record(z.string(), z.unknown())
      .default({})
      .describe(
        'Template variables for every recipient; each also gets `display_name`, `email` and `unsubscribe_url`.',
      ),
    max_consecutive_failures: maxFailures.optional(),
  })
  .strict()
  .meta({
    examples: [
      {
        name: 'Winter sale 2026',
        template_key: 'winter-sale',
        audience_id: '7c1e2d3f-4a5b-4c6d-8e9f-0a1b2c3d4e5f',
        vars: { discount_percent: 30, ends_on: '2026-12-31' },
      },
    ],
  });
export type CreateCampaignInput = z.infer<typeof createCampaignBody>;

export const updateCampaignBody = z
  .object({
    name: z.string().min(1).max(200).optional(),
    template_key: templateKey.optional(),
    audience_id: z.guid().nullable().optional(),
    vars: z.record(z.string(), z.unknown()).optional(),
    max_consecutive_failures: maxFailures.optional(),
  })
  .strict()
  .refine((body) => Object.values(body).some((value) => value !== undefined), { error: 'change at least one field' });
export type UpdateCampaignInput = z.infer<typeof updateCampaignBody>;

export const scheduleCampaignBody = z
  .object({
    at: isoDateTime().describe('When to launch: in the future, within a year.'),
  })
  .strict();

export const campaignIdParams = z.object({ id: z.guid() });

export const campaignCounts = z.object({
  queued: z.number().int().describe('Waiting to be sent (not held).'),
  held: z.number().int().describe('Waiting, held while the campaign is paused or stopped.'),
  sending: z.number().int(),
  sent: z.number().int(),
  failed: z.number().int(),
  skipped: z.number().int().describe('Unsubscribed between launch and send.'),
  cancelled: z.number().int(),
});
export type CampaignCounts = z.infer<typeof campaignCounts>;

export const campaignView = z
  .object({
    id: z.guid(),
    name: z.string(),
    template_id: z.guid(),
    template_key: z.string(),
    template_version: z.number().int().nullable().describe('Fixed at launch; null before.'),
    audience_id: z.guid().nullable(),
    audience_name: z.string().nullable(),
    vars: z.record(z.string(), z.unknown()),
    status: z.enum(CAMPAIGN_STATUSES),
    status_reason: z.string().nullable(),
    scheduled_at: z.date().nullable(),
    max_consecutive_failures: z.number().int(),
    recipients: z.number().int().nullable().describe('Members snapshotted at launch.'),
    excluded: z
      .number()
      .int()
      .nullable()
      .describe('Members left out at launch (unsubscribed, banned or deleted accounts).'),
    counts: campaignCounts,
    launched_at: z.date().nullable(),
    completed_at: z.date().nullable(),
    created_by: z.guid().nullable(),
    updated_by: z.guid().nullable(),
    created_at: z.date(),
    updated_at: z.date(),
  })
  .meta({ id: 'EmailCampaign', description: 'An email campaign: template, audience, state and delivery counts.' });
export type CampaignView = z.infer<typeof campaignView>;
export const campaignsPage = pagedResponse(campaignView);

export const listCampaignsQuery = pageQuery(['created_at', 'updated_at', 'name'], {
  field: 'created_at',
  direction: 'desc',
}).extend({
  status: z.enum(CAMPAIGN_STATUSES).optional(),
  audience_id: z.guid().optional(),
});
export type ListCampaignsQuery = z.infer<typeof listCampaignsQuery>;

// Fastify validates a missing body as null.
export const cancelCampaignBody = z
  .object({ reason: z.string().trim().min(3).max(500).optional() })
  .strict()
  .nullish();
