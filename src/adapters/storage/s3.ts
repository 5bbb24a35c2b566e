import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  type _Object,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { edgesTraced, inClientSpan, PEER_SERVICE, traceHeaders } from '../../lib/spans.js';
import {
  MAX_LIST_OFFSET,
  StorageUnavailableError,
  type DownloadValidity,
  type ListRequest,
  type StorageAdapter,
  type StoredObject,
  type UploadGrant,
  type UploadRequest,
} from './index.js';

export interface S3StorageOptions {
  bucket: string;
  region: string;
  /** An S3-compatible store (MinIO, R2, s3rver…): addressed path-style. Absent: AWS itself. */
  endpoint: string | undefined;
  /** Absent: the SDK's default chain (environment, instance role…). */
  credentials: { accessKeyId: string; secretAccessKey: string } | undefined;
}

/** ListObjectsV2's largest page. */
const LIST_PAGE = 1_000;

/**
 * Any S3-compatible store through the AWS SDK v3. Uploads are presigned PUTs whose signature
 * covers `content-type` and `content-length`: S3 refuses (403 SignatureDoesNotMatch) a body of
 * another type or another length, and an expired URL (403 AccessDenied). S3 cannot cap a PUT
 * at "at most n bytes" (only a POST policy can), so the URL demands exactly the declared size;
 * the service checks size and magic bytes again when the upload is confirmed.
 */
export class S3Storage implements StorageAdapter {
  readonly kind = 's3' as const;
  readonly #client: S3Client;
  readonly #bucket: string;
  readonly #endpoint: string;

