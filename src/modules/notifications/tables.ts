import type { ColumnType, Generated } from 'kysely';
import type { DefaultedTimestamp, NullableTimestamp } from '../../db/column-types.js';

/** Table types of in-app notifications and broadcasts (migration 0018), merged into Kysely's `Tables`. */

export const NOTIFICATION_KINDS = ['info', 'success', 'warning', 'billing', 'social', 'system'] as const;
export type NotificationKind = (typeof NOTIFICATION_KINDS)[number];

export interface NotificationBroadcastsTable {
  id: Generated<string>;
  segment: ColumnType<unknown, string, never>;
  recipients: number | null;
  notifications_created: number | null;
  email_template_id: string | null;
  email_template_version: number | null;
  emails_queued: number | null;
  created_by: ColumnType<string | null, string | null, never>;
  created_at: DefaultedTimestamp;
  /** The staff request's Idempotency-Key and a hash of its body (0030): a repeat answers this broadcast. */
  idempotency_key: ColumnType<string | null, string | null | undefined, never>;
  request_fingerprint: ColumnType<string | null, string | null | undefined, never>;
}

export interface NotificationsTable {
  id: Generated<string>;
  broadcast_id: string | null;
  audience: 'everyone' | 'recipients';
  kind: NotificationKind;
  title: string;
  body: string | null;
  action_url: string | null;
  starts_at: NullableTimestamp;
  ends_at: NullableTimestamp;
  created_at: DefaultedTimestamp;
}

export interface NotificationRecipientsTable {
  notification_id: string;
  user_id: string;
  read_at: NullableTimestamp;
}

declare module '../../db/tables.js' {
  interface Tables {
    notification_broadcasts: NotificationBroadcastsTable;
    notifications: NotificationsTable;
    notification_recipients: NotificationRecipientsTable;
  }
}
