import { sql, type Kysely } from 'kysely';
import type { Tables } from '../../db/tables.js';
import { keysetTimestamp, olderThan, type KeysetPosition } from '../../kernel/pagination.js';
import type { ListSessionsQuery } from './schemas.js';
import { LIVE_STATUSES, type EndReason, type GameSessionRow } from './tables.js';

type Db = Kysely<Tables>;

/** Every column of a session: the staff view answers each of them. */
const SESSION_COLUMNS = [
  'id',
  'user_id',
  'game_id',
  'game_slug',
  'game_title',
  'pool_id',
  'node_id',
  'status',
  'end_reason',
  'stopped_by',
  'play_url',
  'created_at',
  'started_at',
  'ended_at',
] as const;

/** A row and its keyset position (created_at to the microsecond, which a Date would lose). */
export type PagedSessionRow = GameSessionRow & { keyset_at: string };

export const positionOf = (row: PagedSessionRow): KeysetPosition => ({ created_at: row.keyset_at, id: row.id });

export function findSession(db: Db, id: string) {
  return db.selectFrom('game_sessions').select(SESSION_COLUMNS).where('id', '=', id).executeTakeFirst();
}

/**
 * The player's live (starting or active) session; the unique index allows at most one.
 * `age_ms` is measured by the database clock, the one that wrote created_at.
 */
export function findLiveSession(db: Db, userId: string) {
  return db
    .selectFrom('game_sessions')
    .selectAll()
    .select(sql<number>`(extract(epoch from now() - created_at) * 1000)::float8`.as('age_ms'))
    .where('user_id', '=', userId)
    .where('status', 'in', LIVE_STATUSES)
    .executeTakeFirst();
}

export interface NewSession {
  id: string;
  user_id: string;
  game: { id: number; slug: string; title: string };
  pool_id: string | null;
}

/** The `starting` row; a second live row of one user is a unique violation (the race decider). */
export async function insertStartingSession(db: Db, session: NewSession): Promise<void> {
  await db
    .insertInto('game_sessions')
    .values({
      id: session.id,
      user_id: session.user_id,
      game_id: session.game.id,
      game_slug: session.game.slug,
      game_title: session.game.title,
      pool_id: session.pool_id,
      status: 'starting',
    })
    .execute();
}

/** `starting` → `active` with where the runtime placed it; undefined when it is no longer starting. */
export function markActive(db: Db, id: string, placed: { node_id: string; pool_id: string | null; play_url: string }) {
  return db
    .updateTable('game_sessions')
    .set({
      status: 'active',
      node_id: placed.node_id,
      pool_id: placed.pool_id,
      play_url: placed.play_url,
      started_at: sql`now()`,
    })
    .where('id', '=', id)
    .where('status', '=', 'starting')
    .returningAll()
    .executeTakeFirst();
}

/** `starting` → `failed`: the runtime did not create it. */
export async function markStartFailed(db: Db, id: string): Promise<void> {
  await db
    .updateTable('game_sessions')
    .set({ status: 'failed', end_reason: 'start_failed', ended_at: sql`now()` })
    .where('id', '=', id)
    .where('status', '=', 'starting')
    .execute();
}

/**
 * A live session → `ended`. Only a live row changes, so of two concurrent stops one wins;
 * undefined means it had already ended.
 */
export function markEnded(db: Db, id: string, end: { reason: EndReason; stopped_by: string | null; ended_at?: Date }) {
  return db
    .updateTable('game_sessions')
    .set({ status: 'ended', end_reason: end.reason, stopped_by: end.stopped_by, ended_at: end.ended_at ?? sql`now()` })
    .where('id', '=', id)
    .where('status', 'in', LIVE_STATUSES)
    .returningAll()
    .executeTakeFirst();
}

function pagedSessions(db: Db, limit: number, cursor: KeysetPosition | undefined) {
  let query = db
    .selectFrom('game_sessions')
    .select(SESSION_COLUMNS)
    .select(keysetTimestamp('game_sessions.created_at').as('keyset_at'));
  if (cursor !== undefined) query = query.where(olderThan('game_sessions.created_at', 'game_sessions.id', cursor));
  // One row beyond the page says whether another page exists.
  return query
    .orderBy('game_sessions.created_at', 'desc')
    .orderBy('game_sessions.id', 'desc')
    .limit(limit + 1);
}

export function listUserSessions(
  db: Db,
  userId: string,
  limit: number,
  cursor: KeysetPosition | undefined,
): Promise<PagedSessionRow[]> {
  return pagedSessions(db, limit, cursor).where('user_id', '=', userId).execute();
}

export function listSessions(db: Db, query: ListSessionsQuery): Promise<PagedSessionRow[]> {
  let rows = pagedSessions(db, query.limit, query.cursor);
  if (query.user_id !== undefined) rows = rows.where('user_id', '=', query.user_id);
  if (query.pool_id !== undefined) rows = rows.where('pool_id', '=', query.pool_id);
  if (query.node_id !== undefined) rows = rows.where('node_id', '=', query.node_id);
  if (query.status !== undefined) rows = rows.where('status', '=', query.status);
  if (query.game_id !== undefined) rows = rows.where('game_id', '=', query.game_id);
  return rows.execute();
}
