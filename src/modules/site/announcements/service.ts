import type { Kysely } from 'kysely';
import type { Tables } from '../../../db/tables.js';
import type { Actor } from '../../../kernel/actor.js';
import { notFound } from '../../../kernel/errors.js';
import { paged } from '../../../kernel/pagination.js';
import { SITE_CONFIG_TOPIC } from '../public/index.js';
import type { Writes } from '../../../kernel/write.js';
import {
  findAnnouncement,
  insertAnnouncement,
  listAnnouncements,
  lockAnnouncement,
  replaceAnnouncement,
} from './queries.js';
import type { ListAnnouncementsQuery, UpsertAnnouncementInput } from './schemas.js';
import { announcementPicture } from './audit-picture.js';

/** Site announcements (banners): staff replace them whole; the public site shows the active ones. */
export class AnnouncementsService {
  constructor(
    private readonly db: Kysely<Tables>,
    private readonly write: Writes,
  ) {}

  async list(query: ListAnnouncementsQuery) {
    const { rows, total } = await listAnnouncements(this.db, query, new Date());
    return paged(rows, query, total);
  }

  async get(id: string) {
    const row = await findAnnouncement(this.db, id, new Date());
    if (row === undefined) throw notFound();
    return row;
  }

  /** With `id`: replaces that announcement (404 if unknown); without: creates one. */
  upsert(actor: Actor, input: UpsertAnnouncementInput): Promise<{ id: string }> {
    const { id: requestedId, ...fields } = input;
    return this.write(actor, async (w) => {
      let id: string;
      if (requestedId === undefined) {
        ({ id } = await insertAnnouncement(w.trx, fields, actor.userId));
        await w.auditRow(announcementPicture, {
          action: 'site.announcement.create',
          targetType: 'announcement',
          targetId: id,
          after: fields,
        });
      } else {
        const current = await lockAnnouncement(w.trx, requestedId);
        if (current === undefined) throw notFound();
        id = requestedId;
        await replaceAnnouncement(w.trx, id, fields, actor.userId);
        await w.auditRow(announcementPicture, {
          action: 'site.announcement.update',
          targetType: 'announcement',
          targetId: id,
          before: current,
          after: fields,
        });
      }
      await w.publish({
        kind: 'dashboard',
        name: 'site.announcement_updated',
        payload: {
          announcement_id: id,
          created: requestedId === undefined,
          surface: fields.surface,
          is_active: fields.is_active,
        },
      });
      w.invalidate(SITE_CONFIG_TOPIC);
      return { id };
    });
  }
}
