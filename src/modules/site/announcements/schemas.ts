import { z } from 'zod';
import { isoDateTime } from '../../../lib/instant.js';
import { pageQuery, pagedResponse } from '../../../kernel/pagination.js';
import { httpUrl } from '../../../lib/url-field.js';

export const SEVERITIES = ['info', 'success', 'warning', 'critical'] as const;
export const SURFACES = ['landing', 'portal', 'all'] as const;

/** Shown to the public as a link: http(s) only, never `javascript:` and the like. */
const actionUrl = httpUrl({ max: 2000 });
const instant = isoDateTime();

export const announcementIdParams = z.object({ id: z.guid() });

/**
 * The whole announcement (PUT replaces it): with `id` that announcement is updated, without one
 * a new one is created. Omitted optional fields take their defaults.
 */
export const upsertAnnouncementBody = z
  .object({
    id: z.guid().optional().describe('Update this announcement (404 `not_found` if unknown); omit to create one.'),
    title: z.string().trim().min(1).max(200),
    body: z.string().max(4000).default(''),
    severity: z.enum(SEVERITIES).default('info'),
    surface: z.enum(SURFACES).default('all').describe('Where it shows: `landing`, `portal`, or `all` (both).'),
    action_url: actionUrl.nullable().default(null),
    starts_at: instant.nullable().default(null).describe('Shown from this instant; null: at once.'),
    ends_at: instant
      .nullable()
      .default(null)
      .describe('Shown until this instant (exclusive); null: until switched off.'),
    is_active: z.boolean().default(true).describe('Off hides it whatever the window.'),
  })
  .strict()
  .refine(
    (body) => body.starts_at === null || body.ends_at === null || Date.parse(body.ends_at) > Date.parse(body.starts_at),
    { error: 'ends_at must be after starts_at', path: ['ends_at'] },
  );
export type UpsertAnnouncementInput = z.infer<typeof upsertAnnouncementBody>;

export const announcementBody = z
  .object({
    id: z.guid(),
    title: z.string(),
    body: z.string(),
    severity: z.enum(SEVERITIES),
    surface: z.enum(SURFACES),
    action_url: z.string().nullable(),
    starts_at: z.date().nullable(),
    ends_at: z.date().nullable(),
    is_active: z.boolean(),
    active_now: z.boolean().describe('Active and inside its window at the time of the read: shown on the public site.'),
    created_by: z.string().nullable(),
    updated_by: z.string().nullable(),
    created_at: z.date(),
    updated_at: z.date(),
  })
  .meta({ id: 'Announcement', description: 'An announcement and the window it shows in.' });
export type AnnouncementView = z.infer<typeof announcementBody>;
export const announcementsPage = pagedResponse(announcementBody);

export const listAnnouncementsQuery = pageQuery(['created_at', 'updated_at', 'starts_at', 'title'], {
  field: 'created_at',
  direction: 'desc',
}).extend({
  surface: z.enum(SURFACES).optional().describe('Exactly this surface value (`all` means the ones targeting both).'),
  active_now: z
    .enum(['true', 'false'])
    .optional()
    .describe('`true`: shown right now; `false`: switched off or outside the window.'),
});
export type ListAnnouncementsQuery = z.infer<typeof listAnnouncementsQuery>;
