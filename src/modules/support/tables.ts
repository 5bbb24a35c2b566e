import type { ColumnType, Generated } from 'kysely';
import type { DefaultedJson, DefaultedTimestamp, NullableTimestamp } from '../../db/column-types.js';

/** Table types of support tickets (migration 0020), merged into Kysely's `Tables`. */

export const SUPPORT_CATEGORIES = ['account', 'billing', 'technical', 'abuse', 'other'] as const;
export type SupportCategory = (typeof SUPPORT_CATEGORIES)[number];

export const TICKET_STATUSES = ['open', 'answered', 'closed'] as const;
export type TicketStatus = (typeof TICKET_STATUSES)[number];

export type MessageAuthor = 'player' | 'staff';

export interface SupportTicketsTable {
  id: Generated<string>;
  user_id: ColumnType<string, string, never>;
  subject: ColumnType<string, string, never>;
  category: ColumnType<SupportCategory, SupportCategory, never>;
  status: ColumnType<TicketStatus, TicketStatus | undefined, TicketStatus>;
  updated_at: DefaultedTimestamp;
  closed_at: NullableTimestamp;
  closed_by: string | null;
  close_reason: string | null;
  created_at: DefaultedTimestamp;
}

export interface SupportMessagesTable {
  id: Generated<string>;
  ticket_id: ColumnType<string, string, never>;
  author: ColumnType<MessageAuthor, MessageAuthor, never>;
  author_id: ColumnType<string | null, string | null, never>;
  body: ColumnType<string, string, never>;
  attachment_keys: DefaultedJson;
  created_at: DefaultedTimestamp;
}

declare module '../../db/tables.js' {
  interface Tables {
    support_tickets: SupportTicketsTable;
    support_messages: SupportMessagesTable;
  }
}
