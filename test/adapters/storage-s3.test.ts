import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { StorageUnavailableError } from '../../src/adapters/storage/index.js';
import { S3Storage } from '../../src/adapters/storage/s3.js';
import { IMAGE_BYTES } from '../helpers/images.js';
import { S3_TEST_CREDENTIALS, startS3Server, type S3TestServer } from '../helpers/s3-server.js';

describe('S3Storage against an S3-compatible server on loopback', () => {
  let server: S3TestServer;
  let store: S3Storage;
  const png = IMAGE_BYTES['image/png'];

  beforeAll(async () => {
    server = await startS3Server();
    store = new S3Storage({
      bucket: server.bucket,
      region: 'us-east-1',
      endpoint: server.endpoint,
      credentials: S3_TEST_CREDENTIALS,
    });
  });
  afterAll(async () => {
    await store.close();
    await server.close();
  });

  const upload = async (key: string, bytes: Buffer, contentType = 'image/png') => {
    const grant = await store.presignUpload({
      key,
      contentType,
      size: bytes.length,
      expiresAt: new Date(Date.now() + 600_000),
    });
    return { grant, response: await fetch(grant.url, { method: grant.method, headers: grant.headers, body: bytes }) };
  };

  it('a presigned PUT, path-style, signed over content type and length, 10 minutes', async () => {
    const { grant, response } = await upload('avatars/u1/a.png', png);
    expect(response.status).toBe(200);
    const url = new URL(grant.url);
    expect(url.origin).toBe(server.endpoint);
    expect(url.pathname).toBe(`/${server.bucket}/avatars/u1/a.png`);
    expect(url.searchParams.get('X-Amz-SignedHeaders')).toBe('content-length;content-type;host');
    expect(url.searchParams.get('X-Amz-Expires')).toMatch(/^(599|600)$/);
    // No checksum of an empty body baked into the URL (it would fail every real upload).
    expect([...url.searchParams.keys()].filter((name) => name.toLowerCase().includes('checksum'))).toEqual([]);
    expect(grant.headers).toEqual({ 'content-type': 'image/png' });
    expect(grant.url).not.toContain(S3_TEST_CREDENTIALS.secretAccessKey);
  });

  it('head, readStart, a presigned GET', async () => {
    expect(await store.head('avatars/u1/a.png')).toEqual({
      key: 'avatars/u1/a.png',
      size: png.length,
      contentType: 'image/png',
      lastModified: expect.any(Date),
    });
    expect(await store.readStart('avatars/u1/a.png', 8)).toEqual(png.subarray(0, 8));
    expect(await store.head('avatars/none.png')).toBeNull();
    expect(await store.readStart('avatars/none.png', 8)).toBeNull();
    const now = new Date();
    const url = await store.presignDownload('avatars/u1/a.png', {
      signedAt: now,
      expiresAt: new Date(now.getTime() + 3_600_000),
    });
    const response = await fetch(url);
    expect(response.status).toBe(200);
    expect(Buffer.from(await response.arrayBuffer())).toEqual(png);
  });

  it('lists by prefix with limit and offset, in key order', async () => {
    for (const key of ['list/b.png', 'list/a.png', 'list/c/d.png', 'list-other/x.png'])
      expect((await upload(key, png)).response.status).toBe(200);
    const keys = async (prefix: string, limit: number, offset: number) =>
      (await store.list({ prefix, limit, offset })).map((o) => o.key);
    expect(await keys('list/', 25, 0)).toEqual(['list/a.png', 'list/b.png', 'list/c/d.png']);
    expect(await keys('list/', 2, 0)).toEqual(['list/a.png', 'list/b.png']);
    expect(await keys('list/', 2, 2)).toEqual(['list/c/d.png']);
    expect(await keys('list/', 2, 3)).toEqual([]);
    // (Across `-` and `/` s3rver's order is its own; S3 orders by UTF-8 bytes. Only counts are asserted there.)
    expect(await keys('list', 25, 0)).toHaveLength(4);
    expect(await keys('list', 3, 1)).toHaveLength(3);
    expect((await store.list({ prefix: 'list/a', limit: 1, offset: 0 }))[0]).toEqual({
      key: 'list/a.png',
      size: png.length,
      contentType: null,
      lastModified: expect.any(Date),
    });
  });

  it('deletes, answering whether there was an object', async () => {
    expect(await store.delete('list/a.png')).toBe(true);
    expect(await store.delete('list/a.png')).toBe(false);
    expect(await store.head('list/a.png')).toBeNull();
  });

  it('an expired presigned URL is refused by the store', async () => {
    // Signed on a clock ten seconds behind, valid for one second: expired by the store's clock.
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() - 10_000);
    const grant = await store
      .presignUpload({
        key: 'late.png',
        contentType: 'image/png',
        size: png.length,
        expiresAt: new Date(Date.now() + 1_000),
      })
      .finally(() => vi.useRealTimers());
    const response = await fetch(grant.url, { method: 'PUT', headers: grant.headers, body: png });
    expect(response.status).toBe(403);
    expect(await store.head('late.png')).toBeNull();
  });

  it('an unreachable store is a StorageUnavailableError that names no secret', async () => {
    const secret = 'do-not-leak-this-secret';
    const dead = new S3Storage({
      bucket: 'b-x',
      region: 'us-east-1',
      endpoint: 'http://127.0.0.1:1',
      credentials: { accessKeyId: 'AKIADEAD', secretAccessKey: secret },
    });
    try {
      const error = await dead.head('x.png').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StorageUnavailableError);
      expect(String((error as Error).message)).toMatch(/^s3 head failed: /);
      expect(JSON.stringify(error) + String((error as Error).message) + String((error as Error).stack)).not.toContain(
        secret,
      );
    } finally {
      await dead.close();
    }
  });
});
