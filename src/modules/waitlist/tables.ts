import type { ColumnType } from 'kysely';
import type { DefaultedTimestamp } from '../../db/column-types.js';

/** Table types of the waitlist (migration 0017), merged into Kysely's `Tables`. A signup never changes. */

export interface WaitlistSignupsTable {
  email: ColumnType<string, string, never>;
  source: ColumnType<string | null, string | null, never>;
  referrer: ColumnType<string | null, string | null, never>;
  ip: ColumnType<string | null, string | null, never>;
  created_at: DefaultedTimestamp;
}

declare module '../../db/tables.js' {
  interface Tables {
    waitlist_signups: WaitlistSignupsTable;
  }
}
