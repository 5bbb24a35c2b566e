import type { DefaultedTimestamp, NullableTimestamp, Timestamp } from '../../db/column-types.js';

/** Table types of storage upload intents (migration 0023), merged into Kysely's `Tables`. */

export const AVATAR_CONTENT_TYPES = ['image/png', 'image/jpeg', 'image/webp'] as const;
export type AvatarContentType = (typeof AVATAR_CONTENT_TYPES)[number];

export interface StorageUploadsTable {
  key: string;
  user_id: string;
  purpose: 'avatar';
  content_type: AvatarContentType;
  max_size: number;
  created_at: DefaultedTimestamp;
  expires_at: Timestamp;
  confirmed_at: NullableTimestamp;
}

declare module '../../db/tables.js' {
  interface Tables {
    storage_uploads: StorageUploadsTable;
  }
}
