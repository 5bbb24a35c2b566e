import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import { isStorageKey, type DownloadValidity, type StorageAdapter } from '../../adapters/storage/index.js';
import type { Tables } from '../../db/tables.js';
import { invalidRequest, notFound } from '../../kernel/errors.js';
import type { Writes } from '../../kernel/write.js';
import { detectImageType, SIGNATURE_BYTES } from './image-signature.js';
import { currentAvatarKey, lockAvatarKey, setAvatarKey } from '../users/index.js';
import { confirmAvatarUpload, findAvatarUpload } from './queries.js';
import type { AvatarUploadInput } from './schemas.js';
import { fromStore } from './storage-calls.js';
import { issueUploadIntent } from './upload-intents.js';

const HOUR_MS = 3600 * 1000;

/**
 * Download URLs are signed for the clock hour plus the next one: every request within an hour
 * gets the same URL (browsers and CDNs keep the image), and each stays valid at least an hour.
 */
export function avatarUrlValidity(now: Date): DownloadValidity {
  const signedAt = new Date(Math.floor(now.getTime() / HOUR_MS) * HOUR_MS);
  return { signedAt, expiresAt: new Date(signedAt.getTime() + 2 * HOUR_MS) };
}

/** The avatar's download URL as GET /v1/me shows it (`avatar_url`); null without an avatar. */
export async function avatarUrl(storage: StorageAdapter, key: string | null, now = new Date()): Promise<string | null> {
  return key === null ? null : fromStore(storage.presignDownload(key, avatarUrlValidity(now)));
}

/** The player's avatar: a signed upload for one key under the caller, then a confirmation that checks what arrived. */
export class AvatarService {
  constructor(
    private readonly db: Kysely<Tables>,
    private readonly write: Writes,
    private readonly storage: StorageAdapter,
    private readonly log: FastifyBaseLogger,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  async issueUpload(userId: string, input: AvatarUploadInput) {
    const now = this.clock();
    // Under the caller's id, random and unguessable: nobody can aim an upload at another key.
    return issueUploadIntent(this.db, this.storage, {
      userId,
      purpose: 'avatar',
      prefix: 'avatars',
      contentType: input.content_type,
      size: input.size,
      now,
    });
  }

  /**
   * Makes an uploaded object the caller's avatar once it proves to be what was granted. Every
   * check runs before anything is written: a refusal changes nothing. The replaced avatar's
   * object is deleted after the commit, best-effort (a leftover file is harmless).
   */
  async confirm(userId: string, key: string) {
    const now = this.clock();
    const upload = isStorageKey(key) ? await findAvatarUpload(this.db, userId, key) : undefined;
    if (upload === undefined) throw notFound();
    if (upload.confirmed_at !== null) {
      // A retried confirmation answers the same; a key already replaced by a newer avatar is spent.
      if ((await currentAvatarKey(this.db, userId)) === key)
        return { avatar_url: (await avatarUrl(this.storage, key, now))! };
      throw invalidRequest({ reason: 'already_used', key });
    }
    if (upload.expires_at.getTime() <= now.getTime())
      throw invalidRequest({ reason: 'upload_expired', expired_at: upload.expires_at.toISOString() });
    const object = await fromStore(this.storage.head(key));
    if (object === null) throw invalidRequest({ reason: 'object_missing', key });
    if (object.size > upload.max_size)
      throw invalidRequest({ reason: 'too_large', size: object.size, max_size: upload.max_size });
    const start = await fromStore(this.storage.readStart(key, SIGNATURE_BYTES));
    const detected = start === null ? null : detectImageType(start);
    if (detected === null) throw invalidRequest({ reason: 'not_an_image', expected: upload.content_type });
    if (detected !== upload.content_type)
      throw invalidRequest({ reason: 'type_mismatch', expected: upload.content_type, detected });

    const previous = await this.write(async (w) => {
      const before = await lockAvatarKey(w.trx, userId);
      await setAvatarKey(w.trx, userId, key);
      await confirmAvatarUpload(w.trx, key, object.size, now);
      return before;
    });
    if (previous !== null && previous !== key) {
      this.storage
        .delete(previous)
        .catch((error: unknown) => this.log.warn({ err: error, key: previous }, 'replaced avatar object not deleted'));
    }
    return { avatar_url: (await avatarUrl(this.storage, key, now))! };
  }
}
