import { randomUUID } from 'node:crypto';
import { decodeJwt } from 'jose';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { grantBootstrapOwners } from '../../../src/modules/roles/bootstrap.js';
import { captureLog } from '../../helpers/captured-log.js';
import { createUser, startTestApp, type TestApp } from '../../helpers/app.js';

type App = Awaited<ReturnType<typeof startTestApp>>;

const MINUTE = 60_000;
let nextIp = 1;
/** Each case from its own address: the route's limit (10 a minute per IP) counts per case. */
const freshIp = () => `203.0.113.${nextIp++}`;

const signIn = (t: TestApp, payload: unknown, remoteAddress = freshIp()) =>
  t.request({ method: 'POST', url: '/v1/console/sign-in', payload: payload as object, remoteAddress });

describe('console sign-in in the embedded development mode', () => {
  let t: App;
  const owner = randomUUID();
  const captured = captureLog();

  beforeAll(async () => {
    t = await startTestApp({ config: { jwtSecretSource: 'generated' }, devOwner: owner, log: captured.log });
    // What serve does for the development owner.
    await grantBootstrapOwners(t.db, [owner]);
  });
  afterAll(async () => t?.close());
  afterEach(() => vi.useRealTimers());

  const issue = () => {
    const codes = t.kernel.devSignIn;
    if (codes === undefined) throw new Error('the development mode has sign-in codes');
    return codes.issue();
  };

  it('the config says: sign in with the printed link', async () => {
    const response = await t.request({ method: 'GET', url: '/v1/console/config' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ signIn: { method: 'dev_link' }, credits: { confirmAbove: 500 } });
  });

  it('codes are 256 random bits, url-safe, each different', () => {
    const codes = new Set(Array.from({ length: 50 }, issue));
    expect(codes.size).toBe(50);
    for (const code of codes) expect(code).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('a code buys a 12 h token of the development owner, which holds the owner role', async () => {
    const before = Date.now();
    const response = await signIn(t, { code: issue() });
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body).toEqual({ accessToken: expect.any(String), tokenType: 'Bearer', expiresAt: expect.any(String) });
    const claims = decodeJwt(body.accessToken);
    expect(claims).toMatchObject({ sub: owner, aud: 'authenticated', email: 'owner@localhost' });
    expect(new Date(body.expiresAt).getTime()).toBe((claims.exp as number) * 1_000);
    expect((claims.exp as number) * 1_000 - before).toBeGreaterThan(12 * 60 * MINUTE - 2_000);
    expect((claims.exp as number) * 1_000 - before).toBeLessThanOrEqual(12 * 60 * MINUTE + 1_000);

    const permissions = await t.request({ method: 'GET', url: '/v1/me/permissions', token: body.accessToken });
    expect(permissions.statusCode).toBe(200);
    const held = permissions.json() as { permissions: string[]; roles: Array<{ key: string }> };
    expect(held.roles.map((role) => role.key)).toEqual(['owner']);
    // Wildcards come expanded: the owner holds every key there is.
    expect(held.permissions).toEqual(expect.arrayContaining(['roles.write', 'ops.panic', 'users.delete']));
    const roles = await t.request({ method: 'GET', url: '/v1/admin/roles', token: body.accessToken });
    expect(roles.statusCode).toBe(200);
  });

  it('a code signs in once: the second exchange is 401 `invalid_sign_in_code`', async () => {
    const code = issue();
    expect((await signIn(t, { code })).statusCode).toBe(200);
    const again = await signIn(t, { code });
    expect(again.statusCode).toBe(401);
    expect(again.json()).toEqual({ error: 'invalid_sign_in_code' });
  });

  it('an unknown code is 401, and so is a failed guess at a real one (it is then gone)', async () => {
    const unknown = await signIn(t, { code: 'A'.repeat(43) });
    expect(unknown.statusCode).toBe(401);
    expect(unknown.json()).toEqual({ error: 'invalid_sign_in_code' });
    const code = issue();
    expect((await signIn(t, { code: `${code}x` })).statusCode).toBe(401);
    expect((await signIn(t, { code: code.slice(0, -1) })).statusCode).toBe(401);
    expect((await signIn(t, { code })).statusCode).toBe(200);
  });

  it('a code is good for 10 minutes and not a moment more', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const start = Date.now();
    vi.setSystemTime(start);
    const early = issue();
    const late = issue();
    vi.setSystemTime(start + 10 * MINUTE - 1);
    expect((await signIn(t, { code: early })).statusCode).toBe(200);
    vi.setSystemTime(start + 10 * MINUTE);
    const expired = await signIn(t, { code: late });
    expect(expired.statusCode).toBe(401);
    expect(expired.json()).toEqual({ error: 'invalid_sign_in_code' });
  });

  it.each([
    ['no body', undefined],
    ['no code', {}],
    ['an empty code', { code: '' }],
    ['a code that is not text', { code: 12345 }],
    ['a code past 200 characters', { code: 'c'.repeat(201) }],
    ['an unknown field', { code: 'abc', owner: true }],
  ])('%s is 400 SchemaError', async (_case, payload) => {
    const response = await t.request({
      method: 'POST',
      url: '/v1/console/sign-in',
      remoteAddress: freshIp(),
      ...(payload === undefined ? {} : { payload }),
    });
    expect(response.statusCode).toBe(400);
    const body = response.json();
    expect(body).toMatchObject({ success: false, error: { name: 'SchemaError', issues: expect.any(Array) } });
  });

  it('is limited to 10 a minute per address (429 `rate_limited`); page loads of /admin count against nothing', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    // 10 s into a minute: no window edge falls mid-case.
    vi.setSystemTime(Math.ceil(Date.now() / MINUTE) * MINUTE + 10_000);
    const ip = freshIp();
    for (let i = 0; i < 30; i++) {
      const page = await t.request({ method: 'GET', url: '/admin/users', remoteAddress: ip });
      expect(page.statusCode).not.toBe(429);
    }
    for (let i = 0; i < 10; i++) expect((await signIn(t, { code: 'nope' }, ip)).statusCode).toBe(401);
    const refused = await signIn(t, { code: issue() }, ip);
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toEqual({ error: 'rate_limited' });
    expect(refused.headers['retry-after']).toEqual(expect.any(String));
    // Another address is not held back.
    expect((await signIn(t, { code: issue() })).statusCode).toBe(200);
  });

  it('works in lockdown: staff sign in to lift it', async () => {
    const operator = await createUser(t.db, ['ops.panic']);
    const set = (level: string) =>
      t.request({
        method: 'POST',
        url: '/v1/admin/ops/panic',
        token: operator.token,
        payload: { level, reason: 'Console sign-in test' },
      });
    expect((await set('lockdown')).statusCode).toBe(200);
    await t.kernel.panic.refresh();
    const response = await signIn(t, { code: issue() });
    expect(response.statusCode).toBe(200);
    expect((await t.request({ method: 'GET', url: '/v1/console/config' })).statusCode).toBe(200);
    expect((await set('off')).statusCode).toBe(200);
    await t.kernel.panic.refresh();
  });

  it('no code reaches a log line, an error body or an audit row', async () => {
    const used = issue();
    const refused = issue();
    const expired = issue();
    const answers = [
      await signIn(t, { code: used }),
      await signIn(t, { code: used }),
      await signIn(t, { code: refused, extra: 'field' }),
    ];
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 11 * MINUTE);
    answers.push(await signIn(t, { code: expired }));
    expect(answers.map((answer) => answer.statusCode)).toEqual([200, 401, 400, 401]);
    const log = captured.text();
    // The log holds these requests (the capture works), at trace level, and none of the codes.
    expect(log).toContain('/v1/console/sign-in');
    const audit = JSON.stringify(await t.db.selectFrom('audit_log').selectAll().execute());
    for (const code of [used, refused, expired]) {
      expect(log).not.toContain(code);
      expect(audit).not.toContain(code);
      for (const answer of answers) expect(answer.body).not.toContain(code);
    }
  });
});

