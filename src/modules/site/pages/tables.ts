import type { ColumnType, Generated } from 'kysely';
import type { DefaultedTimestamp, NullableTimestamp } from '../../../db/column-types.js';

export interface SitePagesTable {
  id: Generated<string>;
  slug: string;
  title: string;
  published_version: ColumnType<number | null, number | null | undefined, number | null>;
  published_at: NullableTimestamp;
  published_by: ColumnType<string | null, string | null | undefined, string | null>;
  created_by: string | null;
  created_at: DefaultedTimestamp;
  updated_at: DefaultedTimestamp;
}

/** Immutable once inserted (a trigger refuses updates). */
export interface SitePageVersionsTable {
  page_id: string;
  version: number;
  markdown: string;
  note: string | null;
  created_by: string | null;
  created_at: DefaultedTimestamp;
}

declare module '../../../db/tables.js' {
  interface Tables {
    site_pages: SitePagesTable;
    site_page_versions: SitePageVersionsTable;
  }
}
