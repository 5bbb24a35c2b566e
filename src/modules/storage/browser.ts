import { isStorageKey, type StorageAdapter, type StoredObject } from '../../adapters/storage/index.js';
import type { Actor } from '../../kernel/actor.js';
import { notFound } from '../../kernel/errors.js';
import type { Writes } from '../../kernel/write.js';
import { clearAvatarsUsing } from './queries.js';
import type { ListObjectsQuery, StoredObjectView } from './schemas.js';
import { fromStore } from './storage-calls.js';

function view(object: StoredObject): StoredObjectView {
  return {
    key: object.key,
    size: object.size,
    ...(object.contentType !== null ? { content_type: object.contentType } : {}),
    last_modified: object.lastModified,
  };
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
