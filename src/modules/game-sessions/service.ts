import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import {
  RuntimeRefusedError,
  RuntimeUnavailableError,
  type CreatedRuntimeSession,
  type RuntimeClient,
  type RuntimeSession,
} from '../../adapters/runtime/index.js';
import type { Tables } from '../../db/tables.js';
import type { Actor } from '../../kernel/actor.js';
import { conflict, invalidState, notFound, unavailable } from '../../kernel/errors.js';
import { cursorPaged } from '../../kernel/pagination.js';
import { planLimitsOf } from '../plans/index.js';
import { RUNTIME_RETRY_AFTER_SECONDS, runtimeFailure } from '../runtime/index.js';
import { publishedGameById } from '../store/public/index.js';
import type { Writes } from '../../kernel/write.js';
import {
  findLiveSession,
  findSession,
  insertStartingSession,
  listSessions,
  listUserSessions,
  markActive,
  markEnded,
  markStartFailed,
  positionOf,
} from './queries.js';
import type { GameSessionView, ListSessionsQuery, MySessionView, MySessionsQuery, StartedSession } from './schemas.js';
import { LIVE_STATUSES, type GameSessionRow } from './tables.js';
import { gameSessionPicture } from './audit-picture.js';

const UNIQUE_VIOLATION = '23505';
const ONE_LIVE_PER_USER = 'game_sessions_one_live_per_user';

export interface GameSessionsDeps {
  db: Kysely<Tables>;
  write: Writes;
  /** The runtime client; a getter because the kernel makes it when it starts. */
  runtime: () => RuntimeClient;
  /**
   * How long a `starting` row may wait for the runtime's answer. Younger, it is another
   * request still creating it and counts as live without asking the runtime (asking would
   * find nothing yet, end it, and let a second session start beside it).
   */
  startDeadlineMs: number;
  warn: (details: Record<string, unknown>, message: string) => void;
}

const isLive = (status: string) => (LIVE_STATUSES as readonly string[]).includes(status);

function isLiveSessionTaken(error: unknown): boolean {
  const { code, constraint } = (typeof error === 'object' && error !== null ? error : {}) as {
    code?: unknown;
    constraint?: unknown;
  };
  return code === UNIQUE_VIOLATION && (constraint === undefined || constraint === ONE_LIVE_PER_USER);
}

const liveSessionConflict = (sessionId: string) =>
  conflict({ reason: 'a game session is already live', session_id: sessionId });

/**
 * Spec: 503 `unavailable` when the runtime cannot be reached or failed to create the session.
 * `details.reason` is the runtime's code (`no_capacity`, `pool_not_found`, …) or
 * `runtime_unavailable`; never its message, which might echo what we sent.
 */
function startFailure(error: unknown): unknown {
  if (error instanceof RuntimeRefusedError) {
    const reason = /^[a-z][a-z0-9_]{0,63}$/.test(error.code) ? error.code : 'runtime_refused';
    return unavailable({ reason }, RUNTIME_RETRY_AFTER_SECONDS);
  }
  if (error instanceof RuntimeUnavailableError)
    return unavailable({ reason: 'runtime_unavailable' }, RUNTIME_RETRY_AFTER_SECONDS);
  return error;
}

const isRuntimeNotFound = (error: unknown) => error instanceof RuntimeRefusedError && error.status === 404;

export function mySessionView(row: GameSessionRow): MySessionView {
  return {
    id: row.id,
    game_id: row.game_id,
    game_slug: row.game_slug,
    game_title: row.game_title,
    status: row.status,
    end_reason: row.end_reason,
    play_url: row.play_url,
    created_at: row.created_at,
    started_at: row.started_at,
    ended_at: row.ended_at,
  };
}

export function gameSessionView(row: GameSessionRow): GameSessionView {
  return {
    ...mySessionView(row),
    user_id: row.user_id,
    pool_id: row.pool_id,
    node_id: row.node_id,
    stopped_by: row.stopped_by,
  };
}

/**
 * Game sessions: a player starts and stops a game on the Runtime service; the service keeps
 * the history. The runtime's member token passes through to the player and is never stored.
 */
export class GameSessionsService {
  constructor(private readonly deps: GameSessionsDeps) {}

  private get db() {
    return this.deps.db;
  }

  /**
   * `POST /v1/me/sessions`. The `starting` row goes in first so the unique index decides
   * racing starts; the runtime is asked with our id (a retried create is idempotent there).
   */
  async start(userId: string, gameId: number): Promise<StartedSession> {
    const game = await publishedGameById(this.db, gameId);
    if (game === undefined) throw notFound('game_not_found');
    await this.settleLiveSession(userId);

    const limits = (await planLimitsOf(this.db, userId)) ?? {};
    const poolId = typeof limits.pool_id === 'string' ? limits.pool_id : null;
    const id = randomUUID();
    await this.insertOrConflict({ id, user_id: userId, game, pool_id: poolId });

    let created: CreatedRuntimeSession;
    try {
      created = await this.deps
        .runtime()
        .createSession({ id, user_id: userId, game: { id: game.id, slug: game.slug }, pool_id: poolId, limits });
    } catch (error) {
      await markStartFailed(this.db, id);
      // A timeout may hide a session the runtime did create: release its slot.
      if (error instanceof RuntimeUnavailableError) this.releaseInBackground(id);
      throw startFailure(error);
    }

    const active = await markActive(this.db, id, created);
    if (active === undefined) {
      // Stopped (by staff) while the runtime was creating it: the stop wins.
      this.releaseInBackground(id);
      throw conflict({ reason: 'the session was stopped while it started', session_id: id });
    }
    return { session_id: id, play_url: created.play_url, member_token: created.member_token };
  }

