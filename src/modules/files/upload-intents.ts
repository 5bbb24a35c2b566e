import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { StorageAdapter } from '../../adapters/storage/index.js';
import type { Tables } from '../../db/tables.js';
import { insertUpload } from './queries.js';
import { fromStore } from './storage-calls.js';
import type { AttachmentContentType, UploadPurpose } from './tables.js';

/** Long enough to pick a file and upload it on a slow line; short enough to be useless when leaked. */
export const UPLOAD_TTL_MS = 10 * 60 * 1000;
const EXTENSIONS: Record<AttachmentContentType, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/webp': 'webp',
  'application/pdf': 'pdf',
  'text/plain': 'txt',
};

export interface UploadIntentRequest {
  userId: string;
  purpose: UploadPurpose;
  /** The key's first segment; the user's id follows, then a random name. */
  prefix: 'avatars' | 'support';
  contentType: AttachmentContentType;
  size: number;
  now: Date;
}

/**
 * A signed upload for one new key under the caller (`<prefix>/<user id>/<random>.<ext>`: random
 * and unguessable, so nobody can aim an upload at another key), recorded as an intent that a
 * later confirmation checks the uploaded object against.
 */
export async function issueUploadIntent(db: Kysely<Tables>, storage: StorageAdapter, request: UploadIntentRequest) {
  const { userId, contentType, size } = request;
  const key = `${request.prefix}/${userId}/${randomBytes(16).toString('hex')}.${EXTENSIONS[contentType]}`;
  const expiresAt = new Date(request.now.getTime() + UPLOAD_TTL_MS);
  const grant = await fromStore(storage.presignUpload({ key, contentType, size, expiresAt }));
  await insertUpload(db, { key, userId, purpose: request.purpose, contentType, maxSize: size, expiresAt });
  return {
    upload_url: grant.url,
    method: grant.method,
    headers: grant.headers,
    key,
    max_size: size,
    expires_at: expiresAt,
  };
}
