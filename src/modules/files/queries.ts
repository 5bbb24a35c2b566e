import { sql, type Kysely } from 'kysely';
import type { Tables } from '../../db/tables.js';
import type { AttachmentContentType, UploadPurpose } from './tables.js';
import './tables.js';

type Db = Kysely<Tables>;

export interface NewUpload {
  key: string;
  userId: string;
  purpose: UploadPurpose;
  contentType: AttachmentContentType;
  maxSize: number;
  expiresAt: Date;
}

export async function insertUpload(db: Db, upload: NewUpload): Promise<void> {
  await db
    .insertInto('storage_uploads')
    .values({
      key: upload.key,
      user_id: upload.userId,
      purpose: upload.purpose,
      content_type: upload.contentType,
      max_size: upload.maxSize,
      expires_at: upload.expiresAt,
    })
    .execute();
}

/** The caller's own upload intents of one purpose among `keys`: another user's key reads as none. */
export async function findUploads(db: Db, userId: string, purpose: UploadPurpose, keys: readonly string[]) {
  if (keys.length === 0) return []; // `IN ()` is no SQL
  return db
    .selectFrom('storage_uploads')
    .select(['key', 'content_type', 'max_size', 'expires_at', 'confirmed_at'])
    .where('key', 'in', keys)
    .where('user_id', '=', userId)
    .where('purpose', '=', purpose)
    .execute();
}

/**
 * Marks unused intents as used with their checked size; answers the keys it marked (a key used meanwhile is missing).
 */
export async function markUploadsUsed(
  trx: Db,
  userId: string,
  uploads: ReadonlyArray<{ key: string; size: number }>,
  now: Date,
): Promise<string[]> {
  const marked: string[] = [];
  for (const upload of uploads) {
    const row = await trx
      .updateTable('storage_uploads')
      .set({ confirmed_at: now, size: upload.size })
      .where('key', '=', upload.key)
      .where('user_id', '=', userId)
      .where('confirmed_at', 'is', null)
      .returning('key')
      .executeTakeFirst();
    if (row !== undefined) marked.push(row.key);
  }
  return marked;
}

/** Type and size of stored uploads, by key, whoever made them (for showing them where they are attached). */
export async function uploadDetails(db: Db, keys: readonly string[]) {
  if (keys.length === 0) return new Map<string, { content_type: AttachmentContentType; size: number | null }>();
  const rows = await db
    .selectFrom('storage_uploads')
    .select(['key', 'content_type', 'size'])
    .where('key', 'in', keys)
    .execute();
  return new Map(rows.map((row) => [row.key, { content_type: row.content_type, size: row.size }]));
}

/** The caller's own avatar upload intent: another user's key reads as none. */
export async function findAvatarUpload(db: Db, userId: string, key: string) {
  return db
    .selectFrom('storage_uploads')
    .select(['key', 'content_type', 'max_size', 'expires_at', 'confirmed_at'])
    .where('key', '=', key)
    .where('user_id', '=', userId)
    .where('purpose', '=', 'avatar')
    .executeTakeFirst();
}

/** Marks the avatar's upload confirmed; the user's row points at it through users' setAvatarKey. */
export async function confirmAvatarUpload(trx: Db, key: string, size: number, now: Date): Promise<void> {
  await trx
    .updateTable('storage_uploads')
    .set({ confirmed_at: now, size })
    .where('key', '=', key)
    .where('confirmed_at', 'is', null)
    .execute();
}

// The cleanup jobs (cleanup.ts).

export interface RetiredUploadCutoffs {
  /** Never confirmed and expired before this. */
  unconfirmedExpiredBefore: Date;
  /** An avatar confirmed before this that no user has any more. */
  replacedAvatarConfirmedBefore: Date;
}

/** Up to `limit` retired upload intents, oldest first, locked; those locked elsewhere are skipped. */
export function lockRetiredUploads(trx: Db, cutoffs: RetiredUploadCutoffs, limit: number) {
  return trx
    .selectFrom('storage_uploads as su')
    .select('su.key')
    .where((eb) =>
      eb.or([
        eb.and([eb('su.confirmed_at', 'is', null), eb('su.expires_at', '<', cutoffs.unconfirmedExpiredBefore)]),
        eb.and([
          eb('su.purpose', '=', 'avatar'),
          eb('su.confirmed_at', '<', cutoffs.replacedAvatarConfirmedBefore),
          eb.not(
            eb.exists(
              eb
                .selectFrom('user_directory as u')
                .select(sql.lit(1).as('one'))
                .where('u.avatar_key', '=', eb.ref('su.key')),
            ),
          ),
        ]),
      ]),
    )
    .orderBy('su.created_at')
    .limit(limit)
    .forUpdate()
    .skipLocked()
    .execute();
}

export async function deleteUpload(trx: Db, key: string): Promise<void> {
  await trx.deleteFrom('storage_uploads').where('key', '=', key).execute();
}

/** The keys among `keys` an upload intent names. */
export function uploadKeysAmong(trx: Db, keys: string[]) {
  return trx.selectFrom('storage_uploads').select('key').where('key', 'in', keys).execute();
}

/** The keys among `keys` a user's avatar names. */
export function avatarKeysAmong(trx: Db, keys: string[]) {
  return trx.selectFrom('user_directory').select('avatar_key as key').where('avatar_key', 'in', keys).execute();
}
