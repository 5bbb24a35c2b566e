import type { Generated } from 'kysely';
import type { NullableTimestamp, Timestamp } from '../../db/column-types.js';

/** Table types of RFC 8628 device authorization (migration 0025), merged into Kysely's `Tables`. */

export type DeviceAuthorizationStatus = 'pending' | 'approved' | 'denied';

export interface DeviceAuthorizationsTable {
  id: Generated<string>;
  client_id: string;
  scope: string | null;
  device_code_hash: string;
  user_code: string;
  status: Generated<DeviceAuthorizationStatus>;
  requester_ip: string | null;
  requester_user_agent: string | null;
  created_at: Timestamp;
  expires_at: Timestamp;
  interval_seconds: number;
  last_polled_at: NullableTimestamp;
  user_id: string | null;
  decided_at: NullableTimestamp;
  redeemed_at: NullableTimestamp;
  session_id: string | null;
  refresh_token_hash: string | null;
  refresh_issued_at: NullableTimestamp;
  last_used_at: NullableTimestamp;
  last_used_ip: string | null;
  revoked_at: NullableTimestamp;
}

/** Migration 0054's view: which device authorization a launcher's session came from. */
export interface DeviceSessionsView {
  id: string;
  user_id: string | null;
  session_id: string | null;
}

declare module '../../db/tables.js' {
  interface Tables {
    device_authorizations: DeviceAuthorizationsTable;
    /** @published (a view: the session a device authorization's tokens carry) */
    device_sessions: DeviceSessionsView;
  }
}
