import type { Kysely } from 'kysely';
import type { Tables } from '../../db/tables.js';
import type { AvatarContentType } from './tables.js';
import './tables.js';

type Db = Kysely<Tables>;

export interface NewUpload {
  key: string;
  userId: string;
  contentType: AvatarContentType;
  maxSize: number;
  expiresAt: Date;
}

export async function insertAvatarUpload(db: Db, upload: NewUpload): Promise<void> {
  await db.insertInto('storage_uploads').values({
    key: upload.key, user_id: upload.userId, purpose: 'avatar', content_type: upload.contentType, max_size: upload.maxSize, expires_at: upload.expiresAt,
  }).execute();
}

/** The caller's own avatar upload intent: another user's key reads as none. */
export async function findAvatarUpload(db: Db, userId: string, key: string) {
  return db.selectFrom('storage_uploads')
    .select(['key', 'content_type', 'max_size', 'expires_at', 'confirmed_at'])
    .where('key', '=', key).where('user_id', '=', userId).where('purpose', '=', 'avatar')
    .executeTakeFirst();
}

/** The user's avatar key, with the row locked until the transaction ends (two confirmations run one after the other). */
export async function lockAvatarKey(trx: Db, userId: string): Promise<string | null> {
  const row = await trx.selectFrom('users').select('avatar_key').where('id', '=', userId).forUpdate().executeTakeFirstOrThrow();
  return row.avatar_key;
}

export async function currentAvatarKey(db: Db, userId: string): Promise<string | null> {
  const row = await db.selectFrom('users').select('avatar_key').where('id', '=', userId).executeTakeFirst();
  return row?.avatar_key ?? null;
}

export async function setAvatar(trx: Db, userId: string, key: string, now: Date): Promise<void> {
  await trx.updateTable('users').set({ avatar_key: key }).where('id', '=', userId).execute();
  await trx.updateTable('storage_uploads').set({ confirmed_at: now }).where('key', '=', key).where('confirmed_at', 'is', null).execute();
}

/** Users whose avatar is this object lose it (the object is going away); their ids. */
export async function clearAvatarsUsing(trx: Db, key: string): Promise<string[]> {
  const rows = await trx.updateTable('users').set({ avatar_key: null }).where('avatar_key', '=', key).returning('id').execute();
  return rows.map((row) => row.id);
}
