import type { Kysely } from 'kysely';
import { isStorageKey, type StorageAdapter } from '../../adapters/storage/index.js';
import type { Tables } from '../../db/tables.js';
import { invalidRequest } from '../../kernel/errors.js';
import { avatarUrlValidity } from './avatars.js';
import { detectAttachmentType, FILE_SIGNATURE_BYTES } from './file-signature.js';
import { findUploads, markUploadsUsed, uploadDetails } from './queries.js';
import { fromStore } from './storage-calls.js';
import type { AttachmentContentType } from './tables.js';
import { issueUploadIntent } from './upload-intents.js';

/** The largest support attachment: 10 MiB (a screenshot or a log file). */
export const MAX_ATTACHMENT_BYTES = 10 * 1024 * 1024;

export interface CheckedAttachment {
  key: string;
  size: number;
}

export interface AttachmentView {
  key: string;
  content_type: AttachmentContentType;
  size: number | null;
  /** A signed download URL, valid at least an hour. */
  url: string;
}

/**
 * Names the key by its place in the list, never by echoing it: the answer for another user's key is the answer for
 * none.
 */
const refuse = (reason: string, index: number, extra: Record<string, unknown> = {}) =>
  invalidRequest({ reason, index, ...extra });

/**
 * Files a player attaches to support messages: uploaded to a signed URL first, then named by key
 * in the message. A key is the caller's own unused upload, checked (present, within its size,
 * of its declared type by its first bytes) before anything is written, and used once.
 */
export class SupportAttachments {
  constructor(
    private readonly db: Kysely<Tables>,
    private readonly storage: StorageAdapter,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  issueUpload(userId: string, input: { content_type: AttachmentContentType; size: number }) {
    return issueUploadIntent(this.db, this.storage, {
      userId,
      purpose: 'support_attachment',
      prefix: 'support',
      contentType: input.content_type,
      size: input.size,
      now: this.clock(),
    });
  }

  /**
   * Checks every key, in the order given, and refuses the first that fails (422 `invalid_request`,
   * `details.reason` and `details.index`). Another user's key is refused exactly as an unknown one.
   */
  async check(userId: string, keys: readonly string[]): Promise<CheckedAttachment[]> {
    if (keys.length === 0) return [];
    const now = this.clock();
    const uploads = new Map(
      (await findUploads(this.db, userId, 'support_attachment', keys.filter(isStorageKey))).map((row) => [
        row.key,
        row,
      ]),
    );
    const checked: CheckedAttachment[] = [];
    for (const [index, key] of keys.entries()) {
      const upload = uploads.get(key);
      if (upload === undefined) throw refuse('unknown_attachment', index);
      if (upload.confirmed_at !== null) throw refuse('already_used', index);
      if (upload.expires_at.getTime() <= now.getTime()) throw refuse('upload_expired', index);
      const object = await fromStore(this.storage.head(key));
      if (object === null) throw refuse('object_missing', index);
      if (object.size > upload.max_size)
        throw refuse('too_large', index, { size: object.size, max_size: upload.max_size });
      const start = await fromStore(this.storage.readStart(key, FILE_SIGNATURE_BYTES));
      const detected = start === null ? null : detectAttachmentType(start);
      if (detected !== upload.content_type)
        throw refuse('type_mismatch', index, { expected: upload.content_type, detected });
      checked.push({ key, size: object.size });
    }
    return checked;
  }

  /** In the message's transaction: the checked uploads become used; one used meanwhile (a race) refuses the message. */
  async claim(trx: Kysely<Tables>, userId: string, checked: readonly CheckedAttachment[]): Promise<void> {
    const marked = new Set(await markUploadsUsed(trx, userId, checked, this.clock()));
    const lost = checked.findIndex((attachment) => !marked.has(attachment.key));
    if (lost !== -1) throw refuse('already_used', lost);
  }

  /** The attachments of messages, with download URLs, by key. */
  async views(keys: readonly string[]): Promise<Map<string, AttachmentView>> {
    const details = await uploadDetails(this.db, keys);
    const validity = avatarUrlValidity(this.clock());
    const views = new Map<string, AttachmentView>();
    for (const [key, detail] of details) {
      views.set(key, {
        key,
        content_type: detail.content_type,
        size: detail.size,
        url: await fromStore(this.storage.presignDownload(key, validity)),
      });
    }
    return views;
  }
}
