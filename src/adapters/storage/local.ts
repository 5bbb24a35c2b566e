import { randomUUID } from 'node:crypto';
import { createReadStream, type ReadStream } from 'node:fs';
import { lstat, mkdir, open, readdir, rename, rm, unlink } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';
import type { Readable } from 'node:stream';
import {
  isStorageKey,
  MAX_LIST_OFFSET,
  type DownloadValidity,
  type ListRequest,
  type StorageAdapter,
  type StoredObject,
  type UploadGrant,
  type UploadRequest,
} from './index.js';
import {
  downloadSignatureMatches,
  signDownload,
  signUpload,
  storageSigningKey,
  uploadSignatureMatches,
  type DownloadClaims,
  type UploadClaims,
} from './local-signing.js';

/** The routes of this service that serve the local store's URLs (registered by the storage module). */
export const LOCAL_UPLOAD_PATH = '/v1/public/storage/upload';
export const LOCAL_DOWNLOAD_PATH = '/v1/public/storage/download';

/** Files carry no metadata: the type comes from the extension, which the service picks from the declared type. */
const TYPE_BY_EXTENSION: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  webp: 'image/webp',
  pdf: 'application/pdf',
  txt: 'text/plain',
};
/** Where uploads are written before they are renamed into place; its leading dot keeps it out of every key. */
const TEMP_DIR = '.tmp';

export function contentTypeOfKey(key: string): string | null {
  const extension = /\.([A-Za-z0-9]+)$/.exec(key)?.[1]?.toLowerCase();
  return extension === undefined ? null : (TYPE_BY_EXTENSION[extension] ?? null);
}

/** The body went past the size the URL was signed for. */
export class ObjectTooLargeError extends Error {
  constructor(readonly max: number) {
    super(`the object is larger than ${max} bytes`);
    this.name = 'ObjectTooLargeError';
  }
}

export type UrlVerdict = 'ok' | 'invalid_signature' | 'expired';

export interface LocalStorageOptions {
  /** STORAGE_DIR; made on the first write, so a configured but unused store touches no disk. */
  root: string;
  /** Where clients reach this service (PUBLIC_BASE_URL). */
  baseUrl: () => string;
  /** The service's email token key, known once the kernel has started; the signing key is derived from it. */
  serviceKey: () => string;
}

export class LocalStorage implements StorageAdapter {
  readonly kind = 'local' as const;
  readonly #root: string;
  #signingKey: Buffer | undefined;

  constructor(private readonly options: LocalStorageOptions) {
    this.#root = resolve(options.root);
  }