  constructor(options: S3StorageOptions) {
    this.#bucket = options.bucket;
    this.#endpoint = options.endpoint ?? `aws:${options.region}`;
    this.#client = new S3Client({
      region: options.region,
      ...(options.endpoint !== undefined ? { endpoint: options.endpoint, forcePathStyle: true } : {}),
      ...(options.credentials !== undefined ? { credentials: options.credentials } : {}),
      // Otherwise the SDK adds a CRC32 of the (empty) presigned body to the URL, and every real upload fails it.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      maxAttempts: 2,
    });
    // Added only with tracing on, and last, after signing (unsigned, which S3 allows): a presigned
    // URL (made before this step) must not require the client to send this request's traceparent.
    if (edgesTraced()) {
      this.#client.middlewareStack.add(
        (next) => (args) => {
          const { headers } = args.request as { headers?: Record<string, string> };
          if (headers !== undefined) traceHeaders(headers);
          return next(args);
        },
        { step: 'deserialize', name: 'traceHeaders' },
      );
    }
  }

  /** Where the store is, for the start-up log line: no credentials. */
  get endpoint(): { bucket: string; endpoint: string } {
    return { bucket: this.#bucket, endpoint: this.#endpoint };
  }

  async presignUpload({ key, contentType, size, expiresAt }: UploadRequest): Promise<UploadGrant> {
    const command = new PutObjectCommand({
      Bucket: this.#bucket,
      Key: key,
      ContentType: contentType,
      ContentLength: size,
    });
    const url = await this.#call('presign', () =>
      getSignedUrl(this.#client, command, {
        expiresIn: secondsUntil(expiresAt, new Date()),
        // The presigner leaves content-type unsigned by default: sign both so S3 enforces them.
        signableHeaders: new Set(['content-type', 'content-length']),
      }),
    );
    return { url, method: 'PUT', headers: { 'content-type': contentType } };
  }

  async presignDownload(key: string, { signedAt, expiresAt }: DownloadValidity): Promise<string> {
    const command = new GetObjectCommand({ Bucket: this.#bucket, Key: key });
    return this.#call('presign', () =>
      getSignedUrl(this.#client, command, { signingDate: signedAt, expiresIn: secondsUntil(expiresAt, signedAt) }),
    );
  }

  async head(key: string): Promise<StoredObject | null> {
    const output = await this.#find('head', () =>
      this.#client.send(new HeadObjectCommand({ Bucket: this.#bucket, Key: key })),
    );
    if (output === null) return null;
    return {
      key,
      size: output.ContentLength ?? 0,
      contentType: output.ContentType ?? null,
      lastModified: output.LastModified ?? new Date(0),
    };
  }

  async readStart(key: string, bytes: number): Promise<Buffer | null> {
    const object = await this.head(key);
    if (object === null) return null;
    if (object.size === 0) return Buffer.alloc(0); // a range of an empty object is a 416
    const output = await this.#find('get', () =>
      this.#client.send(new GetObjectCommand({ Bucket: this.#bucket, Key: key, Range: `bytes=0-${bytes - 1}` })),
    );
    if (output?.Body === undefined) return null;
    // Some stores ignore Range: keep only what was asked for.
    return Buffer.from(await output.Body.transformToByteArray()).subarray(0, bytes);
  }

  /** S3 has no offset: walk pages of keys (at most MAX_LIST_OFFSET deep) until the page is filled. */
  async list({ prefix, limit, offset }: ListRequest): Promise<StoredObject[]> {
    let skip = Math.min(offset, MAX_LIST_OFFSET);
    const page: StoredObject[] = [];
    let token: string | undefined;
    do {
      const output = await this.#call('list', () =>
        this.#client.send(
          new ListObjectsV2Command({
            Bucket: this.#bucket,
            Prefix: prefix === '' ? undefined : prefix,
            MaxKeys: LIST_PAGE,
            ContinuationToken: token,
          }),
        ),
      );
      const contents = output.Contents ?? [];
      const skipped = Math.min(skip, contents.length);
      skip -= skipped;
      page.push(...contents.slice(skipped, skipped + limit - page.length).map(toStoredObject));
      token = output.IsTruncated ? output.NextContinuationToken : undefined;
    } while (token !== undefined && page.length < limit);
    return page;
  }

  /** S3 deletes are silent about absence: ask first, so the caller can answer 404. */
  async delete(key: string): Promise<boolean> {
    if ((await this.head(key)) === null) return false;
    await this.#call('delete', () => this.#client.send(new DeleteObjectCommand({ Bucket: this.#bucket, Key: key })));
    return true;
  }

  async close(): Promise<void> {
    this.#client.destroy();
  }

  /**
   * One store call; any failure becomes a StorageUnavailableError naming only the operation and the error's name and
   * status.
   */
  async #call<T>(operation: string, run: () => Promise<T>): Promise<T> {
    try {
      return await this.#inSpan(operation, run);
    } catch (error) {
      throw unavailable(operation, error);
    }
  }

  /** One call in its client span (the SDK's retry included); the SDK's requests carry its trace headers. */
  #inSpan<T>(operation: string, run: () => Promise<T>): Promise<T> {
    return inClientSpan(`s3 ${operation}`, { [PEER_SERVICE]: 's3', 'aws.s3.bucket': this.#bucket }, run);
  }

  /** A call about one object: null when there is none. */
  async #find<T>(operation: string, run: () => Promise<T>): Promise<T | null> {
    try {
      return await this.#inSpan(operation, run);
    } catch (error) {
      const { status, name } = describe(error);
      if (status === 404 || name === 'NotFound' || name === 'NoSuchKey') return null;
      throw unavailable(operation, error);
    }
  }
}

function describe(error: unknown): { status: number | undefined; name: string } {
  return {
    status: (error as { $metadata?: { httpStatusCode?: number } } | null)?.$metadata?.httpStatusCode,
    name: (error as { name?: string } | null)?.name ?? 'Error',
  };
}

function unavailable(operation: string, error: unknown): StorageUnavailableError {
  const { status, name } = describe(error);
  return new StorageUnavailableError(`s3 ${operation} failed: ${name}${status === undefined ? '' : ` (${status})`}`);
}

function toStoredObject(item: _Object): StoredObject {
  return {
    key: item.Key ?? '',
    size: item.Size ?? 0,
    contentType: null,
    lastModified: item.LastModified ?? new Date(0),
  };
}

/** Presigned URLs live at least a second and at most S3's 7 days. */
function secondsUntil(expiresAt: Date, from: Date): number {
  return Math.min(7 * 24 * 3600, Math.max(1, Math.floor((expiresAt.getTime() - from.getTime()) / 1000)));
}
