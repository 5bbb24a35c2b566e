import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { StorageUnavailableError } from '../../../src/adapters/storage/index.js';
import type { LocalStorage } from '../../../src/adapters/storage/local.js';
import { createUser, type TestUser } from '../../helpers/app.js';
import { IMAGE_BYTES } from '../../helpers/images.js';
import { setAvatar, startStorageApp } from '../../helpers/uploads.js';

type App = Awaited<ReturnType<typeof startStorageApp>>;

describe('staff storage browsing', () => {
  let t: App;
  let reader: TestUser;
  let writer: TestUser;
  const keys = [
    'avatars/a/1.png',
    'avatars/a/2.png',
    'avatars/b/3.jpg',
    'avatars/b-c/4.webp',
    'avatars/b/sub/5.png',
    'support/1/log.txt',
  ];

  beforeAll(async () => {
    t = await startStorageApp();
    reader = await createUser(t.db, ['storage.read']);
    writer = await createUser(t.db, ['storage.read', 'storage.write']);
    const store = t.kernel.storage as LocalStorage;
    for (const [index, key] of keys.entries()) await store.write(key, Readable.from([Buffer.alloc(index + 1, 7)]), 100);
  });
  afterAll(async () => {
    await t.close();
  });

  const list = (query: string, token = reader.token) =>
    t.request({ method: 'GET', url: `/v1/admin/storage/objects${query}`, token });

  it('lists every object in key order (UTF-8 bytes, as S3 does), with size, type and time, 25 by default', async () => {
    const response = await list('');
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body.meta).toEqual({ prefix: '', limit: 25, offset: 0 });
    // '-' (0x2d) sorts before '/' (0x2f): avatars/b-c/… comes before avatars/b/….
    expect(body.data.map((o: { key: string }) => o.key)).toEqual([
      'avatars/a/1.png',
      'avatars/a/2.png',
      'avatars/b-c/4.webp',
      'avatars/b/3.jpg',
      'avatars/b/sub/5.png',
      'support/1/log.txt',
    ]);
    expect(body.data[0]).toEqual({
      key: 'avatars/a/1.png',
      size: 1,
      content_type: 'image/png',
      last_modified: expect.any(String),
    });
    // A type the store cannot tell is left out.
    expect(body.data[5]).toEqual({
      key: 'support/1/log.txt',
      size: 6,
      content_type: 'text/plain',
      last_modified: expect.any(String),
    });
  });

  const pages: Array<{ query: string; keys: string[]; meta: object }> = [
    {
      query: '?prefix=avatars/&limit=2',
      keys: ['avatars/a/1.png', 'avatars/a/2.png'],
      meta: { prefix: 'avatars/', limit: 2, offset: 0 },
    },
    {
      query: '?prefix=avatars/&limit=2&offset=2',
      keys: ['avatars/b-c/4.webp', 'avatars/b/3.jpg'],
      meta: { prefix: 'avatars/', limit: 2, offset: 2 },
    },
    {
      query: '?prefix=avatars/&limit=2&offset=4',
      keys: ['avatars/b/sub/5.png'],
      meta: { prefix: 'avatars/', limit: 2, offset: 4 },
    },
    { query: '?prefix=avatars/&limit=2&offset=6', keys: [], meta: { prefix: 'avatars/', limit: 2, offset: 6 } },
    {
      query: '?prefix=avatars/b',
      keys: ['avatars/b-c/4.webp', 'avatars/b/3.jpg', 'avatars/b/sub/5.png'],
      meta: { prefix: 'avatars/b', limit: 25, offset: 0 },
    },
    {
      query: '?prefix=avatars/b/',
      keys: ['avatars/b/3.jpg', 'avatars/b/sub/5.png'],
      meta: { prefix: 'avatars/b/', limit: 25, offset: 0 },
    },
    { query: '?prefix=nothing', keys: [], meta: { prefix: 'nothing', limit: 25, offset: 0 } },
    { query: '?prefix=../', keys: [], meta: { prefix: '../', limit: 25, offset: 0 } },
  ];

  it.each(pages)('pages with prefix, limit and offset: $query', async ({ query, keys: expected, meta }) => {
    const response = await list(query);
    expect(response.statusCode).toBe(200);
    expect(response.json().data.map((o: { key: string }) => o.key)).toEqual(expected);
    expect(response.json().meta).toEqual(meta);
  });

  it.each(['?limit=0', '?limit=101', '?offset=-1', '?offset=10001', '?prefix=a%5Cb', '?prefix=a%00b'])(
    'refuses %s with a SchemaError',
    async (query) => {
      const response = await list(query);
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({ success: false, error: { name: 'SchemaError' } });
    },
  );

  it('guards: no token 401, no permission 403 naming it', async () => {
    const player = await createUser(t.db);
    expect((await t.request({ method: 'GET', url: '/v1/admin/storage/objects' })).statusCode).toBe(401);
    const refused = await list('', player.token);
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toEqual({ error: 'forbidden', details: { perm: 'storage.read' } });
    const deleteRefused = await t.request({
      method: 'DELETE',
      url: '/v1/admin/storage/objects?key=avatars/a/1.png',
      token: reader.token,
    });
    expect(deleteRefused.statusCode).toBe(403);
    expect(deleteRefused.json()).toEqual({ error: 'forbidden', details: { perm: 'storage.write' } });
    expect(existsSync(join(t.storageDir, 'avatars/a/1.png'))).toBe(true);
  });

  it('deletes an object, audited; again it is 404', async () => {
    const key = 'support/1/log.txt';
    const response = await t.request({
      method: 'DELETE',
      url: `/v1/admin/storage/objects?key=${encodeURIComponent(key)}`,
      token: writer.token,
      headers: { 'user-agent': 'storage-test' },
    });
    expect(response.statusCode).toBe(204);
    expect(existsSync(join(t.storageDir, key))).toBe(false);
    const audit = await t.db
      .selectFrom('audit_log')
      .selectAll()
      .where('action', '=', 'storage.object.delete')
      .where('target_id', '=', key)
      .execute();
    expect(audit).toEqual([
      expect.objectContaining({
        actor_id: writer.id,
        target_type: 'storage_object',
        user_agent: 'storage-test',
        summary: { before: { size: 6, content_type: 'text/plain' }, avatar_cleared_for: [] },
      }),
    ]);
    const again = await t.request({
      method: 'DELETE',
      url: `/v1/admin/storage/objects?key=${encodeURIComponent(key)}`,
      token: writer.token,
    });
    expect(again.statusCode).toBe(404);
    expect(again.json()).toEqual({ error: 'not_found' });
  });

  it("deleting someone's avatar clears it in the same transaction", async () => {
    const player = await createUser(t.db);
    const { key } = await setAvatar(t, player, 'image/png', IMAGE_BYTES['image/png']);
    const response = await t.request({
      method: 'DELETE',
      url: `/v1/admin/storage/objects?key=${encodeURIComponent(key)}`,
      token: writer.token,
    });
    expect(response.statusCode).toBe(204);
    const user = await t.db
      .selectFrom('users')
      .select('avatar_key')
      .where('id', '=', player.id)
      .executeTakeFirstOrThrow();
    expect(user.avatar_key).toBeNull();
    const audit = await t.db
      .selectFrom('audit_log')
      .select('summary')
      .where('action', '=', 'storage.object.delete')
      .where('target_id', '=', key)
      .executeTakeFirstOrThrow();
    expect(audit.summary).toMatchObject({ avatar_cleared_for: [player.id] });
  });

  it.each(['../../etc/passwd', 'avatars/../support/1/x', '/avatars/a/2.png', 'avatars//a', 'avatars/a/.hidden'])(
    'a key that is not a storage key is 404: %s',
    async (key) => {
      const response = await t.request({
        method: 'DELETE',
        url: `/v1/admin/storage/objects?key=${encodeURIComponent(key)}`,
        token: writer.token,
      });
      expect(response.statusCode).toBe(404);
      expect(existsSync(join(t.storageDir, 'avatars/a/2.png'))).toBe(true);
    },
  );

  it('a store failure while deleting: 503, the avatar and the audit log untouched', async () => {
    const player = await createUser(t.db);
    const { key } = await setAvatar(t, player, 'image/png', IMAGE_BYTES['image/png']);
    vi.spyOn(t.kernel.storage, 'delete').mockRejectedValueOnce(
      new StorageUnavailableError('s3 delete failed: TimeoutError'),
    );
    const response = await t.request({
      method: 'DELETE',
      url: `/v1/admin/storage/objects?key=${encodeURIComponent(key)}`,
      token: writer.token,
    });
    expect(response.statusCode).toBe(503);
    expect(response.json()).toEqual({ error: 'unavailable', details: { service: 'storage' } });
    const user = await t.db
      .selectFrom('users')
      .select('avatar_key')
      .where('id', '=', player.id)
      .executeTakeFirstOrThrow();
    expect(user.avatar_key).toBe(key);
    expect(await t.db.selectFrom('audit_log').select('id').where('target_id', '=', key).execute()).toEqual([]);
    expect(existsSync(join(t.storageDir, key))).toBe(true);
  });
});
