import type { Defaulted, DefaultedTimestamp, NullableTimestamp, Timestamp } from '../../db/column-types.js';

/** Table types of the player's own account deletion (migration 0021), merged into Kysely's `Tables`. */

export type DeletionRequestStatus = 'pending' | 'voided' | 'confirmed';

export interface AccountDeletionRequestsTable {
  user_id: string;
  status: DeletionRequestStatus;
  code_hash: string | null;
  code_expires_at: Timestamp;
  failed_attempts: Defaulted<number>;
  reason: string | null;
  requested_at: DefaultedTimestamp;
  confirmed_at: NullableTimestamp;
  hard_delete_at: NullableTimestamp;
}

/** Migration 0057's view: what account deletion publishes of a player's request for other areas to read. */
export interface DeletionRequestDirectoryView {
  user_id: string;
  status: DeletionRequestStatus;
  hard_delete_at: Date | null;
}

declare module '../../db/tables.js' {
  interface Tables {
    account_deletion_requests: AccountDeletionRequestsTable;
    /** @published (a view: a player's deletion request, its status and erasure date) */
    deletion_request_directory: DeletionRequestDirectoryView;
  }
}
