import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp } from '../../helpers/app.js';
import { buildConsole } from '../../helpers/console-build.js';

type App = Awaited<ReturnType<typeof startTestApp>>;

/**
 * The console as Vite builds it, with its brotli and gzip copies, sent by the Accept-Encoding a
 * client sends and only then, with the same caching and policy headers as the file itself.
 */

const SLOW = 120_000;
const IMMUTABLE = 'public, max-age=31536000, immutable';

function expectConsoleHeaders(headers: Record<string, unknown>) {
  expect(headers['content-security-policy']).toMatch(/^default-src 'self'; script-src 'self';/);
  expect(headers['x-content-type-options']).toBe('nosniff');
  expect(headers['referrer-policy']).toBe('no-referrer');
  expect(String(headers.vary).toLowerCase()).toContain('accept-encoding');
}

describe('the built console, compressed by Accept-Encoding', () => {
  let t: App;
  let consoleDir: string;
  /** The entry script, the largest file of the build. */
  let script: { url: string; bytes: Buffer };

  beforeAll(async () => {
    consoleDir = buildConsole();
    const entry = readdirSync(join(consoleDir, 'assets')).find((name) => /^index-.*\.js$/.test(name));
    if (entry === undefined) throw new Error(`no entry script in ${consoleDir}`);
    script = { url: `/admin/assets/${entry}`, bytes: readFileSync(join(consoleDir, 'assets', entry)) };
    t = await startTestApp({ config: { consoleDir } });
  }, SLOW);
  afterAll(async () => {
    await t?.close();
  });

  const get = (url: string, headers: Record<string, string> = {}) => t.request({ method: 'GET', url, headers });

  it('br gets the brotli copy, which decompresses to the file, cached for good', async () => {
    const answer = await get(script.url, { 'accept-encoding': 'br' });
    expect(answer.statusCode).toBe(200);
    expect(answer.headers['content-encoding']).toBe('br');
    expect(answer.headers['content-type']).toMatch(/^(text|application)\/javascript/);
    expect(answer.headers['cache-control']).toBe(IMMUTABLE);
    expectConsoleHeaders(answer.headers);
    expect(answer.rawPayload.length).toBeLessThan(script.bytes.length / 2);
    expect(Number(answer.headers['content-length'])).toBe(answer.rawPayload.length);
    expect(brotliDecompressSync(answer.rawPayload).equals(script.bytes)).toBe(true);
  });

  it('gzip gets the gzip copy, which decompresses to the file', async () => {
    const answer = await get(script.url, { 'accept-encoding': 'gzip' });
    expect(answer.statusCode).toBe(200);
    expect(answer.headers['content-encoding']).toBe('gzip');
    expect(answer.headers['cache-control']).toBe(IMMUTABLE);
    expectConsoleHeaders(answer.headers);
    expect(gunzipSync(answer.rawPayload).equals(script.bytes)).toBe(true);
  });

  it('a browser listing both (gzip, deflate, br, zstd) gets brotli', async () => {
    const answer = await get(script.url, { 'accept-encoding': 'gzip, deflate, br, zstd' });
    expect(answer.headers['content-encoding']).toBe('br');
    expect(brotliDecompressSync(answer.rawPayload).equals(script.bytes)).toBe(true);
  });

  it.each([
    ['no Accept-Encoding', undefined],
    ['identity', 'identity'],
    ['brotli and gzip refused', 'br;q=0, gzip;q=0'],
    ['an encoding with no copy', 'zstd'],
  ])('%s gets the file as it is', async (_case, acceptEncoding) => {
    const answer = await get(script.url, acceptEncoding === undefined ? {} : { 'accept-encoding': acceptEncoding });
    expect(answer.statusCode).toBe(200);
    expect(answer.headers['content-encoding']).toBeUndefined();
    expect(answer.rawPayload.equals(script.bytes)).toBe(true);
    expect(answer.headers['cache-control']).toBe(IMMUTABLE);
    expectConsoleHeaders(answer.headers);
  });

  it('index.html, for any page of the app, is compressed too and still revalidated on every load', async () => {
    const index = readFileSync(join(consoleDir, 'index.html'));
    for (const url of ['/admin', '/admin/users/123']) {
      const answer = await get(url, { 'accept-encoding': 'br' });
      expect(answer.statusCode).toBe(200);
      expect(answer.headers['content-encoding']).toBe('br');
      expect(answer.headers['content-type']).toMatch(/^text\/html/);
      expect(answer.headers['cache-control']).toBe('no-cache');
      expectConsoleHeaders(answer.headers);
      expect(brotliDecompressSync(answer.rawPayload).equals(index)).toBe(true);
      const plain = await get(url);
      expect(plain.headers['content-encoding']).toBeUndefined();
      expect(plain.rawPayload.equals(index)).toBe(true);
      expect(plain.headers['cache-control']).toBe('no-cache');
    }
  });

  it('an unchanged copy revalidates to 304, with the same headers', async () => {
    const first = await get(script.url, { 'accept-encoding': 'br' });
    const again = await get(script.url, { 'accept-encoding': 'br', 'if-none-match': String(first.headers.etag) });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    expect(again.headers['cache-control']).toBe(IMMUTABLE);
    expectConsoleHeaders(again.headers);
  });

  it('a copy is never sent by its own name', async () => {
    expect(readdirSync(join(consoleDir, 'assets'))).toContain(`${script.url.split('/').pop()}.br`);
    for (const suffix of ['.br', '.gz']) {
      const asset = await get(`${script.url}${suffix}`, { 'accept-encoding': 'br' });
      expect(asset.statusCode).toBe(404);
      expect(asset.json()).toEqual({ error: 'not_found' });
    }
    const index = await get('/admin/index.html.br');
    expect(index.statusCode).toBe(200);
    expect(index.headers['content-encoding']).toBeUndefined();
    expect(index.rawPayload.equals(readFileSync(join(consoleDir, 'index.html')))).toBe(true);
  });
});
