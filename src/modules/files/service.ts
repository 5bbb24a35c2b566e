import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import { isStorageKey, type StorageAdapter, type StoredObject } from '../../adapters/storage/index.js';
import type { Tables } from '../../db/tables.js';
import type { Actor } from '../../kernel/actor.js';
import { invalidRequest, notFound } from '../../kernel/errors.js';
import type { Writes } from '../../kernel/write.js';
import { clearAvatarsUsing, currentAvatarKey, lockAvatarKey, setAvatarKey } from '../users/index.js';
import { storedObjectPicture } from './audit-picture.js';
import { avatarUrl } from './avatars.js';
import { detectImageType, SIGNATURE_BYTES } from './image-signature.js';
import { confirmAvatarUpload, findAvatarUpload } from './queries.js';
import type { AvatarUploadInput, ListObjectsQuery, ObjectPreview, StoredObjectView } from './schemas.js';
import { fromStore } from './storage-calls.js';
import { issueUploadIntent } from './upload-intents.js';

function view(object: StoredObject): StoredObjectView {
  return {
    key: object.key,
    size: object.size,
    ...(object.contentType !== null ? { content_type: object.contentType } : {}),
    last_modified: object.lastModified,
  };
}

/** The largest image a preview carries whole (base64 in the answer). */
export const PREVIEW_IMAGE_MAX_BYTES = 2 * 1024 * 1024;
/** How much of a text object a preview carries. */
export const PREVIEW_TEXT_BYTES = 64 * 1024;
/** C0 controls other than tab, line feed, form feed and carriage return: no text file has them. */
const BINARY_CONTROL = /[\u0000-\u0008\u000b\u000e-\u001f]/;

/** The start as text, or null when it is no UTF-8 text (a character cut at the end is dropped). */
function textOf(start: Buffer): string | null {
  try {
    const text = new TextDecoder('utf-8', { fatal: true }).decode(start, { stream: true });
    return BINARY_CONTROL.test(text) ? null : text;
  } catch {
    return null;
  }
}

/**
 * What the files routes call: the player's avatar (a signed upload for one key under the caller,
 * then a confirmation that checks what arrived), and staff browsing of the object store (list by
 * prefix with limit/offset, preview, delete). The local store's signed URLs are local-transfers.ts.
 */
export class FilesService {
  constructor(
    private readonly db: Kysely<Tables>,
    private readonly write: Writes,
    private readonly storage: StorageAdapter,
    private readonly log: FastifyBaseLogger,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  async issueAvatarUpload(userId: string, input: AvatarUploadInput) {
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
  async confirmAvatar(userId: string, key: string) {
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

  async list(query: ListObjectsQuery) {
    const objects = await fromStore(this.storage.list(query));
    return { data: objects.map(view), meta: { prefix: query.prefix, limit: query.limit, offset: query.offset } };
  }

  /**
   * What a staff member sees of an object before deleting it: a PNG, JPEG or WebP image (by its
   * magic bytes, whatever its key says) whole, up to 2 MiB; or the first 64 KiB of UTF-8 text.
   * The bytes travel in the answer, never as a signed URL. Anything else is 422
   * `invalid_request` (`details.reason` `not_previewable` or `too_large`).
   */
  async preview(key: string): Promise<ObjectPreview> {
    if (!isStorageKey(key)) throw notFound();
    const object = await fromStore(this.storage.head(key));
    if (object === null) throw notFound();
    const start = await fromStore(this.storage.readStart(key, Math.min(object.size, PREVIEW_IMAGE_MAX_BYTES + 1)));
    if (start === null) throw notFound();
    const image = detectImageType(start);
    if (image !== null) {
      if (object.size > PREVIEW_IMAGE_MAX_BYTES)
        throw invalidRequest({ reason: 'too_large', size: object.size, max_size: PREVIEW_IMAGE_MAX_BYTES });
      return {
        key,
        size: object.size,
        kind: 'image',
        content_type: image,
        truncated: false,
        content: start.toString('base64'),
      };
    }
    const text = textOf(start.subarray(0, PREVIEW_TEXT_BYTES));
    if (text === null) throw invalidRequest({ reason: 'not_previewable' });
    return {
      key,
      size: object.size,
      kind: 'text',
      content_type: 'text/plain',
      truncated: object.size > PREVIEW_TEXT_BYTES,
      content: text,
    };
  }

  /**
   * Deletes one object. Whoever had it as avatar loses it in the same transaction as the audit
   * row; the object is deleted last inside it, so a failed delete rolls both back. (Should the
   * commit itself fail after that, an avatar would point at nothing: its URL answers 404.)
   */
  async delete(actor: Actor, key: string): Promise<void> {
    if (!isStorageKey(key)) throw notFound();
    const object = await fromStore(this.storage.head(key));
    if (object === null) throw notFound();
    await this.write(actor, async (w) => {
      const avatarOf = await clearAvatarsUsing(w.trx, key);
      await w.auditRow(storedObjectPicture, {
        action: 'storage.object.delete',
        targetType: 'storage_object',
        targetId: key,
        before: object,
        extra: { avatar_cleared_for: avatarOf },
      });
      if (!(await fromStore(this.storage.delete(key)))) throw notFound();
    });
  }
}
