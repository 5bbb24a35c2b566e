import type { DefaultedTimestamp, NullableTimestamp, Timestamp } from '../../db/column-types.js';

/** Table types of storage upload intents (migrations 0023, 0026), merged into Kysely's `Tables`. */

export const AVATAR_CONTENT_TYPES = ['image/png', 'image/jpeg', 'image/webp'] as const;
export type AvatarContentType = (typeof AVATAR_CONTENT_TYPES)[number];
/** What a player may attach to a support message: screenshots, PDFs and text logs. */
export const ATTACHMENT_CONTENT_TYPES = [...AVATAR_CONTENT_TYPES, 'application/pdf', 'text/plain'] as const;
export type AttachmentContentType = (typeof ATTACHMENT_CONTENT_TYPES)[number];
export type UploadPurpose = 'avatar' | 'support_attachment';

export interface StorageUploadsTable {
  key: string;
  user_id: string;
  purpose: UploadPurpose;
  content_type: AttachmentContentType;
  max_size: number;
  created_at: DefaultedTimestamp;
  expires_at: Timestamp;
  confirmed_at: NullableTimestamp;
  /** The object's size when it was confirmed. */
  size: number | null;
}

declare module '../../db/tables.js' {
  interface Tables {
    storage_uploads: StorageUploadsTable;
  }
}
