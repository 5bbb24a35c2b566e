import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The local store's URL signatures: HMAC-SHA256 under a key of its own, derived from the
 * service's email token key with a distinct label (as realtime tickets are), so a storage URL
 * can never pass as a ticket, an unsubscribe token or a JWT. Every field a URL grants is signed:
 * changing the key, type, size or expiry breaks the signature.
 */
const STORAGE_KEY_LABEL = 'platform-api storage urls v1';

export function storageSigningKey(serviceKey: string): Buffer {
  return createHmac('sha256', serviceKey).update(STORAGE_KEY_LABEL).digest();
}

export interface UploadClaims {
  key: string;
  contentType: string;
  size: number;
  /** Unix seconds. */
  expires: number;
}

export interface DownloadClaims {
  key: string;
  /** Unix seconds. */
  expires: number;
}

// Newline-joined: no field may contain a newline (keys and types are checked before signing).
const uploadText = (c: UploadClaims) => ['PUT', c.key, c.contentType, String(c.size), String(c.expires)].join('\n');
const downloadText = (c: DownloadClaims) => ['GET', c.key, String(c.expires)].join('\n');

function sign(key: Buffer, text: string): string {
  return createHmac('sha256', key).update(text).digest('base64url');
}

function matches(key: Buffer, text: string, given: string): boolean {
  const expected = createHmac('sha256', key).update(text).digest();
  const provided = Buffer.from(given, 'base64url');
  return provided.length === expected.length && timingSafeEqual(provided, expected);
}

export const signUpload = (key: Buffer, claims: UploadClaims) => sign(key, uploadText(claims));
export const signDownload = (key: Buffer, claims: DownloadClaims) => sign(key, downloadText(claims));
export const uploadSignatureMatches = (key: Buffer, claims: UploadClaims, sig: string) =>
  matches(key, uploadText(claims), sig);
export const downloadSignatureMatches = (key: Buffer, claims: DownloadClaims, sig: string) =>
  matches(key, downloadText(claims), sig);
