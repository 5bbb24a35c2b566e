import type { ColumnType, Generated } from 'kysely';
import type { DefaultedTimestamp } from '../../../db/column-types.js';

/** Table types of email audiences (migration 0017), merged into Kysely's `Tables`. */

export interface EmailAudiencesTable {
  id: Generated<string>;
  name: string;
  description: string | null;
  created_by: ColumnType<string | null, string | null, never>;
  updated_by: string | null;
  created_at: DefaultedTimestamp;
  updated_at: DefaultedTimestamp;
}

export interface EmailAudienceMembersTable {
  id: Generated<string>;
  audience_id: ColumnType<string, string, never>;
  email: ColumnType<string, string, never>;
  user_id: string | null;
  created_at: DefaultedTimestamp;
}

declare module '../../../db/tables.js' {
  interface Tables {
    email_audiences: EmailAudiencesTable;
    email_audience_members: EmailAudienceMembersTable;
  }
}
