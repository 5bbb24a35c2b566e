import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config.js';
import type { StorageAdapter } from './index.js';
import { LocalStorage } from './local.js';

type StorageConfig = Pick<
  Config,
  | 'storageDir'
  | 'storageS3Bucket'
  | 'storageS3Region'
  | 'storageS3Endpoint'
  | 'storageS3AccessKeyId'
  | 'storageS3SecretAccessKey'
>;

export interface StorageContext {
  /** Where clients reach this service (the local store's URLs point at it). */
  publicBaseUrl: () => string;
  /** The service's email token key, once the kernel has started: the local store derives its signing key from it. */
  serviceKey: () => string;
}

/**
 * S3 when STORAGE_S3_BUCKET is set, else the local store under STORAGE_DIR. The AWS SDK is loaded
 * only then: importing it costs about half a second of every start
 * (docs/decisions/0006-optional-sdks-load-on-demand.md).
 */
export async function createStorageAdapter(
  config: StorageConfig,
  log: FastifyBaseLogger,
  context: StorageContext,
): Promise<StorageAdapter> {
  if (config.storageS3Bucket === undefined) {
    return new LocalStorage({
      root: config.storageDir,
      baseUrl: context.publicBaseUrl,
      serviceKey: context.serviceKey,
    });
  }
  const { S3Storage } = await import('./s3.js');
  const storage = new S3Storage({
    bucket: config.storageS3Bucket,
    region: config.storageS3Region,
    endpoint: config.storageS3Endpoint,
    credentials:
      config.storageS3AccessKeyId !== undefined && config.storageS3SecretAccessKey !== undefined
        ? { accessKeyId: config.storageS3AccessKeyId, secretAccessKey: config.storageS3SecretAccessKey }
        : undefined,
  });
  // Bucket and endpoint only: the credentials never reach a log.
  log.info({ storage: storage.endpoint }, 'objects are stored in S3');
  return storage;
}
