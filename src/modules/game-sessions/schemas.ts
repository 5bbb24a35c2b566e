import { z } from 'zod';
import { cursorPageQuery, cursorPagedResponse } from '../../kernel/pagination.js';
import { END_REASONS, GAME_SESSION_STATUSES } from './tables.js';

export const startSessionBody = z.object({ game_id: z.number().int().positive().max(2_147_483_647) }).strict();
export type StartSessionInput = z.infer<typeof startSessionBody>;

/** Spec, Authentication 8: a session start returns exactly these three fields. */
export const startedSessionBody = z
  .object({
    session_id: z.guid(),
    play_url: z.string(),
    member_token: z.string().describe('Hand it to the player client; the service keeps no copy.'),
  })
  .strict()
  .describe('The new game session: where to play, and the member token.');
export type StartedSession = z.infer<typeof startedSessionBody>;

/** A session as the player sees their own history: no infrastructure, no staff ids. */
export const mySessionBody = z.object({
  id: z.guid(),
  game_id: z.number().int().nullable().describe('Null once the game was deleted from the store.'),
  game_slug: z.string(),
  game_title: z.string(),
  status: z.enum(GAME_SESSION_STATUSES),
  end_reason: z.enum(END_REASONS).nullable(),
  play_url: z.string().nullable(),
  created_at: z.date(),
  started_at: z.date().nullable(),
  ended_at: z.date().nullable(),
});
export type MySessionView = z.infer<typeof mySessionBody>;

/** A session as staff see it. */
export const gameSessionBody = mySessionBody
  .extend({
    user_id: z.guid(),
    pool_id: z.string().nullable(),
    node_id: z.string().nullable(),
    stopped_by: z
      .guid()
      .nullable()
      .describe('The player (user_stopped) or staff member (staff_stopped) who stopped it.'),
  })
  .meta({ id: 'GameSession', description: 'A game session on the runtime, as staff see it.' });
export type GameSessionView = z.infer<typeof gameSessionBody>;

export const mySessionsQuery = cursorPageQuery;
export type MySessionsQuery = z.infer<typeof mySessionsQuery>;
export const mySessionsPage = cursorPagedResponse(mySessionBody);

export const listSessionsQuery = cursorPageQuery.extend({
  user_id: z.guid().optional(),
  pool_id: z.string().min(1).max(200).optional(),
  node_id: z.string().min(1).max(200).optional().describe('Sessions placed on this runtime node.'),
  status: z.enum(GAME_SESSION_STATUSES).optional(),
  game_id: z.coerce.number().int().positive().max(2_147_483_647).optional(),
});
export type ListSessionsQuery = z.infer<typeof listSessionsQuery>;
export const sessionsPage = cursorPagedResponse(gameSessionBody);

export const sessionIdParams = z.object({ id: z.guid() });

export const staffStopBody = z
  .object({ reason: z.string().max(500).optional().describe('Kept in the audit row.') })
  .strict()
  .nullish();
export type StaffStopInput = z.infer<typeof staffStopBody>;
