import type { Selectable } from 'kysely';
import type { Defaulted, DefaultedTimestamp, NullableTimestamp } from '../../db/column-types.js';

/** Table types of game sessions (migration 0009), merged into Kysely's `Tables`. */

export const GAME_SESSION_STATUSES = ['starting', 'active', 'ended', 'failed'] as const;
export const LIVE_STATUSES = ['starting', 'active'] as const;
export const END_REASONS = ['user_stopped', 'staff_stopped', 'runtime_ended', 'start_failed'] as const;
export type GameSessionStatus = (typeof GAME_SESSION_STATUSES)[number];
export type EndReason = (typeof END_REASONS)[number];

export interface GameSessionsTable {
  /** Chosen by the service; the runtime's session id too. */
  id: string;
  user_id: string;
  game_id: number | null;
  game_slug: string;
  game_title: string;
  pool_id: string | null;
  node_id: string | null;
  status: Defaulted<GameSessionStatus>;
  end_reason: EndReason | null;
  stopped_by: string | null;
  play_url: string | null;
  created_at: DefaultedTimestamp;
  started_at: NullableTimestamp;
  ended_at: NullableTimestamp;
}

export type GameSessionRow = Selectable<GameSessionsTable>;

declare module '../../db/tables.js' {
  interface Tables {
    game_sessions: GameSessionsTable;
  }
}
