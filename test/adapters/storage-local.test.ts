import { mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isStorageKey } from '../../src/adapters/storage/index.js';
import { LocalStorage, ObjectTooLargeError } from '../../src/adapters/storage/local.js';
import { signUpload, storageSigningKey } from '../../src/adapters/storage/local-signing.js';

const SERVICE_KEY = 'k'.repeat(48);

describe('storage keys', () => {
  it.each(['avatars/u/a.png', 'a', 'A-1_b.c/d', `${'x/'.repeat(10)}y`])('accepts %s', (key) =>
    expect(isStorageKey(key)).toBe(true),
  );
  it.each([
    '',
    '..',
    '../x',
    'a/../b',
    'a/./b',
    './a',
    '/a',
    'a/',
    'a//b',
    'a\\b',
    '.tmp/x',
    'a/.hidden',
    'a b',
    'a%2Fb',
    'a\nb',
    'x'.repeat(401),
  ])('refuses %j', (key) => expect(isStorageKey(key)).toBe(false));
});

describe('LocalStorage', () => {
  let root: string;
  let store: LocalStorage;
  beforeAll(() => {
    root = join(mkdtempSync(join(tmpdir(), 'pa-local-store-')), 'objects');
    store = new LocalStorage({ root, baseUrl: () => 'http://api.test', serviceKey: () => SERVICE_KEY });
  });
  afterAll(() => rmSync(join(root, '..'), { recursive: true, force: true }));

  it('makes its directory on the first write only', async () => {
    expect(await store.head('a/b.png')).toBeNull();
    expect(await store.list({ prefix: '', limit: 10, offset: 0 })).toEqual([]);
    expect(await store.write('a/b.png', Readable.from([Buffer.from('12345')]), 5)).toBe(5);
    expect(await store.head('a/b.png')).toEqual({
      key: 'a/b.png',
      size: 5,
      contentType: 'image/png',
      lastModified: expect.any(Date),
    });
    expect(await store.readStart('a/b.png', 3)).toEqual(Buffer.from('123'));
    expect(await store.readStart('a/b.png', 30)).toEqual(Buffer.from('12345'));
  });

  it('stops past the limit, keeps the old object whole and leaves no temporary file', async () => {
    await expect(
      store.write('a/b.png', Readable.from([Buffer.from('abc'), Buffer.from('def')]), 5),
    ).rejects.toBeInstanceOf(ObjectTooLargeError);
    expect(await store.readStart('a/b.png', 10)).toEqual(Buffer.from('12345'));
    expect(readdirSync(join(root, '.tmp'))).toEqual([]);
  });

  it('never touches a path outside its root', async () => {
    for (const key of ['../escape.png', 'a/../../escape.png', '/etc/passwd']) {
      await expect(store.write(key, Readable.from([Buffer.from('x')]), 5)).rejects.toThrow('not a storage key');
      await expect(store.head(key)).rejects.toThrow('not a storage key');
      await expect(
        store.presignUpload({ key, contentType: 'image/png', size: 1, expiresAt: new Date(Date.now() + 60_000) }),
      ).rejects.toThrow('not a storage key');
    }
    expect(readdirSync(join(root, '..'))).toEqual(['objects']);
  });

  it('does not follow a symlink planted in the tree', async () => {
    const outside = join(root, '..', 'secret.png');
    writeFileSync(outside, 'secret');
    mkdirSync(join(root, 'planted'), { recursive: true });
    symlinkSync(outside, join(root, 'planted', 'link.png'));
    expect(await store.head('planted/link.png')).toBeNull();
    expect(await store.readStart('planted/link.png', 6)).toBeNull();
    expect(await store.list({ prefix: 'planted/', limit: 10, offset: 0 })).toEqual([]);
    rmSync(outside);
  });

  it('signs upload URLs over key, type, size and expiry; refuses any change and expiry', async () => {
    const expiresAt = new Date(Date.now() + 60_000);
    const grant = await store.presignUpload({ key: 'a/c.png', contentType: 'image/png', size: 10, expiresAt });
    const url = new URL(grant.url);
    expect(url.origin + url.pathname).toBe('http://api.test/v1/public/storage/upload');
    const claims = {
      key: 'a/c.png',
      contentType: 'image/png',
      size: 10,
      expires: Math.floor(expiresAt.getTime() / 1000),
    };
    const sig = url.searchParams.get('sig')!;
    expect(store.verifyUpload(claims, sig)).toBe('ok');
    expect(store.verifyUpload({ ...claims, size: 11 }, sig)).toBe('invalid_signature');
    expect(store.verifyUpload({ ...claims, contentType: 'image/jpeg' }, sig)).toBe('invalid_signature');
    expect(store.verifyUpload({ ...claims, key: 'a/d.png' }, sig)).toBe('invalid_signature');
    expect(store.verifyUpload({ ...claims, expires: claims.expires + 1 }, sig)).toBe('invalid_signature');
    expect(store.verifyUpload(claims, sig, claims.expires * 1000)).toBe('expired');
    // Signed with another service key: refused.
    const other = new LocalStorage({ root, baseUrl: () => 'http://api.test', serviceKey: () => 'o'.repeat(48) });
    expect(other.verifyUpload(claims, sig)).toBe('invalid_signature');
    // The storage key is derived with its own label: the service key itself signs nothing here.
    expect(signUpload(storageSigningKey(SERVICE_KEY), claims)).toBe(sig);
    expect(signUpload(Buffer.from(SERVICE_KEY), claims)).not.toBe(sig);
    // Even a validly signed traversal key is refused.
    const traversal = { ...claims, key: '../x.png' };
    expect(store.verifyUpload(traversal, signUpload(storageSigningKey(SERVICE_KEY), traversal))).toBe(
      'invalid_signature',
    );
  });

  it('deletes files only, answering whether there was one', async () => {
    expect(await store.delete('a/b.png')).toBe(true);
    expect(await store.delete('a/b.png')).toBe(false);
    expect(await store.delete('a')).toBe(false);
  });
});
