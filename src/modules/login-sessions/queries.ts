import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Tables } from '../../db/tables.js';
import type { ClientContext } from '../../kernel/principal.js';
import { ASYNCHRONOUS_COMMIT } from '../../lib/asynchronous-commit.js';
import type { StaffLoginSession } from './schemas.js';
import './tables.js';

type Db = Kysely<Tables>;

/**
 * When a session ended: revoked alone (`revoked_sessions`, by the user or staff), or by a "sign
 * out everywhere" it was not seen after (`users.tokens_valid_after`; the principal code moves
 * `last_seen_at` past that instant on the first request of a session that outlives it).
 */
const endedAt = sql<Date | null>`COALESCE(rs.revoked_at, CASE WHEN ls.last_seen_at <= u.tokens_valid_after THEN
  u.tokens_valid_after END)`;

/** A user's sessions, newest activity first, with when each ended (null: live). */
function sessionsOf(db: Db, userId: string, limit: number) {
  return (
    db
      .selectFrom('login_sessions as ls')
      .innerJoin('user_directory as u', 'u.id', 'ls.user_id')
      .leftJoin('revoked_sessions as rs', (join) =>
        join.onRef('rs.user_id', '=', 'ls.user_id').onRef('rs.session_id', '=', 'ls.session_id'),
      )
      // A launcher's session: its tokens carry the session id its device authorization recorded.
      .leftJoin('device_sessions as da', (join) =>
        join.onRef('da.user_id', '=', 'ls.user_id').onRef('da.session_id', '=', 'ls.session_id'),
      )
      .select([
        'ls.session_id',
        'ls.first_seen_at',
        'ls.last_seen_at',
        'ls.last_ip as ip',
        'ls.first_ip',
        'ls.user_agent',
        'da.id as device_authorization_id',
        endedAt.as('revoked_at'),
      ])
      .where('ls.user_id', '=', userId)
      .orderBy('ls.last_seen_at', 'desc')
      .orderBy('ls.first_seen_at', 'desc')
      .orderBy('ls.session_id')
      .limit(limit)
  );
}

export function listAllSessions(db: Db, userId: string, limit: number): Promise<StaffLoginSession[]> {
  return sessionsOf(db, userId, limit).execute();
}

export function listLiveSessions(db: Db, userId: string, limit: number) {
  return sessionsOf(db, userId, limit).where(endedAt, 'is', null).execute();
}

/** One of the user's sessions, if it is still live. */
export function findLiveSession(db: Db, userId: string, sessionId: string) {
  return sessionsOf(db, userId, 1).where('ls.session_id', '=', sessionId).where(endedAt, 'is', null).executeTakeFirst();
}

export function userExists(db: Db, userId: string) {
  return db.selectFrom('user_directory').select('id').where('id', '=', userId).executeTakeFirst();
}

/**
 * Ends a session for every instance: the principal query refuses tokens of a session listed
 * in `revoked_sessions` from the next request on. Idempotent.
 */
export async function revokeSession(trx: Db, userId: string, sessionId: string, revokedBy: string): Promise<void> {
  await trx
    .insertInto('revoked_sessions')
    .values({ user_id: userId, session_id: sessionId, revoked_by: revokedBy })
    .onConflict((oc) => oc.columns(['user_id', 'session_id']).doNothing())
    .execute();
}

/**
 * Whether the user's session was ended on its own, as a part of another area's one statement (the
 * principal's lookup): a correlated subquery given the user's id column.
 */
export function isSessionRevoked(userId: RawBuilder<string>, sessionId: string) {
  return sql<boolean>`EXISTS (
             SELECT 1 FROM revoked_sessions rs WHERE rs.user_id = ${userId} AND rs.session_id = ${sessionId}::text
           )`;
}

/** The session's last sighting (null: a new session), as a part of another area's one statement, like `isSessionRevoked`. */
export function sessionLastSeenAt(userId: RawBuilder<string>, sessionId: string) {
  return sql<Date | null>`(SELECT ls.last_seen_at FROM login_sessions ls WHERE ls.user_id = ${userId} AND ls.session_id =
             ${sessionId}::text)`;
}

/** A login session seen by the principal of a request (src/kernel/principal.ts decides when one is due). */
export interface SessionSighting {
  userId: string;
  sessionId: string;
  /** The user's "sign out everywhere" instant, if any. */
  tokensValidAfter: Date | null;
  client: ClientContext;
  now: Date;
  /** Sightings older than this are due (the guard against concurrent requests writing twice). */
  staleBefore: Date;
}

/**
 * Records a session's sighting in one statement: the session inserted when new (first IP and user
 * agent), or its last sighting moved (also when it lies before a "sign out everywhere" the session
 * has outlived, so lists can tell ended sessions by their last sighting). `alongside`: the owner's
 * write of the same sighting to its own table (users' `last_seen_at`), run in this statement as a
 * CTE, so the sighting is one commit, one change notice and one cache reload. Committed
 * asynchronously (`ASYNCHRONOUS_COMMIT`): the next request records a lost sighting again.
 */
export async function recordSessionSighting(
  db: Db,
  sighting: SessionSighting,
  alongside?: RawBuilder<unknown>,
): Promise<void> {
  const { userId, sessionId, tokensValidAfter, client, now, staleBefore } = sighting;
  const alongsideCte = alongside === undefined ? sql`` : sql`, alongside AS (${alongside})`;
  await sql`
    WITH ${ASYNCHRONOUS_COMMIT}${alongsideCte}
    INSERT INTO login_sessions AS ls (user_id, session_id, first_seen_at, last_seen_at, first_ip, last_ip, user_agent)
    SELECT ${userId}::uuid, ${sessionId}::text, ${now}::timestamptz, ${now}::timestamptz, ${client.ip}::text,
      ${client.ip}::text, ${client.userAgent}::text FROM async
    ON CONFLICT (user_id, session_id) DO UPDATE
       SET last_seen_at = excluded.last_seen_at, last_ip = excluded.last_ip, user_agent =
         COALESCE(excluded.user_agent, ls.user_agent)
     WHERE ls.last_seen_at < ${staleBefore} OR ls.last_seen_at <= ${tokensValidAfter}::timestamptz`.execute(db);
}

/** Deletes sessions last seen before `cutoff`; answers how many. */
export async function deleteSessionsUnseenSince(trx: Kysely<Tables>, cutoff: Date): Promise<number> {
  const result = await trx.deleteFrom('login_sessions').where('last_seen_at', '<', cutoff).executeTakeFirst();
  return Number(result.numDeletedRows);
}
