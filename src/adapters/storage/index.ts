/**
 * What the service asks of object storage. `local` (the embedded default) keeps files under
 * STORAGE_DIR and hands out URLs of this service signed with HMAC; `s3` (STORAGE_S3_BUCKET set)
 * hands out presigned URLs of any S3-compatible store. The adapter never sees the database:
 * who may upload what is the storage module's business; the adapter only moves bytes and signs.
 */

export type StorageKind = 'local' | 's3';

export interface StoredObject {
  key: string;
  size: number;
  /** What the store knows: S3 lists carry none (a HEAD per row would cost a request each). */
  contentType: string | null;
  lastModified: Date;
}

/** What a client needs to upload one object, and nothing else. */
export interface UploadGrant {
  url: string;
  method: 'PUT';
  /** Headers the client must send exactly (the signature covers them). */
  headers: Record<string, string>;
}

export interface UploadRequest {
  key: string;
  contentType: string;
  /** The declared size: the local store refuses more (413); S3 requires exactly this many bytes. */
  size: number;
  expiresAt: Date;
}

/**
 * When a download URL is signed and until when it works (a fixed window keeps the URL stable, so caches keep working).
 */
export interface DownloadValidity {
  signedAt: Date;
  expiresAt: Date;
}

export interface ListRequest {
  prefix: string;
  limit: number;
  offset: number;
}

export interface StorageAdapter {
  readonly kind: StorageKind;
  presignUpload(request: UploadRequest): Promise<UploadGrant>;
  presignDownload(key: string, validity: DownloadValidity): Promise<string>;
  /** The object's size and type; null when there is none. */
  head(key: string): Promise<StoredObject | null>;
  /** At most the first `bytes` bytes (fewer for a shorter object); null when there is none. */
  readStart(key: string, bytes: number): Promise<Buffer | null>;
  /** Objects under `prefix` in key order (UTF-8 bytes, as S3 lists them), skipping `offset`. */
  list(request: ListRequest): Promise<StoredObject[]>;
  /** Whether there was an object to delete. */
  delete(key: string): Promise<boolean>;
  close(): Promise<void>;
}

/** The store could not be reached or failed; the message names the operation, never credentials. */
export class StorageUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StorageUnavailableError';
  }
}

/** Longest key we make or accept (the local store's paths and the users column stay bounded). */
export const MAX_KEY_LENGTH = 400;
/** Deepest offset a list walks: S3 has no offset, so each page walks the keys before it. */
export const MAX_LIST_OFFSET = 10_000;

/**
 * Keys this service makes and accepts: `/`-separated segments of letters, digits, `.`, `_`,
 * `-`, each starting with a letter or digit. So `..`, `.`, empty segments, a leading `/`,
 * backslashes and the local store's `.tmp` are all impossible by construction.
 */
const KEY = /^[A-Za-z0-9][A-Za-z0-9._-]*(?:\/[A-Za-z0-9][A-Za-z0-9._-]*)*$/;

export function isStorageKey(key: string): boolean {
  return key.length > 0 && key.length <= MAX_KEY_LENGTH && KEY.test(key);
}

/** A list prefix: the same characters (a partial key), checked before any store sees it. */
export const PREFIX_PATTERN = /^[A-Za-z0-9._/-]*$/;
