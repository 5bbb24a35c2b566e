import type { Kysely } from 'kysely';
import type { Tables } from '../../../db/tables.js';
import type { Actor } from '../../../kernel/actor.js';
import { recordAudit } from '../../../kernel/audit.js';
import type { ChangeBus } from '../../../kernel/change-bus.js';
import { notFound } from '../../../kernel/errors.js';
import type { EventPublisher } from '../../../kernel/events.js';
import { paged } from '../../../kernel/pagination.js';
import { SITE_CONFIG_TOPIC } from '../public/index.js';
import {
  findAnnouncement,
  insertAnnouncement,
  listAnnouncements,
  lockAnnouncement,
  replaceAnnouncement,
} from './queries.js';
import type { ListAnnouncementsQuery, UpsertAnnouncementInput } from './schemas.js';

/** What the audit row keeps of an announcement: everything but the body text (its length instead). */
function auditPicture(fields: {
  title: string;
  body: string;
  severity: string;
  surface: string;
  action_url: string | null;
  starts_at: Date | string | null;
  ends_at: Date | string | null;
  is_active: boolean;
}) {
  const instant = (value: Date | string | null) => (value === null ? null : new Date(value).toISOString());
  return {
    title: fields.title,
    body_length: [...fields.body].length,
    severity: fields.severity,
    surface: fields.surface,
    action_url: fields.action_url,
    starts_at: instant(fields.starts_at),
    ends_at: instant(fields.ends_at),
    is_active: fields.is_active,
  };
}

/** Site announcements (banners): staff replace them whole; the public site shows the active ones. */
export class AnnouncementsService {
  constructor(
    private readonly db: Kysely<Tables>,
    private readonly bus: ChangeBus,
    private readonly events: EventPublisher,
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
    return this.bus.transaction(this.db, async (trx) => {
      let id: string;
      if (requestedId === undefined) {
        ({ id } = await insertAnnouncement(trx, fields, actor.userId));
        await recordAudit(trx, actor, {
          action: 'site.announcement.create',
          targetType: 'announcement',
          targetId: id,
          after: auditPicture(fields),
        });
      } else {
        const current = await lockAnnouncement(trx, requestedId);
        if (current === undefined) throw notFound();
        id = requestedId;
        await replaceAnnouncement(trx, id, fields, actor.userId);
        await recordAudit(trx, actor, {
          action: 'site.announcement.update',
          targetType: 'announcement',
          targetId: id,
          before: auditPicture(current),
          after: auditPicture(fields),
        });
      }
      await this.events.publish(trx, {
        kind: 'dashboard',
        name: 'site.announcement_updated',
        payload: {
          announcement_id: id,
          created: requestedId === undefined,
          surface: fields.surface,
          is_active: fields.is_active,
        },
        actorId: actor.userId,
        requestId: actor.requestId,
      });
      await this.bus.invalidate(trx, SITE_CONFIG_TOPIC);
      return { id };
    });
  }
}
