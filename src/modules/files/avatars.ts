import type { DownloadValidity, StorageAdapter } from '../../adapters/storage/index.js';
import { fromStore } from './storage-calls.js';

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
