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

declare module '../../db/tables.js' {
  interface Tables {
    account_deletion_requests: AccountDeletionRequestsTable;
  }
}