  /**
   * `POST /v1/me/sessions/stop`: 404 when the caller has no live session; 503 (row kept) when the runtime cannot be
   * reached.
   */
  async stopMine(userId: string): Promise<void> {
    const live = await findLiveSession(this.db, userId);
    if (live === undefined) throw notFound('not_found', { reason: 'no live game session' });
    await this.stopOnRuntime(live.id);
    // Undefined: another stop ended it meanwhile; the player's wish holds either way.
    await markEnded(this.db, live.id, { reason: 'user_stopped', stopped_by: userId });
  }

  async listMine(userId: string, query: MySessionsQuery) {
    const rows = await listUserSessions(this.db, userId, query.limit, query.cursor);
    return cursorPaged(rows, query.limit, positionOf, mySessionView);
  }

  async list(query: ListSessionsQuery) {
    const rows = await listSessions(this.db, query);
    return cursorPaged(rows, query.limit, positionOf, gameSessionView);
  }

  async get(id: string): Promise<GameSessionView> {
    const row = await findSession(this.db, id);
    if (row === undefined) throw notFound();
    return gameSessionView(row);
  }

  /**
   * Staff stop: the runtime first (503 when unreachable, nothing changed), then the row and
   * its audit row together. 422 `invalid_state` when the session has already ended.
   */
  async stopByStaff(actor: Actor, id: string, reason: string | undefined): Promise<GameSessionView> {
    const session = await findSession(this.db, id);
    if (session === undefined) throw notFound();
    if (!isLive(session.status))
      throw invalidState({ reason: 'the session has already ended', status: session.status });
    await this.stopOnRuntime(id);
    return this.deps.write(actor, async (w) => {
      const ended = await markEnded(w.trx, id, { reason: 'staff_stopped', stopped_by: actor.userId });
      if (ended === undefined) {
        const now = await findSession(w.trx, id);
        if (now === undefined) throw notFound();
        throw invalidState({ reason: 'the session has already ended', status: now.status });
      }
      await w.auditRow(gameSessionPicture, {
        action: 'runtime.session_stop',
        targetType: 'game_session',
        targetId: id,
        reason: reason ?? null,
        before: session,
        after: ended,
        only: { before: ['status'] },
        extra: { user_id: ended.user_id, game_id: ended.game_id, pool_id: ended.pool_id, node_id: ended.node_id },
      });
      return gameSessionView(ended);
    });
  }

  /**
   * One live session per player. A live row the runtime has already ended (stopped, failed,
   * or unknown to it) is closed as `runtime_ended` so the player can start again; a session
   * still running is 409 naming it; a runtime that cannot be asked is 503.
   */
  private async settleLiveSession(userId: string): Promise<void> {
    const live = await findLiveSession(this.db, userId);
    if (live === undefined) return;
    if (live.status === 'starting' && live.age_ms < this.deps.startDeadlineMs) {
      throw liveSessionConflict(live.id);
    }
    let state: RuntimeSession | undefined;
    try {
      state = await this.deps.runtime().getSession(live.id);
    } catch (error) {
      if (!isRuntimeNotFound(error)) throw startFailure(error);
    }
    if (state !== undefined && (state.status === 'starting' || state.status === 'running'))
      throw liveSessionConflict(live.id);
    const endedAt = state?.ended_at ? new Date(state.ended_at) : undefined;
    await markEnded(this.db, live.id, {
      reason: 'runtime_ended',
      stopped_by: null,
      ...(endedAt && !Number.isNaN(endedAt.getTime()) ? { ended_at: endedAt } : {}),
    });
  }

  /** Inserts the `starting` row; a live row of the same player (a racing start) is 409. */
  private async insertOrConflict(session: Parameters<typeof insertStartingSession>[1]): Promise<void> {
    for (let attempt = 0; ; attempt += 1) {
      try {
        await insertStartingSession(this.db, session);
        return;
      } catch (error) {
        if (!isLiveSessionTaken(error)) throw error;
        const live = await findLiveSession(this.db, session.user_id);
        if (live !== undefined) throw liveSessionConflict(live.id);
        // The other start failed in between: its row is no longer live, so try once more.
        if (attempt >= 1) throw conflict({ reason: 'a game session is already live' });
      }
    }
  }

  /** Stops the runtime session; one the runtime does not know has ended there already. */
  private async stopOnRuntime(id: string): Promise<void> {
    try {
      await this.deps.runtime().stopSession(id);
    } catch (error) {
      if (isRuntimeNotFound(error)) return;
      throw runtimeFailure(error);
    }
  }

  private releaseInBackground(id: string): void {
    this.stopOnRuntime(id).catch((error: unknown) => {
      this.deps.warn(
        { session_id: id, err: { message: error instanceof Error ? error.message : String(error) } },
        'could not release a game session after a failed start',
      );
    });
  }
}
