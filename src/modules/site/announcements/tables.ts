import type { Generated } from 'kysely';
import type { DefaultedTimestamp, NullableTimestamp } from '../../../db/column-types.js';

export type AnnouncementSeverity = 'info' | 'success' | 'warning' | 'critical';
export type AnnouncementSurface = 'landing' | 'portal' | 'all';

export interface AnnouncementsTable {
  id: Generated<string>;
  title: string;
  body: string;
  severity: AnnouncementSeverity;
  surface: AnnouncementSurface;
  action_url: string | null;
  starts_at: NullableTimestamp;
  ends_at: NullableTimestamp;
  is_active: boolean;
  created_by: string | null;
  updated_by: string | null;
  created_at: DefaultedTimestamp;
  updated_at: DefaultedTimestamp;
}

declare module '../../../db/tables.js' {
  interface Tables {
    announcements: AnnouncementsTable;
  }
}
