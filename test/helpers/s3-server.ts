import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A real S3-compatible server on loopback (the `s3rver` package) with one bucket, addressed
 * path-style. It speaks S3's REST API (PUT, HEAD, GET with Range, ListObjectsV2, DELETE) and
 * checks a presigned URL's expiry, but not SigV4 signatures themselves: that the signature
 * covers content type and length is asserted on the URL.
 */
interface S3rverInstance {
  run(): Promise<AddressInfo>;
  close(): Promise<void>;
}
type S3rverClass = new (options: Record<string, unknown>) => S3rverInstance;
const S3rver = createRequire(import.meta.url)('s3rver') as S3rverClass;

/**
 * s3rver's one built-in account id; it does not check SigV4 signatures, so a secret of our own
 * (distinct from the id) lets tests look for it in answers and logs.
 */
export const S3_TEST_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'test-s3-secret-5f1c0a7e' };

export interface S3TestServer {
  endpoint: string;
  bucket: string;
  close(): Promise<void>;
}

export async function startS3Server(bucket = 'platform-test'): Promise<S3TestServer> {
  const directory = mkdtempSync(join(tmpdir(), 'pa-s3rver-'));
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory,
    vhostBuckets: false,
    configureBuckets: [{ name: bucket, configs: [] }],
  });
  const { port } = await server.run();
  return {
    endpoint: `http://127.0.0.1:${port}`,
    bucket,
    async close() {
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
