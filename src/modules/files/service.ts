import { isStorageKey, type StorageAdapter, type StoredObject } from '../../adapters/storage/index.js';
import type { Actor } from '../../kernel/actor.js';
import { invalidRequest, notFound } from '../../kernel/errors.js';
import type { Writes } from '../../kernel/write.js';
import { clearAvatarsUsing } from '../users/index.js';
import { detectImageType } from './image-signature.js';
import type { ListObjectsQuery, ObjectPreview, StoredObjectView } from './schemas.js';
import { fromStore } from './storage-calls.js';

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

/** Staff browsing of the object store: list by prefix with limit/offset, and delete. */
export class StorageBrowser {
  constructor(
    private readonly write: Writes,
    private readonly storage: StorageAdapter,
  ) {}

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
      await w.audit({
        action: 'storage.object.delete',
        targetType: 'storage_object',
        targetId: key,
        before: { size: object.size, content_type: object.contentType },
        extra: { avatar_cleared_for: avatarOf },
      });
      if (!(await fromStore(this.storage.delete(key)))) throw notFound();
    });
  }
}
