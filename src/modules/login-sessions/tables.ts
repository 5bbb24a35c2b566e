import type { Selectable } from 'kysely';
import type { Timestamp } from '../../db/column-types.js';

/** Table types of login sessions (migration 0024), merged into Kysely's `Tables`. */

export interface LoginSessionsTable {
  user_id: string;
  session_id: string;
  first_seen_at: Timestamp;
  last_seen_at: Timestamp;
  first_ip: string | null;
  last_ip: string | null;
  user_agent: string | null;
}

export type LoginSessionRow = Selectable<LoginSessionsTable>;

declare module '../../db/tables.js' {
  interface Tables {
    login_sessions: LoginSessionsTable;
  }
}
