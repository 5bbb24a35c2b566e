// What each route of routes.ts is (permission, errors, schemas, OpenAPI text), named by its operationId.
import { z } from 'zod';
import { idempotencyKeyHeaders } from '../../kernel/idempotency.js';
import {
  broadcastBody,
  broadcastPreview,
  broadcastPreviewBody,
  broadcastResult,
  broadcastsPage,
  broadcastView,
  listBroadcastsQuery,
  markedResult,
  myNotificationsPage,
  myNotificationsQuery,
  notificationIdParams,
} from './schemas.js';

const staffTags = ['notifications'];
const meTags = ['me: notifications'];

export const broadcastNotification = {
  config: {
    errors: {
      404: ['not_found'],
      409: ['conflict'],
      422: ['empty_segment', 'invalid_request', 'segment_too_large'],
    },
    perms: ['announcements.write', 'email.send'],
  },
  schema: {
    operationId: 'broadcastNotification',
    tags: staffTags,
    summary: 'Broadcast a notification and/or an email',
    description:
      'Sends an in-app notification, an email from a published template, or both, to the users a `segment` ' +
      'matches (empty: every active user). Each channel needs its own permission; idempotent with an ' +
      '`Idempotency-Key` header. In depth: ' +
      '[docs/api/notifications.md](docs/api/notifications.md#broadcast-a-notification-andor-an-email).',
    headers: idempotencyKeyHeaders('broadcast'),
    body: broadcastBody,
    response: { 200: broadcastResult },
  },
} as const;

export const previewNotificationBroadcast = {
  config: { perms: ['announcements.write', 'email.send'] },
  schema: {
    operationId: 'previewNotificationBroadcast',
    tags: staffTags,
    summary: "Count a broadcast's recipients",
    description:
      'How many users a broadcast to this `segment` would reach if sent now (active users by default, as the ' +
      'broadcast counts them), counted no further than `max` + 1, so the sender sees the number before ' +
      'sending. Sends and stores nothing; an empty or too-large segment is a count here, not an error. Either ' +
      "channel's permission may ask.",
    body: broadcastPreviewBody,
    response: { 200: broadcastPreview },
  },
} as const;

export const listNotificationBroadcasts = {
  config: { perms: ['announcements.read', 'email.read'] },
  schema: {
    operationId: 'listNotificationBroadcasts',
    tags: staffTags,
    summary: 'List broadcasts',
    description:
      'Past broadcasts, newest first (`sort=created_at:asc|desc`), paged with total: the segment, how many it ' +
      'matched, the notification with how many have read it, and the email with how many were sent, failed or ' +
      'skipped so far.',
    querystring: listBroadcastsQuery,
    response: { 200: broadcastsPage },
  },
} as const;

export const getNotificationBroadcast = {
  config: { perms: ['announcements.read', 'email.read'], errors: { 404: ['not_found'] } },
  schema: {
    operationId: 'getNotificationBroadcast',
    tags: staffTags,
    summary: 'Get a broadcast',
    description: 'One broadcast as in the list. 404 `not_found`.',
    params: notificationIdParams,
    response: { 200: broadcastView },
  },
} as const;

export const listMyNotifications = {
  schema: {
    operationId: 'listMyNotifications',
    tags: meTags,
    summary: "The caller's notifications",
    description:
      'In-app notifications the caller sees now (broadcasts to everyone, and those sent to the caller, within ' +
      'their time window), newest first, with read state. `meta.total` counts the ones listed (with ' +
      '`unread=true`, only unread ones), `meta.unread` every unread one.',
    querystring: myNotificationsQuery,
    response: { 200: myNotificationsPage },
  },
} as const;

export const markMyNotificationRead = {
  config: { errors: { 404: ['not_found'] } },
  schema: {
    operationId: 'markMyNotificationRead',
    tags: meTags,
    summary: 'Mark a notification read',
    description:
      'Marks one notification the caller sees as read (marking it again keeps the first read time). 404 ' +
      '`not_found` for any other id, whether it exists or not.',
    params: notificationIdParams,
    response: { 204: z.null().describe('Marked read') },
  },
} as const;

export const markAllMyNotificationsRead = {
  schema: {
    operationId: 'markAllMyNotificationsRead',
    tags: meTags,
    summary: 'Mark every notification read',
    description: 'Marks every unread notification the caller sees as read; answers how many.',
    response: { 200: markedResult },
  },
} as const;
