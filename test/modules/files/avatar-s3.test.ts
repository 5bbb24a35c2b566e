import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, eventually, startTestApp, type TestApp } from '../../helpers/app.js';
import { captureLog, type CapturedLog } from '../../helpers/captured-log.js';
import { IMAGE_BYTES, TEXT_BYTES } from '../../helpers/images.js';
import { S3_TEST_CREDENTIALS, startS3Server, type S3TestServer } from '../../helpers/s3-server.js';

describe('avatars through the app configured for S3', () => {
  let server: S3TestServer;
  let t: TestApp;
  let captured: CapturedLog;

  beforeAll(async () => {
    server = await startS3Server('avatars');
    captured = captureLog();
    t = await startTestApp({
      log: captured.log,
      config: {
        storageS3Bucket: server.bucket,
        storageS3Endpoint: server.endpoint,
        storageS3AccessKeyId: S3_TEST_CREDENTIALS.accessKeyId,
        storageS3SecretAccessKey: S3_TEST_CREDENTIALS.secretAccessKey,
      },
    });
  });
  afterAll(async () => {
    await t?.close();
    await server?.close();
  });

  const issue = async (token: string, contentType: string, size: number) => {
    const response = await t.request({
      method: 'POST',
      url: '/v1/me/avatar/upload-url',
      token,
      payload: { content_type: contentType, size },
    });
    expect(response.statusCode).toBe(200);
    return response.json() as { upload_url: string; method: string; headers: Record<string, string>; key: string };
  };

  it('upload URL (presigned PUT to the store), confirm, presigned download; the old avatar is deleted', async () => {
    const user = await createUser(t.db);
    const keys: string[] = [];
    for (const [contentType, bytes] of [
      ['image/png', IMAGE_BYTES['image/png']],
      ['image/webp', IMAGE_BYTES['image/webp']],
    ] as const) {
      const grant = await issue(user.token, contentType, bytes.length);
      expect(grant.upload_url.startsWith(`${server.endpoint}/${server.bucket}/avatars/${user.id}/`)).toBe(true);
      expect(
        (await fetch(grant.upload_url, { method: grant.method, headers: grant.headers, body: bytes })).status,
      ).toBe(200);
      const confirmed = await t.request({
        method: 'POST',
        url: '/v1/me/avatar/confirm',
        token: user.token,
        payload: { key: grant.key },
      });
      expect(confirmed.statusCode).toBe(200);
      const download = await fetch(confirmed.json().avatar_url);
      expect(download.status).toBe(200);
      expect(Buffer.from(await download.arrayBuffer())).toEqual(bytes);
      keys.push(grant.key);
    }
    const row = await t.db.selectFrom('users').select('avatar_key').where('id', '=', user.id).executeTakeFirstOrThrow();
    expect(row.avatar_key).toBe(keys[1]);
    await eventually(async () => expect(await t.kernel.storage.head(keys[0]!)).toBeNull());

    const listed = await t.request({
      method: 'GET',
      url: `/v1/admin/storage/objects?prefix=avatars/${user.id}/`,
      token: (await createUser(t.db, ['storage.read'])).token,
    });
    expect(listed.json().data).toEqual([
      { key: keys[1], size: IMAGE_BYTES['image/webp'].length, last_modified: expect.any(String) },
    ]);
  });

  it('bytes that are not an image are refused at confirmation', async () => {
    const user = await createUser(t.db);
    const grant = await issue(user.token, 'image/png', TEXT_BYTES.length);
    expect((await fetch(grant.upload_url, { method: 'PUT', headers: grant.headers, body: TEXT_BYTES })).status).toBe(
      200,
    );
    const confirmed = await t.request({
      method: 'POST',
      url: '/v1/me/avatar/confirm',
      token: user.token,
      payload: { key: grant.key },
    });
    expect(confirmed.statusCode).toBe(422);
    expect(confirmed.json()).toEqual({
      error: 'invalid_request',
      details: { reason: 'not_an_image', expected: 'image/png' },
    });
  });

  it("the local store's routes are not served, and no answer carries the secret key", async () => {
    expect(
      (
        await t.request({
          method: 'PUT',
          url: '/v1/public/storage/upload?key=a',
          payload: 'x',
          headers: { 'content-type': 'image/png' },
        })
      ).statusCode,
    ).toBe(404);
    const user = await createUser(t.db);
    const grant = await issue(user.token, 'image/png', 10);
    expect(JSON.stringify(grant)).not.toContain(S3_TEST_CREDENTIALS.secretAccessKey);
    expect(new URL(grant.upload_url).searchParams.get('X-Amz-Credential')).toMatch(/^S3RVER\//);
    expect(captured.text()).toContain('objects are stored in S3');
    expect(captured.text()).not.toContain(S3_TEST_CREDENTIALS.secretAccessKey);
  });
});
