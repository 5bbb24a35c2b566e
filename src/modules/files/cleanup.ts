import type { Kysely } from 'kysely';
import { StorageUnavailableError, type StorageAdapter } from '../../adapters/storage/index.js';
import type { Tables } from '../../db/tables.js';
import { requireServices, type JobContext, type JobSummary } from '../../kernel/areas/jobs.js';
import { avatarKeysAmong, deleteUpload, lockRetiredUploads, uploadKeysAmong } from './queries.js';

type Db = Kysely<Tables>;

const HOUR_MS = 3_600_000;
/** An upload URL outlives its intent by at most its own clock skew; an hour past expiry nothing can still arrive. */
const UPLOAD_GRACE_MS = HOUR_MS;
/** A replaced avatar's key still answers "already used" to a late confirmation retry for this long. */
const RETIRED_AVATAR_KEEP_MS = 24 * HOUR_MS;
/** Objects newer than this are left alone by the sweep: a store's listing may run ahead of our rows. */
const ORPHAN_MIN_AGE_MS = HOUR_MS;
/** Each run deletes at most this many objects: the run holds its transaction while the store answers. */
export const CLEANUP_BATCH = 200;
const LIST_PAGE = 1_000;
/** Key prefixes the service writes; anything else in the store belongs to someone else. */
export const OWNED_PREFIXES = ['avatars/', 'support/'] as const;

/** Upload intents nothing will use again: never confirmed and expired, or an avatar since replaced. */
function retiredUploads(trx: Db, now: Date) {
  const cutoffs = {
    unconfirmedExpiredBefore: new Date(now.getTime() - UPLOAD_GRACE_MS),
    replacedAvatarConfirmedBefore: new Date(now.getTime() - RETIRED_AVATAR_KEEP_MS),
  };
  return lockRetiredUploads(trx, cutoffs, CLEANUP_BATCH);
}

/**
 * Deletes the objects of retired upload intents (when the client uploaded one), then the intents.
 * A store that does not answer leaves the rest for the next run.
 */
export async function expireStorageUploads(trx: Db, storage: StorageAdapter, now: Date): Promise<JobSummary> {
  const retired = await retiredUploads(trx, now);
  let removed = 0;
  for (const { key } of retired) {
    if (!(await deletedOrGone(storage, key))) break;
    await deleteUpload(trx, key);
    removed++;
  }
  return { retired_uploads: removed, left_for_next_run: retired.length - removed };
}

async function deletedOrGone(storage: StorageAdapter, key: string): Promise<boolean> {
  try {
    await storage.delete(key);
    return true;
  } catch (error) {
    if (error instanceof StorageUnavailableError) return false;
    throw error;
  }
}

/** The keys among `keys` that an upload intent or an avatar still names. */
async function knownKeys(trx: Db, keys: string[]): Promise<Set<string>> {
  const intents = await uploadKeysAmong(trx, keys);
  const avatars = await avatarKeysAmong(trx, keys);
  return new Set([...intents, ...avatars].map((row) => row.key).filter((key): key is string => key !== null));
}

/**
 * Objects under the service's prefixes that nothing names: avatars of hard-deleted accounts
 * (their intents went with them) and replaced avatars whose delete failed. Listed page by page
 * first and deleted after, so deletions never shift the pages still to read.
 */
export async function sweepOrphanObjects(trx: Db, storage: StorageAdapter, now: Date): Promise<JobSummary> {
  const cutoff = now.getTime() - ORPHAN_MIN_AGE_MS;
  const orphans: string[] = [];
  for (const prefix of OWNED_PREFIXES) {
    for (let offset = 0; orphans.length < CLEANUP_BATCH; offset += LIST_PAGE) {
      const page = await storage.list({ prefix, limit: LIST_PAGE, offset });
      const candidates = page.filter((object) => object.lastModified.getTime() < cutoff).map((object) => object.key);
      if (candidates.length > 0) {
        const known = await knownKeys(trx, candidates);
        orphans.push(...candidates.filter((key) => !known.has(key)));
      }
      if (page.length < LIST_PAGE) break;
    }
  }
  let deleted = 0;
  for (const key of orphans.slice(0, CLEANUP_BATCH)) if (await storage.delete(key)) deleted++;
  return { orphans_deleted: deleted };
}

export function expireStorageUploadsJob(trx: Db, context: JobContext): Promise<JobSummary> {
  return expireStorageUploads(trx, requireServices(context, 'expire-storage-uploads').storage, context.now);
}

export function sweepOrphanObjectsJob(trx: Db, context: JobContext): Promise<JobSummary> {
  return sweepOrphanObjects(trx, requireServices(context, 'sweep-orphan-objects').storage, context.now);
}
