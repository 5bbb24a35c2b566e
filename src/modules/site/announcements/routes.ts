import { actorOf } from '../../../kernel/auth.js';
import { idResult } from '../../../kernel/answers.js';
import type { Deps } from '../../../composition/platform.js';
import type { ZodApp } from '../../../kernel/http/zod-app.js';
import {
  announcementBody,
  announcementIdParams,
  announcementsPage,
  listAnnouncementsQuery,
  upsertAnnouncementBody,
} from './schemas.js';
import { AnnouncementsService } from './service.js';

const tags = ['announcements'];

export function registerAnnouncementsRoutes(app: ZodApp, deps: Deps<'db' | 'write'>): void {
  const announcements = new AnnouncementsService(deps.db, deps.write);

  app.get(
    '/v1/admin/site/announcements',
    {
      config: { perms: ['site.read', 'announcements.read'] },
      schema: {
        operationId: 'listSiteAnnouncements',
        tags,
        summary: 'List announcements',
        description: '`q` matches title or body; filter by `surface` and by `active_now` (shown right now).',
        querystring: listAnnouncementsQuery,
        response: { 200: announcementsPage },
      },
    },
    (request) => announcements.list(request.query),
  );

  app.put(
    '/v1/admin/site/announcements',
    {
      config: { perms: ['site.write', 'announcements.write'], errors: { 404: ['not_found'] } },
      schema: {
        operationId: 'upsertSiteAnnouncement',
        tags,
        summary: 'Create or replace an announcement',
        description:
          'The body is the whole announcement: with `id` that one is replaced (omitted fields take their ' +
          'defaults; 404 `not_found` if unknown), without `id` a new one is created. `ends_at` must be after ' +
          '`starts_at` (400). The public site shows the change at once; emits the dashboard event ' +
          '`site.announcement_updated`.',
        body: upsertAnnouncementBody,
        response: { 200: idResult },
      },
    },
    (request) => announcements.upsert(actorOf(request), request.body),
  );

  app.get(
    '/v1/admin/site/announcements/:id',
    {
      config: { perms: ['site.read', 'announcements.read'], errors: { 404: ['not_found'] } },
      schema: {
        operationId: 'getSiteAnnouncement',
        tags,
        summary: 'Get an announcement',
        description: '404 `not_found`.',
        params: announcementIdParams,
        response: { 200: announcementBody },
      },
    },
    (request) => announcements.get(request.params.id),
  );
}
