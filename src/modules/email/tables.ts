import type { ColumnType, Generated } from 'kysely';
import type { DefaultedJson, DefaultedTimestamp, NullableTimestamp } from '../../db/column-types.js';

/** Table types of outbound email's shared part (migration 0016), merged into Kysely's `Tables`. */

export type EmailCategory = 'marketing' | 'transactional';

export interface EmailTemplatesTable {
  id: Generated<string>;
  key: ColumnType<string, string, never>;
  name: string;
  description: string | null;
  category: ColumnType<EmailCategory, EmailCategory | undefined, EmailCategory>;
  published_version: ColumnType<number | null, number | null | undefined, number | null>;
  published_at: NullableTimestamp;
  created_by: ColumnType<string | null, string | null, never>;
  updated_by: string | null;
  created_at: DefaultedTimestamp;
  updated_at: DefaultedTimestamp;
}

/** Immutable once inserted (a trigger refuses updates). */
export interface EmailTemplateVersionsTable {
  template_id: string;
  version: number;
  subject: string;
  html: string;
  text: string;
  note: string | null;
  created_by: string | null;
  created_at: DefaultedTimestamp;
}

export type SuppressionReason = 'unsubscribed' | 'bounced' | 'complained' | 'manual';

export interface EmailSuppressionsTable {
  email: string;
  reason: SuppressionReason;
  source: string;
  message_id: string | null;
  created_at: DefaultedTimestamp;
}

export type EmailMessageStatus = 'queued' | 'sending' | 'sent' | 'failed' | 'skipped' | 'cancelled';

export interface EmailMessagesTable {
  id: Generated<string>;
  to_email: string;
  user_id: string | null;
  category: EmailCategory;
  template_id: string | null;
  template_version: number | null;
  vars: DefaultedJson;
  subject: string | null;
  html: string | null;
  text: string | null;
  campaign_id: string | null;
  broadcast_id: string | null;
  status: ColumnType<EmailMessageStatus, EmailMessageStatus | undefined, EmailMessageStatus>;
  held: ColumnType<boolean, boolean | undefined, boolean>;
  attempts: ColumnType<number, number | undefined, number>;
  next_attempt_at: DefaultedTimestamp;
  lease_until: NullableTimestamp;
  last_error: string | null;
  transport: 'smtp' | 'outbox' | null;
  transport_message_id: string | null;
  created_at: DefaultedTimestamp;
  sent_at: NullableTimestamp;
}

declare module '../../db/tables.js' {
  interface Tables {
    email_templates: EmailTemplatesTable;
    email_template_versions: EmailTemplateVersionsTable;
    email_suppressions: EmailSuppressionsTable;
    email_messages: EmailMessagesTable;
  }
}