describe('console sign-in outside the development mode', () => {
  let t: App;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => t?.close());

  it('the config says: paste a token; the exchange is 404 `not_found`; a bad body is still 400', async () => {
    expect(t.kernel.devSignIn).toBeUndefined();
    const config = await t.request({ method: 'GET', url: '/v1/console/config' });
    expect(config.json()).toEqual({ signIn: { method: 'token' }, credits: { confirmAbove: 500 } });
    const response = await signIn(t, { code: 'A'.repeat(43) });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({ error: 'not_found' });
    expect((await signIn(t, {})).statusCode).toBe(400);
  });

  it('a devOwner given without the made-up secret signs nobody in', async () => {
    const other = await startTestApp({ database: t.kernel.database, devOwner: randomUUID() });
    try {
      expect(other.kernel.devSignIn).toBeUndefined();
      expect((await signIn(other, { code: 'x' })).statusCode).toBe(404);
    } finally {
      await other.close();
    }
  });
});

describe('console config with GoTrue', () => {
  let t: App;
  beforeAll(async () => {
    t = await startTestApp({
      config: {
        consoleGotrueUrl: 'https://auth.example.test/auth/v1',
        consoleGotrueAnonKey: 'public-anon-key',
        consoleCreditConfirmAbove: 2000,
      },
    });
  });
  afterAll(async () => t?.close());

  it('hands the console the URL, the anon key and its settings; the policy lets it connect there', async () => {
    const config = await t.request({ method: 'GET', url: '/v1/console/config' });
    expect(config.statusCode).toBe(200);
    expect(config.json()).toEqual({
      signIn: { method: 'gotrue', url: 'https://auth.example.test/auth/v1', anonKey: 'public-anon-key' },
      credits: { confirmAbove: 2000 },
    });
    const page = await t.request({ method: 'GET', url: '/admin' });
    expect(page.headers['content-security-policy']).toContain(
      "connect-src 'self' ws://localhost:80 ws://platform.test https://auth.example.test;",
    );
    expect((await signIn(t, { code: 'x' })).statusCode).toBe(404);
  });
});
