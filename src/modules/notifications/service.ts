import type { Kysely } from 'kysely';
import type { Tables } from '../../db/tables.js';
import { notFound } from '../../kernel/errors.js';
import { paged } from '../../kernel/pagination.js';
import { mailCountsOfBroadcasts } from '../email/delivery/index.js';
import { broadcastIdPage, broadcastsByIds, notificationsOfBroadcasts } from './broadcast-queries.js';
import { listVisible, markAllRead, markOneRead, unreadCount } from './queries.js';
import type { BroadcastView, ListBroadcastsQuery, MyNotificationsQuery } from './schemas.js';

type Db = Kysely<Tables>;

/** The caller's own notifications: only ever what the caller sees, by the token's subject. */
export class MyNotificationsService {
  constructor(
    private readonly db: Db,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  async list(userId: string, query: MyNotificationsQuery) {
    const now = this.clock();
    const [{ rows, total }, unread] = await Promise.all([
      listVisible(this.db, userId, now, {
        page: query.page,
        per_page: query.per_page,
        unreadOnly: query.unread === true,
      }),
      unreadCount(this.db, userId, now),
    ]);
    const page = paged(rows, query, total);
    return { ...page, meta: { ...page.meta, unread } };
  }

  /** 404 for a notification the caller does not see, whether or not it exists. */
  async markRead(userId: string, id: string): Promise<void> {
    if (!(await markOneRead(this.db, userId, this.clock(), id))) throw notFound();
  }

  async markAllRead(userId: string): Promise<{ marked: number }> {
    return { marked: await markAllRead(this.db, userId, this.clock()) };
  }
}

/** Staff views of past broadcasts, with how far each got (reads, mail sent). */
export class BroadcastHistory {
  constructor(private readonly db: Db) {}

  async list(query: ListBroadcastsQuery) {
    const { ids, total } = await broadcastIdPage(this.db, query);
    return paged(await this.#views(ids), query, total);
  }

  async get(id: string): Promise<BroadcastView> {
    const [view] = await this.#views([id]);
    if (view === undefined) throw notFound();
    return view;
  }

  /** The broadcasts with their notification and counts, in the order of `ids`: three set-based reads. */
  async #views(ids: string[]): Promise<BroadcastView[]> {
    if (ids.length === 0) return [];
    const [broadcasts, notifications, mail] = await Promise.all([
      broadcastsByIds(this.db, ids),
      notificationsOfBroadcasts(this.db, ids),
      mailCountsOfBroadcasts(this.db, ids),
    ]);
    const byId = new Map(broadcasts.map((row) => [row.id, row]));
    return ids.flatMap((id): BroadcastView[] => {
      const row = byId.get(id);
      if (row === undefined) return [];
      const notification = notifications.find((n) => n.broadcast_id === id);
      const counts = (status: string) =>
        mail.filter((m) => m.broadcast_id === id && m.status === status).reduce((sum, m) => sum + m.n, 0);
      return [
        {
          id: row.id,
          segment: row.segment as Record<string, unknown>,
          recipients: row.recipients,
          notification:
            notification === undefined ? null : { ...notification, read_count: notification.read_count ?? 0 },
          email:
            row.emails_queued === null
              ? null
              : {
                  template_id: row.email_template_id,
                  template_version: row.email_template_version,
                  queued: row.emails_queued,
                  sent: counts('sent'),
                  failed: counts('failed'),
                  skipped: counts('skipped'),
                },
          created_by: row.created_by,
          created_at: row.created_at,
        },
      ];
    });
  }
}
