import { actorOf } from '../../kernel/auth.js';
import type { Deps } from '../../composition/platform.js';
import type { ZodApp } from '../../kernel/http/zod-app.js';
import { idempotentAnswer } from '../../kernel/idempotency.js';
import { BroadcastService } from './broadcast.js';
import { BroadcastHistory, MyNotificationsService } from './service.js';
import {
  broadcastNotification,
  getNotificationBroadcast,
  listMyNotifications,
  listNotificationBroadcasts,
  markAllMyNotificationsRead,
  markMyNotificationRead,
  previewNotificationBroadcast,
} from './route-options.js';

/** Operation 19 (broadcast) and its history for staff. */
export function registerNotificationBroadcastRoutes(app: ZodApp, deps: Deps<'db' | 'write'>): void {
  const broadcasts = new BroadcastService(deps.db, deps.write);
  const history = new BroadcastHistory(deps.db);

  app.post('/v1/admin/notifications/broadcast', broadcastNotification, async (request, reply) =>
    idempotentAnswer(
      reply,
      await broadcasts.broadcast(actorOf(request), request.body, request.headers['idempotency-key']),
    ),
  );

  app.post('/v1/admin/notifications/broadcast/preview', previewNotificationBroadcast, (request) =>
    broadcasts.preview(request.body),
  );

  app.get('/v1/admin/notifications/broadcasts', listNotificationBroadcasts, (request) => history.list(request.query));

  app.get('/v1/admin/notifications/broadcasts/:id', getNotificationBroadcast, (request) =>
    history.get(request.params.id),
  );
}

/** The player's own in-app notifications: list with the unread count, mark one read, mark all read. */
export function registerMyNotificationRoutes(app: ZodApp, deps: Deps<'db'>): void {
  const mine = new MyNotificationsService(deps.db);

  app.get('/v1/me/notifications', listMyNotifications, (request) => mine.list(actorOf(request).userId, request.query));

  app.post('/v1/me/notifications/:id/read', markMyNotificationRead, async (request, reply) => {
    await mine.markRead(actorOf(request).userId, request.params.id);
    return reply.code(204).send(null);
  });

  app.post('/v1/me/notifications/read-all', markAllMyNotificationsRead, (request) =>
    mine.markAllRead(actorOf(request).userId),
  );
}
