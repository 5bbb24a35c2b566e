import { z } from 'zod';
import { actorOf } from '../../kernel/auth.js';
import type { Deps } from '../../composition/platform.js';
import type { ZodApp } from '../../kernel/http/zod-app.js';
import { idempotencyKeyHeaders, idempotentAnswer } from '../../kernel/idempotency.js';
import { BroadcastService } from './broadcast.js';
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
import { BroadcastHistory, MyNotificationsService } from './service.js';

const staffTags = ['notifications'];
const meTags = ['me: notifications'];

/**
 * Operation 19 (broadcast), its history for staff, and the player's own in-app notifications:
 * list with the unread count, mark one read, mark all read.
 */
export function registerNotificationRoutes(app: ZodApp, deps: Deps<'db' | 'write'>): void {
  const broadcasts = new BroadcastService(deps.db, deps.write);
  const history = new BroadcastHistory(deps.db);
  const mine = new MyNotificationsService(deps.db);

  app.post(
    '/v1/admin/notifications/broadcast',
    {
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
    },
    async (request, reply) => {
      const sent = await broadcasts.broadcast(actorOf(request), request.body, request.headers['idempotency-key']);
      return idempotentAnswer(reply, sent);
    },
  );

  app.post(
    '/v1/admin/notifications/broadcast/preview',
    {
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
    },
    (request) => broadcasts.preview(request.body),
  );

  app.get(
    '/v1/admin/notifications/broadcasts',
    {
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
    },
    (request) => history.list(request.query),
  );

  app.get(
    '/v1/admin/notifications/broadcasts/:id',
    {
      config: { perms: ['announcements.read', 'email.read'], errors: { 404: ['not_found'] } },
      schema: {
        operationId: 'getNotificationBroadcast',
        tags: staffTags,
        summary: 'Get a broadcast',
        description: 'One broadcast as in the list. 404 `not_found`.',
        params: notificationIdParams,
        response: { 200: broadcastView },
      },
    },
    (request) => history.get(request.params.id),
  );

  app.get(
    '/v1/me/notifications',
    {
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
    },
    (request) => mine.list(actorOf(request).userId, request.query),
  );

  app.post(
    '/v1/me/notifications/:id/read',
    {
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
    },
    async (request, reply) => {
      await mine.markRead(actorOf(request).userId, request.params.id);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/v1/me/notifications/read-all',
    {
      schema: {
        operationId: 'markAllMyNotificationsRead',
        tags: meTags,
        summary: 'Mark every notification read',
        description: 'Marks every unread notification the caller sees as read; answers how many.',
        response: { 200: markedResult },
      },
    },
    (request) => mine.markAllRead(actorOf(request).userId),
  );
}
