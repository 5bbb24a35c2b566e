import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalStorage } from '../../../src/adapters/storage/local.js';
import { PREVIEW_IMAGE_MAX_BYTES, PREVIEW_TEXT_BYTES } from '../../../src/modules/files/service.js';
import { createUser, type TestUser } from '../../helpers/app.js';
import { IMAGE_BYTES } from '../../helpers/images.js';
import { startStorageApp } from '../../helpers/uploads.js';

type App = Awaited<ReturnType<typeof startStorageApp>>;

describe('staff preview of a stored object', () => {
  let t: App;
  let reader: TestUser;
  const longText = `${'héllo wörld\n'.repeat(Math.ceil(PREVIEW_TEXT_BYTES / 13) + 10)}`;
  const objects: Record<string, Buffer> = {
    'previews/logo.png': IMAGE_BYTES['image/png'],
    // The key says text, the bytes say JPEG: the bytes decide.
    'previews/photo.txt': IMAGE_BYTES['image/jpeg'],
    'previews/notes.txt': Buffer.from('first line\nsecond <b>line</b>\n'),
    'previews/long.log': Buffer.from(longText),
    'previews/blob.bin': Buffer.from([0, 1, 2, 3, 4, 5, 250, 251]),
    'previews/huge.png': Buffer.concat([IMAGE_BYTES['image/png'], Buffer.alloc(PREVIEW_IMAGE_MAX_BYTES)]),
  };

  beforeAll(async () => {
    t = await startStorageApp();
    reader = await createUser(t.db, ['storage.read']);
    const store = t.kernel.storage as LocalStorage;
    for (const [key, bytes] of Object.entries(objects))
      await store.write(key, Readable.from([bytes]), PREVIEW_IMAGE_MAX_BYTES * 2);
  });
  afterAll(async () => {
    await t.close();
  });

  const preview = (key: string, token = reader.token) =>
    t.request({ method: 'GET', url: `/v1/admin/storage/objects/preview?key=${encodeURIComponent(key)}`, token });

  it('an image whole, in base64, typed by its bytes', async () => {
    for (const [key, type] of [
      ['previews/logo.png', 'image/png'],
      ['previews/photo.txt', 'image/jpeg'],
    ] as const) {
      const response = await preview(key);
      expect(response.statusCode, response.body).toBe(200);
      const body = response.json();
      expect(body).toEqual({
        key,
        size: objects[key]!.length,
        kind: 'image',
        content_type: type,
        truncated: false,
        content: objects[key]!.toString('base64'),
      });
    }
  });

  it('a text, and only the start of a long one', async () => {
    const short = await preview('previews/notes.txt');
    expect(short.json()).toEqual({
      key: 'previews/notes.txt',
      size: objects['previews/notes.txt']!.length,
      kind: 'text',
      content_type: 'text/plain',
      truncated: false,
      content: 'first line\nsecond <b>line</b>\n',
    });
    const long = (await preview('previews/long.log')).json();
    expect(long.truncated).toBe(true);
    expect(long.content.length).toBeGreaterThan(1000);
    expect(Buffer.byteLength(long.content)).toBeLessThanOrEqual(PREVIEW_TEXT_BYTES);
    expect(longText.startsWith(long.content)).toBe(true);
  });

  it('refuses what it cannot show, a missing object, and a caller without storage.read', async () => {
    const binary = await preview('previews/blob.bin');
    expect(binary.statusCode).toBe(422);
    expect(binary.json()).toEqual({ error: 'invalid_request', details: { reason: 'not_previewable' } });
    const huge = await preview('previews/huge.png');
    expect(huge.statusCode).toBe(422);
    expect(huge.json()).toEqual({
      error: 'invalid_request',
      details: { reason: 'too_large', size: objects['previews/huge.png']!.length, max_size: PREVIEW_IMAGE_MAX_BYTES },
    });
    expect((await preview('previews/none.txt')).statusCode).toBe(404);
    expect((await preview('../etc/passwd')).statusCode).toBe(404);
    const player = await createUser(t.db);
    const refused = await preview('previews/logo.png', player.token);
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toEqual({ error: 'forbidden', details: { perm: 'storage.read' } });
  });
});
