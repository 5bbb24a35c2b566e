import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { COMPRESSION_THRESHOLD_BYTES } from '../../../src/kernel/http/compression.js';
import { createUser, startTestApp, type TestApp, type TestUser } from '../../helpers/app.js';

let t: TestApp;
let staff: TestUser;
const TAGGED = '"a-strong-tag"';
beforeAll(async () => {
  t = await startTestApp({
    extraRoutes: (app) => {
      // An answer with a strong ETag, large enough to be compressed, and a small one.
      app.get('/test/tagged', { schema: { hide: true } }, async (_request, reply) =>
        reply.header('etag', TAGGED).send({ padding: 'x'.repeat(4_000) }),
      );
      app.get('/test/small', { schema: { hide: true } }, async () => ({ ok: true }));
    },
  });
  staff = await createUser(t.db, ['users.read']);
  // Enough players that the staff list is a few kilobytes.
  for (let i = 0; i < 25; i++) await createUser(t.db);
});
afterAll(() => t.close());

const usersList = (acceptEncoding?: string) =>
  t.request({
    method: 'GET',
    url: '/v1/admin/users?per_page=25',
    token: staff.token,
    headers: acceptEncoding === undefined ? {} : { 'accept-encoding': acceptEncoding },
  });

describe('answers compressed by Accept-Encoding', () => {
  it('a staff list above the threshold comes as brotli when asked, the same JSON once decoded', async () => {
    const plain = await usersList();
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.rawPayload.length).toBeGreaterThan(COMPRESSION_THRESHOLD_BYTES);

    const br = await usersList('gzip, deflate, br');
    expect(br.statusCode).toBe(200);
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers.vary).toMatch(/accept-encoding/i);
    expect(br.rawPayload.length).toBeLessThan(plain.rawPayload.length / 3);
    expect(JSON.parse(brotliDecompressSync(br.rawPayload).toString())).toEqual(plain.json());
  });

  it('gzip when brotli is refused; as it is when nothing offered is accepted', async () => {
    const gzip = await usersList('br;q=0, gzip');
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(JSON.parse(gunzipSync(gzip.rawPayload).toString()).data).toHaveLength(25);

    const identity = await usersList('deflate');
    expect(identity.headers['content-encoding']).toBeUndefined();
    expect(identity.json().data).toHaveLength(25);
  });

  it('an answer below the threshold goes as it is', async () => {
    const small = await t.request({ method: 'GET', url: '/test/small', headers: { 'accept-encoding': 'br' } });
    expect(small.headers['content-encoding']).toBeUndefined();
    expect(small.json()).toEqual({ ok: true });
  });

  it('an encoded answer carries its ETag as weak (it names the decoded bytes only)', async () => {
    const plain = await t.request({ method: 'GET', url: '/test/tagged' });
    expect(plain.headers.etag).toBe(TAGGED);
    const encoded = await t.request({ method: 'GET', url: '/test/tagged', headers: { 'accept-encoding': 'br' } });
    expect(encoded.headers['content-encoding']).toBe('br');
    expect(encoded.headers.etag).toBe(`W/${TAGGED}`);
  });

  it('the public site below the threshold keeps its strong ETag; a weak one sent back still answers 304', async () => {
    const first = await t.request({ method: 'GET', url: '/v1/public/site', headers: { 'accept-encoding': 'br' } });
    expect(first.statusCode).toBe(200);
    const etag = String(first.headers.etag);
    expect(first.headers['content-encoding']).toBeUndefined();
    expect(etag).toMatch(/^"/);
    for (const tag of [etag, `W/${etag}`]) {
      const again = await t.request({
        method: 'GET',
        url: '/v1/public/site',
        headers: { 'accept-encoding': 'br', 'if-none-match': tag },
      });
      expect(again.statusCode).toBe(304);
    }
  });

  it('the OpenAPI document is sent encoded, the same bytes each time', async () => {
    const plain = await t.request({ method: 'GET', url: '/openapi.json' });
    expect(plain.headers['content-type']).toMatch(/^application\/json/);
    const first = await t.request({ method: 'GET', url: '/openapi.json', headers: { 'accept-encoding': 'br' } });
    const second = await t.request({ method: 'GET', url: '/openapi.json', headers: { 'accept-encoding': 'br' } });
    expect(first.headers['content-encoding']).toBe('br');
    expect(first.headers.vary).toMatch(/accept-encoding/i);
    expect(second.rawPayload.equals(first.rawPayload)).toBe(true);
    expect(first.rawPayload.length).toBeLessThan(plain.rawPayload.length / 10);
    expect(JSON.parse(brotliDecompressSync(first.rawPayload).toString())).toEqual(plain.json());
    const gzip = await t.request({ method: 'GET', url: '/openapi.json', headers: { 'accept-encoding': 'gzip' } });
    expect(JSON.parse(gunzipSync(gzip.rawPayload).toString()).openapi).toBe(plain.json().openapi);
  });
});

describe('the compressor on the cheap path', () => {
  // Each route has one hook of ours in place of the library's two (decision 0111): a request
  // without Accept-Encoding, or a small answer, never reaches the library's.
  it("a route has one compression hook of ours and none of the library's", () => {
    const lines = t.app.printRoutes({ includeHooks: true, method: 'GET' }).split('\n');
    const health = lines.findIndex((line) => line.includes('health (GET)'));
    const after = lines.slice(health + 1);
    const ownLines = after.findIndex((line) => !line.includes('• ('));
    const hooks = after.slice(0, ownLines).join('\n');
    expect(hooks).toContain('(onRequest) ["kernelRequest()"]');
    expect(hooks).toMatch(/\(onSend\) \[.*"compressWhenItCould\(\)"\]/);
    expect(hooks).not.toContain('"onSend()"');
  });
});