  get #key(): Buffer {
    this.#signingKey ??= storageSigningKey(this.options.serviceKey());
    return this.#signingKey;
  }

  async presignUpload({ key, contentType, size, expiresAt }: UploadRequest): Promise<UploadGrant> {
    this.#pathOf(key);
    const claims: UploadClaims = { key, contentType, size, expires: Math.floor(expiresAt.getTime() / 1000) };
    const query = new URLSearchParams({
      key,
      type: contentType,
      size: String(size),
      expires: String(claims.expires),
      sig: signUpload(this.#key, claims),
    });
    return {
      url: `${this.options.baseUrl()}${LOCAL_UPLOAD_PATH}?${query}`,
      method: 'PUT',
      headers: { 'content-type': contentType },
    };
  }

  async presignDownload(key: string, { expiresAt }: DownloadValidity): Promise<string> {
    this.#pathOf(key);
    const claims: DownloadClaims = { key, expires: Math.floor(expiresAt.getTime() / 1000) };
    const query = new URLSearchParams({ key, expires: String(claims.expires), sig: signDownload(this.#key, claims) });
    return `${this.options.baseUrl()}${LOCAL_DOWNLOAD_PATH}?${query}`;
  }

  /** The upload route's check: the signature first (so a forged URL learns nothing), then expiry. */
  verifyUpload(claims: UploadClaims, sig: string, now = Date.now()): UrlVerdict {
    if (!isStorageKey(claims.key) || !uploadSignatureMatches(this.#key, claims, sig)) return 'invalid_signature';
    return claims.expires * 1000 <= now ? 'expired' : 'ok';
  }

  verifyDownload(claims: DownloadClaims, sig: string, now = Date.now()): UrlVerdict {
    if (!isStorageKey(claims.key) || !downloadSignatureMatches(this.#key, claims, sig)) return 'invalid_signature';
    return claims.expires * 1000 <= now ? 'expired' : 'ok';
  }

  /**
   * Streams `body` to a temporary file and renames it into place, so readers see the whole old
   * object or the whole new one, never half. Past `maxBytes` it stops reading (without
   * destroying the request, so the client still hears the 413) and leaves nothing behind.
   */
  async write(key: string, body: Readable, maxBytes: number): Promise<number> {
    const target = this.#pathOf(key);
    const tempDir = join(this.#root, TEMP_DIR);
    await mkdir(tempDir, { recursive: true });
    const temp = join(tempDir, randomUUID());
    const file = await open(temp, 'wx', 0o600);
    let size = 0;
    try {
      try {
        for await (const chunk of body.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
          size += chunk.length;
          if (size > maxBytes) throw new ObjectTooLargeError(maxBytes);
          await file.write(chunk);
        }
      } finally {
        await file.close();
      }
      await mkdir(dirname(target), { recursive: true });
      await rename(temp, target);
      return size;
    } catch (error) {
      await rm(temp, { force: true });
      throw error;
    }
  }

  /** The object as a stream for the download route; null when there is none. */
  async openRead(key: string): Promise<{ stream: ReadStream; object: StoredObject } | null> {
    const object = await this.head(key);
    return object === null ? null : { stream: createReadStream(this.#pathOf(key)), object };
  }

  async head(key: string): Promise<StoredObject | null> {
    const stats = await lstat(this.#pathOf(key)).catch(missing);
    // Not a regular file (a directory, or a symlink someone planted): not an object.
    if (stats === null || !stats.isFile()) return null;
    return { key, size: stats.size, contentType: contentTypeOfKey(key), lastModified: stats.mtime };
  }

  async readStart(key: string, bytes: number): Promise<Buffer | null> {
    if ((await this.head(key)) === null) return null;
    const file = await open(this.#pathOf(key), 'r').catch(missing);
    if (file === null) return null;
    try {
      const buffer = Buffer.alloc(bytes);
      const { bytesRead } = await file.read(buffer, 0, bytes, 0);
      return buffer.subarray(0, bytesRead);
    } finally {
      await file.close();
    }
  }

  /** Walks the tree (a development store: every key is read, then sorted as S3 orders them). */
  async list({ prefix, limit, offset }: ListRequest): Promise<StoredObject[]> {
    const keys: string[] = [];
    await this.#walk(this.#root, '', prefix, keys);
    keys.sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
    const page = keys.slice(Math.min(offset, MAX_LIST_OFFSET), Math.min(offset, MAX_LIST_OFFSET) + limit);
    const objects = await Promise.all(page.map((key) => this.head(key)));
    return objects.filter((object): object is StoredObject => object !== null);
  }

  async delete(key: string): Promise<boolean> {
    try {
      const stats = await lstat(this.#pathOf(key));
      if (!stats.isFile()) return false;
      await unlink(this.#pathOf(key));
      return true;
    } catch (error) {
      if (isMissing(error)) return false;
      throw error;
    }
  }

  async close(): Promise<void> {}

  /**
   * Directories whose key so far cannot lead to `prefix` are skipped; entries that are not key segments (`.tmp`,
   * symlinks) never listed.
   */
  async #walk(dir: string, keySoFar: string, prefix: string, into: string[]): Promise<void> {
    const entries = await readdir(dir, { withFileTypes: true }).catch(missing);
    for (const entry of entries ?? []) {
      const key = keySoFar === '' ? entry.name : `${keySoFar}/${entry.name}`;
      if (!isStorageKey(key)) continue;
      if (entry.isDirectory()) {
        const asDir = `${key}/`;
        if (asDir.startsWith(prefix) || prefix.startsWith(asDir))
          await this.#walk(join(dir, entry.name), key, prefix, into);
      } else if (entry.isFile() && key.startsWith(prefix)) {
        into.push(key);
      }
    }
  }

  /**
   * The file of a key, provably inside the root: the key grammar forbids `..`, and the resolved path is checked anyway.
   */
  #pathOf(key: string): string {
    if (!isStorageKey(key)) throw new Error('not a storage key');
    const path = resolve(this.#root, ...key.split('/'));
    if (!path.startsWith(this.#root + sep)) throw new Error('not a storage key');
    return path;
  }
}

function isMissing(error: unknown): boolean {
  const code = (error as { code?: string } | null)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

function missing(error: unknown): null {
  if (isMissing(error)) return null;
  throw error;
}
