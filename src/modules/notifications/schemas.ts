import { z } from 'zod';
import { isoDateTime } from '../../lib/instant.js';
import {
  DEFAULT_PER_PAGE,
  MAX_PER_PAGE,
  noTextFilter,
  pagedResponse,
  pageMeta,
  pageQuery,
} from '../../kernel/pagination.js';
import { sitePathOrHttpUrl } from '../../lib/url-field.js';
import { userSegmentBody } from '../users/index.js';
import { NOTIFICATION_KINDS } from './tables.js';

const dateTime = isoDateTime();

/** A link the player's app opens: an http(s) URL or a path of the site, never `javascript:` or another scheme. */
const actionUrl = sitePathOrHttpUrl({ max: 2000 });

/** Operation 19's body, as the spec gives it. */
export const broadcastBody = z
  .object({
    segment: userSegmentBody
      .default({})
      .describe('The users-list filters; empty means every active user (`status` overrides the active-only default).'),
    notification: z
      .object({
        kind: z.enum(NOTIFICATION_KINDS).default('info'),
        title: z.string().min(1).max(200),
        body: z.string().max(4000).optional(),
        action_url: actionUrl.optional(),
        starts_at: dateTime.optional(),
        ends_at: dateTime.optional(),
      })
      .strict()
      .optional(),
    email: z
      .object({
        template_key: z.string().min(1).max(100),
        vars: z
          .record(z.string(), z.unknown())
          .default({})
          .describe(
            'Template variables for every recipient; each also gets `display_name`, `email` and `unsubscribe_url`.',
          ),
      })
      .strict()
      .optional(),
  })
  .strict()
  .refine((body) => body.notification !== undefined || body.email !== undefined, {
    error: 'provide notification or email (or both)',
    path: ['notification'],
  })
  .meta({
    examples: [
      {
        segment: { tier: 'gold', has_subscription: true },
        notification: {
          kind: 'billing',
          title: 'Your winter bonus is here',
          body: '500 credits were added to your balance.',
          action_url: '/billing',
        },
        email: { template_key: 'winter-bonus', vars: { credits: 500 } },
      },
    ],
  });
export type BroadcastInput = z.infer<typeof broadcastBody>;

export const broadcastResult = z
  .object({
    recipients: z
      .number()
      .int()
      .nullable()
      .describe('Users the segment matched; null for an in-app broadcast to everyone.'),
    notification: z
      .object({ created: z.number().int() })
      .nullable()
      .describe('Null when not requested; else the rows made (1 for everyone, one per recipient otherwise).'),
    email: z
      .object({ queued: z.number().int() })
      .nullable()
      .describe(
        'Null when not requested; else the messages queued (recipients with an address, less unsubscribed ones for ' +
          'marketing mail).',
      ),
  })
  .describe('How many users the broadcast reached, and what it made for them.')
  .meta({ examples: [{ recipients: 1250, notification: { created: 1250 }, email: { queued: 1190 } }] });
export type BroadcastResult = z.infer<typeof broadcastResult>;

export const broadcastPreviewBody = z
  .object({
    segment: userSegmentBody.default({}).describe('The same filters a broadcast takes; empty means every active user.'),
  })
  .strict();
export type BroadcastPreviewInput = z.infer<typeof broadcastPreviewBody>;

export const broadcastPreview = z
  .object({
    recipients: z.number().int().describe('Users the segment matches now, counted no further than `max` + 1.'),
    max: z.number().int().describe('The most users one broadcast may reach (more is 422 `segment_too_large`).'),
  })
  .meta({
    id: 'BroadcastPreview',
    description: 'How many users a broadcast to this segment would reach if sent now.',
    examples: [{ recipients: 1250, max: 10000 }],
  });
export type BroadcastPreview = z.infer<typeof broadcastPreview>;

export const notificationView = z
  .object({
    id: z.guid(),
    kind: z.enum(NOTIFICATION_KINDS),
    title: z.string(),
    body: z.string().nullable(),
    action_url: z.string().nullable(),
    starts_at: z.date().nullable(),
    ends_at: z.date().nullable(),
    created_at: z.date(),
    read: z.boolean(),
    read_at: z.date().nullable(),
  })
  .describe("One of the caller's notifications, with its read state.");
export type NotificationView = z.infer<typeof notificationView>;

export const myNotificationsQuery = z.object({
  page: z.coerce.number().int().min(1).max(100_000).default(1),
  per_page: z.coerce.number().int().min(1).max(MAX_PER_PAGE).default(DEFAULT_PER_PAGE),
  unread: z
    .enum(['true', 'false'])
    .transform((value) => value === 'true')
    .optional()
    .describe('`true`: only unread ones.'),
});
export type MyNotificationsQuery = z.infer<typeof myNotificationsQuery>;

export const myNotificationsPage = pagedResponse(
  notificationView,
  pageMeta.extend({ unread: z.number().int().describe('Unread notifications showing now, across all pages.') }),
);

export const notificationIdParams = z.object({ id: z.guid() });
export const markedResult = z.object({ marked: z.number().int() }).describe('How many notifications were marked read.');

export const broadcastView = z
  .object({
    id: z.guid(),
    segment: z.record(z.string(), z.unknown()),
    recipients: z.number().int().nullable(),
    notification: notificationView
      .omit({ read: true, read_at: true })
      .extend({ audience: z.enum(['everyone', 'recipients']), read_count: z.number().int() })
      .nullable(),
    email: z
      .object({
        template_id: z.guid().nullable(),
        template_version: z.number().int().nullable(),
        queued: z.number().int(),
        sent: z.number().int(),
        failed: z.number().int(),
        skipped: z.number().int(),
      })
      .nullable(),
    created_by: z.guid().nullable(),
    created_at: z.date(),
  })
  .meta({ id: 'Broadcast', description: 'A broadcast of notifications and email, with its counts.' });
export type BroadcastView = z.infer<typeof broadcastView>;
export const broadcastsPage = pagedResponse(broadcastView);
export const listBroadcastsQuery = pageQuery(['created_at'], { field: 'created_at', direction: 'desc' }).extend({
  q: noTextFilter,
});
export type ListBroadcastsQuery = z.infer<typeof listBroadcastsQuery>;
