import { sql, type Expression, type Kysely, type SqlBool } from 'kysely';
import type { Tables } from '../../../db/tables.js';
import { likePattern, readPage } from '../../../kernel/pagination.js';
import type { AnnouncementView, ListAnnouncementsQuery, UpsertAnnouncementInput } from './schemas.js';
import type { AnnouncementSeverity, AnnouncementSurface } from './tables.js';
import './tables.js';

/** Shown at `now`: switched on and inside its window (start inclusive, end exclusive). */
function shownAt(now: Date): Expression<SqlBool> {
  return sql<SqlBool>`(announcements.is_active AND (announcements.starts_at IS NULL OR announcements.starts_at <=
    ${now}) AND (announcements.ends_at IS NULL OR announcements.ends_at > ${now}))`;
}

function announcementViews(db: Kysely<Tables>, now: Date) {
  return db
    .selectFrom('announcements')
    .select([
      'id',
      'title',
      'body',
      'severity',
      'surface',
      'action_url',
      'starts_at',
      'ends_at',
      'is_active',
      'created_by',
      'updated_by',
      'created_at',
      'updated_at',
      sql<boolean>`${shownAt(now)}`.as('active_now'),
    ]);
}

export async function listAnnouncements(
  db: Kysely<Tables>,
  query: ListAnnouncementsQuery,
  now: Date,
): Promise<{ rows: AnnouncementView[]; total: number }> {
  let filtered = db.selectFrom('announcements');
  if (query.q !== undefined) {
    const pattern = likePattern(query.q);
    filtered = filtered.where((eb) => eb.or([eb('title', 'ilike', pattern), eb('body', 'ilike', pattern)]));
  }
  if (query.surface !== undefined) filtered = filtered.where('surface', '=', query.surface);
  if (query.active_now !== undefined) {
    filtered = filtered.where(query.active_now === 'true' ? shownAt(now) : sql<SqlBool>`NOT ${shownAt(now)}`);
  }
  return readPage(filtered, query, (matching) =>
    announcementViews(db, now)
      .where('id', 'in', matching.select('id'))
      // Open-ended (null) starts sort as the earliest.
      .orderBy(query.sort.field, (ob) =>
        query.sort.direction === 'asc' ? ob.asc().nullsFirst() : ob.desc().nullsLast(),
      )
      .orderBy('id'),
  );
}

export function findAnnouncement(db: Kysely<Tables>, id: string, now: Date): Promise<AnnouncementView | undefined> {
  return announcementViews(db, now).where('id', '=', id).executeTakeFirst();
}

/** The row locked for the rest of the transaction, so concurrent replacements queue up. */
export function lockAnnouncement(trx: Kysely<Tables>, id: string) {
  return trx.selectFrom('announcements').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
}

type Fields = Omit<UpsertAnnouncementInput, 'id'>;

export function insertAnnouncement(trx: Kysely<Tables>, fields: Fields, by: string) {
  return trx
    .insertInto('announcements')
    .values({ ...fields, created_by: by, updated_by: by })
    .returning('id')
    .executeTakeFirstOrThrow();
}

export async function replaceAnnouncement(trx: Kysely<Tables>, id: string, fields: Fields, by: string): Promise<void> {
  await trx
    .updateTable('announcements')
    .set({ ...fields, updated_by: by, updated_at: new Date() })
    .where('id', '=', id)
    .execute();
}

export interface PublicAnnouncement {
  id: string;
  title: string;
  body: string;
  severity: AnnouncementSeverity;
  surface: AnnouncementSurface;
  action_url: string | null;
  starts_at: Date | null;
  ends_at: Date | null;
}

/** Most severe first, then the earliest started (open-start ones before any dated one). */
const SEVERITY_RANK = sql`CASE announcements.severity WHEN 'critical' THEN 0 WHEN 'warning' THEN 1 WHEN 'success'
  THEN 2 ELSE 3 END`;

/** What the public site shows on `surface` at `now`: its own announcements and those for all. */
export function activeAnnouncements(
  db: Kysely<Tables>,
  surface: 'landing' | 'portal',
  now: Date,
): Promise<PublicAnnouncement[]> {
  return db
    .selectFrom('announcements')
    .select(['id', 'title', 'body', 'severity', 'surface', 'action_url', 'starts_at', 'ends_at'])
    .where(shownAt(now))
    .where('surface', 'in', [surface, 'all'])
    .orderBy(SEVERITY_RANK)
    .orderBy(sql`announcements.starts_at ASC NULLS FIRST`)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/**
 * The next instant after `now` at which an active announcement appears or disappears (null if
 * none): a cached public payload must not outlive it.
 */
export async function nextAnnouncementBoundary(db: Kysely<Tables>, now: Date): Promise<Date | null> {
  const row = await db
    .selectFrom('announcements')
    .select(
      sql<Date | null>`min(LEAST(
      CASE WHEN starts_at > ${now} THEN starts_at END,
      CASE WHEN ends_at > ${now} THEN ends_at END))`.as('next'),
    )
    .where('is_active', '=', true)
    .executeTakeFirstOrThrow();
  return row.next === null ? null : new Date(row.next);
}
