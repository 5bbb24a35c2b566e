import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleContentPolicy } from '../../../src/modules/console/content-policy.js';
import { createUser, startTestApp, type TestUser } from '../../helpers/app.js';
import { captureLog } from '../../helpers/captured-log.js';
import { sendRaw, startListeningApp, type ListeningApp } from '../../security/outside.js';

type App = Awaited<ReturnType<typeof startTestApp>>;

const INDEX =
  '<!doctype html><title>Console</title><script type="module" src="/admin/assets/index-Bx12ab.js"></script>';
const SCRIPT = 'console.log("console shell");';
const STYLE = 'body { margin: 0 }';
const OUTSIDE = 'outside-the-console-dir: never served';

/** A Vite build as `npm run build` leaves it, and a file beside the directory that must never be reached. */
function writeConsoleBuild(): { dir: string; consoleDir: string } {
  const dir = mkdtempSync(join(tmpdir(), 'pa-console-'));
  const consoleDir = join(dir, 'dist');
  mkdirSync(join(consoleDir, 'assets'), { recursive: true });
  writeFileSync(join(consoleDir, 'index.html'), INDEX);
  writeFileSync(join(consoleDir, 'assets', 'index-Bx12ab.js'), SCRIPT);
  writeFileSync(join(consoleDir, 'assets', 'index-Cd34ef.css'), STYLE);
  writeFileSync(join(consoleDir, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  writeFileSync(join(consoleDir, '.env'), OUTSIDE);
  writeFileSync(join(dir, 'outside.txt'), OUTSIDE);
  // A link out of the directory, as a careless build step might leave one.
  symlinkSync(join(dir, 'outside.txt'), join(consoleDir, 'assets', 'linked.js'));
  symlinkSync(join(dir, 'outside.txt'), join(consoleDir, 'linked.txt'));
  return { dir, consoleDir };
}

const POLICY =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob: https:; font-src 'self'; " +
  "connect-src 'self' ws://localhost:80 ws://platform.test; frame-ancestors 'none'; base-uri 'none'; " +
  "form-action 'self'; " +
  "object-src 'none'";

function expectConsoleHeaders(headers: Record<string, unknown>, policy = POLICY) {
  expect(headers['content-security-policy']).toBe(policy);
  expect(headers['x-content-type-options']).toBe('nosniff');
  expect(headers['referrer-policy']).toBe('no-referrer');
  expect(headers['x-request-id']).toEqual(expect.any(String));
}

describe('the console at /admin, from a built directory', () => {
  let t: ListeningApp;
  let fixture: { dir: string; consoleDir: string };
  let operator: TestUser;

  beforeAll(async () => {
    fixture = writeConsoleBuild();
    t = await startListeningApp({ config: { consoleDir: fixture.consoleDir } });
    operator = await createUser(t.db, ['ops.panic', 'ops.read']);
  });
  afterAll(async () => {
    await t?.close();
    rmSync(fixture.dir, { recursive: true, force: true });
  });

  const get = (url: string, headers: Record<string, string> = {}) => t.request({ method: 'GET', url, headers });

  it.each(['/admin', '/admin/', '/admin/users/123', '/admin/sign-in', '/admin/roles/new/', '/admin/index.html'])(
    '%s answers index.html, not cached, with the strict policy',
    async (url) => {
      const response = await get(url);
      expect(response.statusCode).toBe(200);
      expect(response.body).toBe(INDEX);
      expect(response.headers['content-type']).toMatch(/^text\/html/);
      expect(response.headers['cache-control']).toBe('no-cache');
      expect(response.headers.etag).toEqual(expect.any(String));
      expectConsoleHeaders(response.headers);
    },
  );

  it('hashed assets are cached for a year, immutable, with their own type; an unchanged one revalidates to 304', async () => {
    const script = await get('/admin/assets/index-Bx12ab.js');
    expect(script.statusCode).toBe(200);
    expect(script.body).toBe(SCRIPT);
    expect(script.headers['content-type']).toMatch(/^(text|application)\/javascript/);
    expect(script.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expectConsoleHeaders(script.headers);

    const style = await get('/admin/assets/index-Cd34ef.css');
    expect(style.statusCode).toBe(200);
    expect(style.body).toBe(STYLE);
    expect(style.headers['content-type']).toMatch(/^text\/css/);
    expect(style.headers['cache-control']).toBe('public, max-age=31536000, immutable');

    const again = await get('/admin/assets/index-Bx12ab.js', { 'if-none-match': String(script.headers.etag) });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
  });

  it('a file beside index.html is served as it is, revalidated on each load', async () => {
    const icon = await get('/admin/favicon.svg');
    expect(icon.statusCode).toBe(200);
    expect(icon.headers['content-type']).toMatch(/^image\/svg\+xml/);
    expect(icon.headers['cache-control']).toBe('no-cache');
    expectConsoleHeaders(icon.headers);
  });

  it('HEAD answers the headers without the body', async () => {
    const response = await t.request({ method: 'HEAD', url: '/admin/users/123' });
    expect(response.statusCode).toBe(200);
    expect(response.body).toBe('');
    expect(response.headers['cache-control']).toBe('no-cache');
    expectConsoleHeaders(response.headers);
  });

  it.each(['/admin/assets/index-Zz99zz.js', '/admin/assets/', '/admin/assets', '/admin/assets/nested/x.css'])(
    'a missing asset (%s) is 404 `not_found`, never index.html',
    async (url) => {
      const response = await get(url);
      expect(response.statusCode).toBe(404);
      expect(response.json()).toEqual({ error: 'not_found' });
      expectConsoleHeaders(response.headers);
    },
  );

  it('the policy names the asked host and PUBLIC_BASE_URL for the realtime socket (wss: behind https), and only a plain host', async () => {
    const plain = await get('/admin', { host: 'console.example.test:8443' });
    expect(plain.headers['content-security-policy']).toContain(
      "connect-src 'self' ws://console.example.test:8443 ws://platform.test; frame-ancestors",
    );
    const behindHttps = { consoleGotrueUrl: undefined, publicBaseUrl: 'https://admin.example.test', port: 8080 };
    expect(consoleContentPolicy(behindHttps, { host: 'admin.example.test', protocol: 'https' })).toBe(
      POLICY.replace('ws://localhost:80 ws://platform.test', 'wss://admin.example.test'),
    );
    // The ticket's socket is named by PUBLIC_BASE_URL (`localhost` when unset) even when the browser asked another host.
    const development = { consoleGotrueUrl: undefined, publicBaseUrl: undefined, port: 8080 };
    expect(consoleContentPolicy(development, { host: '127.0.0.1:8080', protocol: 'http' })).toContain(
      "connect-src 'self' ws://127.0.0.1:8080 ws://localhost:8080;",
    );
    const odd = await get('/admin', { host: "evil.test; script-src 'unsafe-inline'" });
    expect(odd.statusCode).toBe(200);
    expect(odd.headers['content-security-policy']).toContain("connect-src 'self' ws://platform.test; frame-ancestors");
    expect(odd.headers['content-security-policy']).not.toContain('unsafe-inline');
  });

  // Each spelling of a way out of the directory, sent as raw bytes (a URL parser would resolve the
  // dots first): refused outright, 404 with the policy. A dotfile or a link leading out is no file of
  // the build: the app answers in its place, never the file.
  const escapes: Array<[url: string, answer: 'refused' | 'app']> = [
    ['/admin/../package.json', 'refused'],
    ['/admin/..%2fpackage.json', 'refused'],
    ['/admin/%2e%2e/package.json', 'refused'],
    ['/admin/%2e%2e%2fpackage.json', 'refused'],
    ['/admin/%2E%2E%2F%2E%2E%2Fpackage.json', 'refused'],
    ['/admin/assets/..%2f..%2foutside.txt', 'refused'],
    ['/admin/assets/%2e%2e/%2e%2e/outside.txt', 'refused'],
    ['/admin/assets/%2e%2e/index.html', 'refused'],
    ['/admin/..%5coutside.txt', 'refused'],
    ['/admin/%5c..%5c..%5coutside.txt', 'refused'],
    ['/admin/assets/index-Bx12ab.js%00.html', 'refused'],
    ['/admin/%00', 'refused'],
    ['/admin/.%2e/outside.txt', 'refused'],
    ['/admin//etc/passwd', 'refused'],
    ['/admin/%2fetc%2fpasswd', 'refused'],
    ['/admin/./index.html', 'refused'],
    ['/admin/assets/linked.js', 'refused'],
    ['/admin/.env', 'app'],
    ['/admin/linked.txt', 'app'],
  ];
  it.each(escapes)('%s never leaves the directory (%s)', async (url, answer) => {
    const response = await sendRaw(t.port, 'GET', url);
    expect(response.body).not.toContain(OUTSIDE);
    expect(response.body).not.toContain('"name": "platform-api"');
    expect(response.body).not.toContain('root:');
    if (answer === 'app') {
      expect(response.status).toBe(200);
      expect(response.body).toBe(INDEX);
    } else {
      expect(response.status).toBe(404);
      expect(JSON.parse(response.body)).toEqual({ error: 'not_found' });
    }
    expect(response.headers['content-security-policy']).toBe(
      POLICY.replace('ws://localhost:80', `ws://127.0.0.1:${t.port}`),
    );
  });

  it('loads in lockdown (staff need it to lift it) and counts against no rate limit', async () => {
    const set = await t.request({
      method: 'POST',
      url: '/v1/admin/ops/panic',
      token: operator.token,
      payload: { level: 'lockdown', reason: 'Console test' },
    });
    expect(set.statusCode).toBe(200);
    await t.kernel.panic.refresh();
    expect(t.kernel.panic.state.level).toBe('lockdown');
    // A client write is refused now: the gate is on.
    const refused = await t.request({ method: 'POST', url: '/v1/public/waitlist', payload: { email: 'a@b.test' } });
    expect(refused.statusCode).toBe(503);
    for (let i = 0; i < 40; i++) {
      const page = await get(i % 2 === 0 ? '/admin/users' : '/admin/assets/index-Bx12ab.js');
      expect(page.statusCode).toBe(200);
    }
    const config = await get('/v1/console/config');
    expect(config.statusCode).toBe(200);
    await t.request({
      method: 'POST',
      url: '/v1/admin/ops/panic',
      token: operator.token,
      payload: { level: 'off', reason: 'Console test over' },
    });
    await t.kernel.panic.refresh();
  });

  it('is no part of the OpenAPI document, which lists the console config and sign-in under their tag', async () => {
    const document = (await get('/openapi.json')).json() as {
      paths: Record<string, Record<string, { tags?: string[]; operationId?: string; security?: unknown[] }>>;
      tags: Array<{ name: string }>;
    };
    expect(Object.keys(document.paths).filter((path) => path.startsWith('/admin'))).toEqual([]);
    expect(document.paths['/v1/console/config']?.get).toMatchObject({
      operationId: 'getConsoleConfig',
      tags: ['console'],
      security: [],
    });
    expect(document.paths['/v1/console/sign-in']?.post).toMatchObject({
      operationId: 'signInToConsole',
      tags: ['console'],
      security: [],
    });
    expect(document.tags.map((tag) => tag.name)).toContain('console');
  });
});

describe('the console before it is built', () => {
  let t: App;
  let dir: string;
  const captured = captureLog();

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pa-console-unbuilt-'));
    // The service starts without it.
    t = await startTestApp({ config: { consoleDir: join(dir, 'dist') }, log: captured.log });
  });

  it('starts without a warning (a fresh clone runs its tests unbuilt)', () => {
    const warnings = captured.lines().filter((line) => (JSON.parse(line) as { level: number }).level >= 40);
    expect(warnings).toEqual([]);
  });
  afterAll(async () => {
    await t?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it.each(['/admin', '/admin/', '/admin/users/123'])('%s is 503 saying to run npm run build', async (url) => {
    const response = await t.request({ method: 'GET', url });
    expect(response.statusCode).toBe(503);
    expect(response.json()).toEqual({
      error: 'unavailable',
      details: {
        reason: 'console_not_built',
        message:
          'The staff console is not built: run `npm run build` (it writes console/dist, or set CONSOLE_DIR) and restart.',
      },
    });
    expect(response.headers['content-security-policy']).toBe(POLICY);
  });

  it('an asset is still a 404, and the API serves on', async () => {
    const asset = await t.request({ method: 'GET', url: '/admin/assets/index-Bx12ab.js' });
    expect(asset.statusCode).toBe(404);
    expect(asset.json()).toEqual({ error: 'not_found' });
    expect((await t.request({ method: 'GET', url: '/health' })).statusCode).toBe(200);
  });
});
