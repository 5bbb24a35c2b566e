import { Readable } from 'node:stream';
import { type LocalStorage, ObjectTooLargeError, type UrlVerdict } from '../../adapters/storage/local.js';
import { AppError, notFound } from '../../kernel/errors.js';
import type { LocalDownloadQuery, LocalUploadQuery } from './schemas.js';

/**
 * Public routes answer no 401/403 (those belong to bearer-guarded areas): a URL this service did
 * not sign names nothing (404, like a deleted object); an expired one is gone for good (410,
 * ask for a new one).
 */
function refuseUnlessOk(verdict: UrlVerdict): void {
  if (verdict === 'invalid_signature') throw new AppError(404, 'invalid_signature');
  if (verdict === 'expired') throw new AppError(410, 'url_expired');
}

/** `image/png; charset=x` → `image/png`. */
function mediaType(header: string | undefined): string | undefined {
  return header?.split(';')[0]?.trim().toLowerCase();
}

/**
 * The local store's signed URLs, served by this service: the URL is the whole permission (no
 * bearer token), so the signature, the expiry, the content type and the size are all checked
 * here before a byte is stored.
 */
export class LocalTransfers {
  constructor(private readonly store: LocalStorage) {}

  async upload(
    query: LocalUploadQuery,
    contentType: string | undefined,
    contentLength: number | undefined,
    body: Readable | undefined,
  ): Promise<void> {
    refuseUnlessOk(
      this.store.verifyUpload(
        { key: query.key, contentType: query.type, size: query.size, expires: query.expires },
        query.sig,
      ),
    );
    if (mediaType(contentType) !== query.type)
      throw new AppError(415, 'unsupported_media_type', { expected: query.type });
    // A declared length past the grant is refused before reading; a body that lies about it is cut off while streaming.
    if (contentLength !== undefined && contentLength > query.size)
      throw new AppError(413, 'payload_too_large', { max: query.size });
    try {
      await this.store.write(query.key, body ?? emptyBody(), query.size);
    } catch (error) {
      if (error instanceof ObjectTooLargeError) throw new AppError(413, 'payload_too_large', { max: query.size });
      throw error;
    }
  }

  async download(query: LocalDownloadQuery) {
    refuseUnlessOk(this.store.verifyDownload({ key: query.key, expires: query.expires }, query.sig));
    const found = await this.store.openRead(query.key);
    if (found === null) throw notFound();
    return { ...found, maxAgeSeconds: Math.max(0, query.expires - Math.floor(Date.now() / 1000)) };
  }
}

/** A PUT without a body (Fastify hands none to the route): an empty object. */
function emptyBody(): Readable {
  return Readable.from([]);
}
