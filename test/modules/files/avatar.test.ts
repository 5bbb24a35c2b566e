import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createUser, eventually, type TestUser } from '../../helpers/app.js';
import { IMAGE_BYTES, TEXT_BYTES } from '../../helpers/images.js';
import {
  confirm,
  pathOf,
  putBytes,
  requestUpload,
  setAvatar,
  startStorageApp,
  withParam,
} from '../../helpers/uploads.js';

type App = Awaited<ReturnType<typeof startStorageApp>>;

describe('avatars through the local store', () => {
  let t: App;
  beforeAll(async () => {
    t = await startStorageApp();
  });
  afterAll(async () => {
    await t.close();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const avatarOf = async (user: TestUser) =>
    (await t.db.selectFrom('users').select('avatar_key').where('id', '=', user.id).executeTakeFirstOrThrow())
      .avatar_key;
  const fileOf = (key: string) => join(t.storageDir, ...key.split('/'));

  it.each(Object.entries(IMAGE_BYTES))(
    '%s: upload URL, PUT, confirm, then the download URL serves the bytes',
    async (contentType, bytes) => {
      const user = await createUser(t.db);
      const before = Date.now();
      const grant = await requestUpload(t, user, contentType, bytes.length);
      const extension = { 'image/png': 'png', 'image/jpeg': 'jpg', 'image/webp': 'webp' }[contentType];
      expect(grant).toMatchObject({ method: 'PUT', headers: { 'content-type': contentType }, max_size: bytes.length });
      expect(grant.key).toMatch(new RegExp(`^avatars/${user.id}/[0-9a-f]{32}\\.${extension}$`));
      expect(new Date(grant.expires_at).getTime()).toBeLessThanOrEqual(Date.now() + 10 * 60_000);
      expect(new Date(grant.expires_at).getTime()).toBeGreaterThanOrEqual(before + 10 * 60_000 - 1_000);
      expect(pathOf(grant.upload_url)).toMatch(/^\/v1\/public\/storage\/upload\?/);

      const put = await putBytes(t, grant.upload_url, bytes, grant.headers);
      expect(put.statusCode).toBe(204);
      expect(readFileSync(fileOf(grant.key))).toEqual(bytes);

      const confirmed = await confirm(t, user, grant.key);
      expect(confirmed.statusCode).toBe(200);
      expect(await avatarOf(user)).toBe(grant.key);
      const row = await t.db
        .selectFrom('storage_uploads')
        .select(['user_id', 'confirmed_at'])
        .where('key', '=', grant.key)
        .executeTakeFirstOrThrow();
      expect(row).toEqual({ user_id: user.id, confirmed_at: expect.any(Date) });

      const download = await t.request({ method: 'GET', url: pathOf(confirmed.json().avatar_url) });
      expect(download.statusCode).toBe(200);
      expect(download.rawPayload).toEqual(bytes);
      expect(download.headers).toMatchObject({ 'content-type': contentType, 'x-content-type-options': 'nosniff' });
      expect(download.headers['cache-control']).toMatch(/^private, max-age=\d+$/);
      // The profile shows the same URL.
      expect((await t.request({ method: 'GET', url: '/v1/me', token: user.token })).json().avatar_url).toBe(
        confirmed.json().avatar_url,
      );
    },
  );

  it('the largest avatar (2 MiB, past the JSON body limit) streams through', async () => {
    const user = await createUser(t.db);
    const bytes = Buffer.concat([
      IMAGE_BYTES['image/png'],
      Buffer.alloc(2 * 1024 * 1024 - IMAGE_BYTES['image/png'].length, 9),
    ]);
    const { key } = await setAvatar(t, user, 'image/png', bytes);
    expect(readFileSync(fileOf(key)).length).toBe(2 * 1024 * 1024);
  });

  it('a new avatar replaces the old one, whose object is deleted; confirming again answers the same URL', async () => {
    const user = await createUser(t.db);
    const first = await setAvatar(t, user, 'image/png', IMAGE_BYTES['image/png']);
    const second = await setAvatar(t, user, 'image/jpeg', IMAGE_BYTES['image/jpeg']);
    expect(await avatarOf(user)).toBe(second.key);
    await eventually(() => expect(existsSync(fileOf(first.key))).toBe(false));
    const again = await confirm(t, user, second.key);
    expect(again.statusCode).toBe(200);
    expect(again.json().avatar_url).toBe(second.avatarUrl);
    // The replaced key is spent.
    expect((await confirm(t, user, first.key)).json()).toEqual({
      error: 'invalid_request',
      details: { reason: 'already_used', key: first.key },
    });
  });

  it('the upload-url body is checked: type, size bounds, unknown fields; signed in only', async () => {
    const user = await createUser(t.db);
    for (const payload of [
      { content_type: 'image/gif', size: 10 },
      { content_type: 'image/png', size: 0 },
      { content_type: 'image/png', size: 2 * 1024 * 1024 + 1 },
      { content_type: 'image/png', size: 10, key: 'avatars/mine.png' },
    ]) {
      const response = await t.request({ method: 'POST', url: '/v1/me/avatar/upload-url', token: user.token, payload });
      expect(response.statusCode, JSON.stringify(payload)).toBe(400);
    }
    expect(
      (
        await t.request({
          method: 'POST',
          url: '/v1/me/avatar/upload-url',
          payload: { content_type: 'image/png', size: 10 },
        })
      ).statusCode,
    ).toBe(401);
    expect(
      (
        await t.request({
          method: 'POST',
          url: '/v1/me/avatar/upload-url',
          token: user.token,
          payload: { content_type: 'image/png', size: 2 * 1024 * 1024 },
        })
      ).statusCode,
    ).toBe(200);
    const rows = await t.db.selectFrom('storage_uploads').select('key').where('user_id', '=', user.id).execute();
    expect(rows).toHaveLength(1);
  });

  describe('the signed upload URL grants exactly one key, type and size', () => {
    const png = IMAGE_BYTES['image/png'];
    const cases: Array<{
      name: string;
      tamper: (url: string) => string;
      headers?: Record<string, string>;
      body?: () => Buffer | Readable;
      status: number;
      error: string;
    }> = [
      {
        name: 'a forged signature',
        tamper: (url) => withParam(url, 'sig', 'A'.repeat(43)),
        status: 404,
        error: 'invalid_signature',
      },
      {
        name: 'a larger size than signed',
        tamper: (url) => withParam(url, 'size', String(png.length * 2)),
        body: () => Buffer.concat([png, png]),
        status: 404,
        error: 'invalid_signature',
      },
      {
        name: 'another key',
        tamper: (url) => withParam(url, 'key', 'avatars/someone-else/x.png'),
        status: 404,
        error: 'invalid_signature',
      },
      {
        name: 'a path traversal key',
        tamper: (url) => withParam(url, 'key', '../../outside.png'),
        status: 404,
        error: 'invalid_signature',
      },
      {
        name: 'another type than signed',
        tamper: (url) => withParam(url, 'type', 'text/html'),
        headers: { 'content-type': 'text/html' },
        status: 404,
        error: 'invalid_signature',
      },
      {
        name: 'a later expiry',
        tamper: (url) => withParam(url, 'expires', String(Math.floor(Date.now() / 1000) + 86_400)),
        status: 404,
        error: 'invalid_signature',
      },
      {
        name: 'another content type header',
        tamper: (url) => url,
        headers: { 'content-type': 'image/jpeg' },
        status: 415,
        error: 'unsupported_media_type',
      },
      { name: 'no content type', tamper: (url) => url, headers: {}, status: 415, error: 'unsupported_media_type' },
      {
        name: 'a body over the size (declared)',
        tamper: (url) => url,
        body: () => Buffer.concat([png, Buffer.from([0])]),
        status: 413,
        error: 'payload_too_large',
      },
      {
        name: 'a body over the size (streamed, no length)',
        tamper: (url) => url,
        body: () => Readable.from([png, Buffer.from([0])]),
        status: 413,
        error: 'payload_too_large',
      },
    ];

    it.each(cases)('$name: $status $error, nothing stored', async ({ tamper, headers, body, status, error }) => {
      const user = await createUser(t.db);
      const grant = await requestUpload(t, user, 'image/png', png.length);
      const response = await putBytes(t, tamper(grant.upload_url), body?.() ?? png, headers ?? grant.headers);
      expect(response.statusCode).toBe(status);
      expect(response.json().error).toBe(error);
      expect(existsSync(fileOf(grant.key))).toBe(false);
      expect(existsSync(join(t.storageDir, '..', 'outside.png'))).toBe(false);
      // No half-written upload is left behind either.
      if (existsSync(join(t.storageDir, '.tmp'))) expect(readdirSync(join(t.storageDir, '.tmp'))).toEqual([]);
    });

    it('an expired URL: 410 url_expired', async () => {
      const user = await createUser(t.db);
      const grant = await requestUpload(t, user, 'image/png', png.length);
      vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 10 * 60_000 + 1_000 });
      const response = await putBytes(t, grant.upload_url, png, grant.headers);
      expect(response.statusCode).toBe(410);
      expect(response.json()).toEqual({ error: 'url_expired' });
      expect(existsSync(fileOf(grant.key))).toBe(false);
    });
  });

  describe('confirmation refusals change nothing', () => {
    let owner: TestUser;
    let current: string;
    beforeAll(async () => {
      owner = await createUser(t.db);
      current = (await setAvatar(t, owner, 'image/webp', IMAGE_BYTES['image/webp'])).key;
    });

    /** Issues a grant to `owner`, lets the case upload (or not), confirms and expects the refusal. */
    const cases: Array<{
      name: string;
      declared: string;
      upload?: Buffer;
      prepare?: (key: string) => void;
      who?: 'other';
      status: number;
      body: (key: string) => unknown;
    }> = [
      {
        name: "another user's key",
        declared: 'image/png',
        upload: IMAGE_BYTES['image/png'],
        who: 'other',
        status: 404,
        body: () => ({ error: 'not_found' }),
      },
      {
        name: 'nothing uploaded',
        declared: 'image/png',
        status: 422,
        body: (key) => ({ error: 'invalid_request', details: { reason: 'object_missing', key } }),
      },
      {
        name: 'text bytes declared PNG',
        declared: 'image/png',
        upload: TEXT_BYTES,
        status: 422,
        body: () => ({ error: 'invalid_request', details: { reason: 'not_an_image', expected: 'image/png' } }),
      },
      {
        name: 'JPEG bytes declared PNG',
        declared: 'image/png',
        upload: IMAGE_BYTES['image/jpeg'],
        status: 422,
        body: () => ({
          error: 'invalid_request',
          details: { reason: 'type_mismatch', expected: 'image/png', detected: 'image/jpeg' },
        }),
      },
      {
        name: "an object grown behind the URL's back",
        declared: 'image/png',
        upload: IMAGE_BYTES['image/png'],
        prepare: (key) => writeFileSync(fileOf(key), Buffer.concat([IMAGE_BYTES['image/png'], Buffer.alloc(10)])),
        status: 422,
        body: () => ({
          error: 'invalid_request',
          details: {
            reason: 'too_large',
            size: IMAGE_BYTES['image/png'].length + 10,
            max_size: IMAGE_BYTES['image/png'].length,
          },
        }),
      },
    ];

    it.each(cases)('$name: $status', async ({ declared, upload, prepare, who, status, body }) => {
      const size = upload?.length ?? 64;
      const grant = await requestUpload(t, owner, declared, size);
      if (upload) expect((await putBytes(t, grant.upload_url, upload, grant.headers)).statusCode).toBe(204);
      prepare?.(grant.key);
      const caller = who === 'other' ? await createUser(t.db) : owner;
      const response = await confirm(t, caller, grant.key);
      expect(response.statusCode).toBe(status);
      expect(response.json()).toEqual(body(grant.key));
      expect(await avatarOf(owner)).toBe(current);
      if (who === 'other') expect(await avatarOf(caller)).toBeNull();
      const row = await t.db
        .selectFrom('storage_uploads')
        .select('confirmed_at')
        .where('key', '=', grant.key)
        .executeTakeFirstOrThrow();
      expect(row.confirmed_at).toBeNull();
      expect(existsSync(fileOf(current))).toBe(true);
    });

    it("an unknown key and a path traversal key: 404 not_found, like another user's", async () => {
      for (const key of [
        `avatars/${owner.id}/${'0'.repeat(32)}.png`,
        '../../etc/passwd',
        'avatars/../../x.png',
        '/etc/passwd',
      ]) {
        const response = await confirm(t, owner, key);
        expect(response.statusCode, key).toBe(404);
        expect(response.json()).toEqual({ error: 'not_found' });
      }
      expect(await avatarOf(owner)).toBe(current);
    });

    it('an expired upload intent: 422 upload_expired', async () => {
      const grant = await requestUpload(t, owner, 'image/png', IMAGE_BYTES['image/png'].length);
      expect((await putBytes(t, grant.upload_url, IMAGE_BYTES['image/png'], grant.headers)).statusCode).toBe(204);
      vi.useFakeTimers({ toFake: ['Date'], now: new Date(grant.expires_at).getTime() + 1 });
      const response = await confirm(t, owner, grant.key);
      expect(response.statusCode).toBe(422);
      expect(response.json()).toEqual({
        error: 'invalid_request',
        details: { reason: 'upload_expired', expired_at: grant.expires_at },
      });
      expect(await avatarOf(owner)).toBe(current);
    });
  });

  describe('download URLs', () => {
    it('refuse a forged signature, another key, an expired URL; a deleted object is 404', async () => {
      const user = await createUser(t.db);
      const { key, avatarUrl } = await setAvatar(t, user, 'image/png', IMAGE_BYTES['image/png']);
      const other = await createUser(t.db);
      const otherAvatar = await setAvatar(t, other, 'image/png', IMAGE_BYTES['image/png']);
      expect(
        (await t.request({ method: 'GET', url: pathOf(withParam(avatarUrl, 'sig', 'A'.repeat(43))) })).json(),
      ).toEqual({ error: 'invalid_signature' });
      expect(
        (await t.request({ method: 'GET', url: pathOf(withParam(avatarUrl, 'key', otherAvatar.key)) })).json(),
      ).toEqual({ error: 'invalid_signature' });
      expect(
        (await t.request({ method: 'GET', url: pathOf(withParam(avatarUrl, 'key', '../../etc/passwd')) })).json(),
      ).toEqual({ error: 'invalid_signature' });
      const expires = Number(new URL(avatarUrl).searchParams.get('expires'));
      // Valid for at least an hour, at most two.
      expect(expires * 1000 - Date.now()).toBeGreaterThan(3_600_000 - 1_000);
      expect(expires * 1000 - Date.now()).toBeLessThanOrEqual(7_200_000);
      vi.useFakeTimers({ toFake: ['Date'], now: expires * 1000 });
      const expired = await t.request({ method: 'GET', url: pathOf(avatarUrl) });
      expect(expired.statusCode).toBe(410);
      expect(expired.json()).toEqual({ error: 'url_expired' });
      vi.useRealTimers();
      await t.kernel.storage.delete(key);
      const gone = await t.request({ method: 'GET', url: pathOf(avatarUrl) });
      expect(gone.statusCode).toBe(404);
      expect(gone.json()).toEqual({ error: 'not_found' });
    });
  });
});
