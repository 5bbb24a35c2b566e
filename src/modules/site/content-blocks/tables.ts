import type { ColumnType, Generated } from 'kysely';
import type { DefaultedTimestamp, Json } from '../../../db/column-types.js';

export type ContentBlockStatus = 'draft' | 'published' | 'archived';

export interface ContentBlocksTable {
  id: Generated<string>;
  surface: 'landing' | 'portal';
  slot: string;
  locale: string;
  draft: Json;
  published: ColumnType<unknown, string | null, string | null>;
  status: ColumnType<ContentBlockStatus, ContentBlockStatus | undefined, ContentBlockStatus>;
  sort_order: number;
  published_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  published_by: string | null;
  updated_by: string | null;
  created_at: DefaultedTimestamp;
  updated_at: DefaultedTimestamp;
}

declare module '../../../db/tables.js' {
  interface Tables {
    content_blocks: ContentBlocksTable;
  }
}
