import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CORS_ALLOWED_HEADERS,
  CORS_EXPOSED_HEADERS,
  CORS_METHODS,
  CORS_PREFLIGHT_MAX_AGE_SECONDS,
} from '../../../src/kernel/http/cors.js';
import { createUser, startTestApp, type TestApp, type TestUser } from '../../helpers/app.js';

const CONSOLE = 'https://admin.example.test';
const PORTAL = 'http://localhost:5173';
const STRANGER = 'https://evil.example.test';
const ROLE_PATH = '/v1/admin/roles/00000000-0000-4000-8000-0000000000aa';

const preflight = (t: TestApp, origin: string | undefined, method = 'PATCH', url = ROLE_PATH) =>
  t.request({
    method: 'OPTIONS',
    url,
    headers: {
      ...(origin === undefined ? {} : { origin }),
      'access-control-request-method': method,
      'access-control-request-headers': 'authorization,content-type,idempotency-key',
    },
  });

const CORS_HEADERS = [
  'access-control-allow-origin',
  'access-control-allow-methods',
  'access-control-allow-headers',
  'access-control-expose-headers',
  'access-control-max-age',
];
const corsHeadersOf = (headers: Record<string, unknown>) => CORS_HEADERS.filter((name) => headers[name] !== undefined);
const listOf = (value: unknown) =>
  String(value)
    .split(',')
    .map((item) => item.trim().toLowerCase());

describe('CORS with CORS_ORIGINS set', () => {
  let t: TestApp;
  let ops: TestUser;
  beforeAll(async () => {
    t = await startTestApp({ config: { corsOrigins: [CONSOLE, PORTAL] } });
    ops = await createUser(t.db, ['ops.panic', 'roles.read']);
  });
  afterAll(() => t.close());

  it('answers a preflight from an allowed origin for every method and header the API uses', async () => {
    for (const origin of [CONSOLE, PORTAL]) {
      for (const method of CORS_METHODS) {
        const response = await preflight(t, origin, method);
        expect(response.statusCode).toBe(204);
        expect(response.body).toBe('');
        expect(response.headers['access-control-allow-origin']).toBe(origin);
        expect(listOf(response.headers['access-control-allow-methods'])).toContain(method.toLowerCase());
        expect(listOf(response.headers['access-control-allow-headers'])).toEqual(
          expect.arrayContaining(['authorization', 'content-type', 'idempotency-key']),
        );
        expect(response.headers['access-control-max-age']).toBe(String(CORS_PREFLIGHT_MAX_AGE_SECONDS));
        expect(listOf(response.headers.vary)).toContain('origin');
        expect(response.headers['x-request-id']).toMatch(/.+/);
        // A preflight carries no credentials: no cookie-style allowance is ever given.
        expect(response.headers['access-control-allow-credentials']).toBeUndefined();
      }
    }
  });

  it('answers a preflight before authentication, even for a route that does not exist', async () => {
    const response = await preflight(t, CONSOLE, 'GET', '/v1/admin/no-such-thing');
    expect(response.statusCode).toBe(204);
    expect(response.headers['access-control-allow-origin']).toBe(CONSOLE);
  });

  it('puts the allow header and the exposed headers on answers and refusals to an allowed origin', async () => {
    const site = await t.request({ method: 'GET', url: '/v1/public/site', headers: { origin: PORTAL } });
    expect(site.statusCode).toBe(200);
    expect(site.headers['access-control-allow-origin']).toBe(PORTAL);
    expect(listOf(site.headers['access-control-expose-headers'])).toEqual(
      CORS_EXPOSED_HEADERS.map((name) => name.toLowerCase()),
    );
    expect(listOf(site.headers['access-control-expose-headers'])).toEqual(
      expect.arrayContaining(['x-request-id', 'retry-after']),
    );

    const unauthenticated = await t.request({ method: 'GET', url: '/v1/me', headers: { origin: CONSOLE } });
    expect(unauthenticated.statusCode).toBe(401);
    expect(unauthenticated.headers['access-control-allow-origin']).toBe(CONSOLE);

    const roles = await t.request({
      method: 'GET',
      url: '/v1/admin/roles',
      token: ops.token,
      headers: { origin: CONSOLE },
    });
    expect(roles.statusCode).toBe(200);
    expect(roles.headers['access-control-allow-origin']).toBe(CONSOLE);
  });

  it('lets a browser read a lockdown refusal and its Retry-After, and still answers its preflights', async () => {
    const set = await t.request({
      method: 'POST',
      url: '/v1/admin/ops/panic',
      token: ops.token,
      payload: { level: 'lockdown', reason: 'Database failover' },
    });
    expect(set.statusCode).toBe(200);
    try {
      const refused = await t.request({
        method: 'POST',
        url: '/v1/me/billing/checkout-session',
        headers: { origin: CONSOLE },
        payload: {},
      });
      expect(refused.statusCode).toBe(503);
      expect(refused.json()).toMatchObject({ error: 'panic_mode', level: 'lockdown' });
      expect(refused.headers['retry-after']).toMatch(/^\d+$/);
      expect(refused.headers['access-control-allow-origin']).toBe(CONSOLE);
      expect((await preflight(t, CONSOLE, 'POST', '/v1/me/billing/checkout-session')).statusCode).toBe(204);
    } finally {
      const off = await t.request({
        method: 'POST',
        url: '/v1/admin/ops/panic',
        token: ops.token,
        payload: { level: 'off', reason: 'Failover done' },
      });
      expect(off.statusCode).toBe(200);
    }
  });

  it('gives another origin no allow header: its preflight is answered like any OPTIONS, its reads without CORS', async () => {
    const refused = await preflight(t, STRANGER);
    expect(refused.statusCode).toBe(404);
    expect(refused.json()).toMatchObject({ error: 'not_found' });
    expect(corsHeadersOf(refused.headers)).toEqual([]);

    const read = await t.request({ method: 'GET', url: '/v1/public/site', headers: { origin: STRANGER } });
    expect(read.statusCode).toBe(200);
    expect(read.headers['access-control-allow-origin']).toBeUndefined();
    // Answers still vary by origin: a shared cache must not hand this answer to an allowed origin.
    expect(listOf(read.headers.vary)).toContain('origin');
  });

  it('treats an origin as exact: scheme, host and port must all match', async () => {
    for (const near of [
      'http://admin.example.test',
      'https://admin.example.test:8443',
      'https://admin.example.test.evil.test',
      'null',
    ]) {
      const response = await preflight(t, near);
      expect(response.statusCode, near).toBe(404);
      expect(response.headers['access-control-allow-origin'], near).toBeUndefined();
    }
  });

  it('answers an OPTIONS request that is no preflight as a method the API does not serve', async () => {
    for (const headers of [{}, { origin: CONSOLE }, { 'access-control-request-method': 'GET' }]) {
      const response = await t.request({ method: 'OPTIONS', url: '/v1/admin/roles', headers });
      expect(response.statusCode).toBe(404);
      expect(response.json()).toMatchObject({ error: 'not_found' });
      expect(response.headers['access-control-allow-methods']).toBeUndefined();
    }
  });

  it('names exactly the headers the API reads and writes', () => {
    expect(CORS_ALLOWED_HEADERS.map((name) => name.toLowerCase())).toEqual(
      expect.arrayContaining(['authorization', 'content-type', 'idempotency-key']),
    );
  });
});

describe('CORS with CORS_ORIGINS unset', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('sends no CORS header at all and answers OPTIONS 404', async () => {
    const refused = await preflight(t, CONSOLE);
    expect(refused.statusCode).toBe(404);
    expect(corsHeadersOf(refused.headers)).toEqual([]);
    const read = await t.request({ method: 'GET', url: '/v1/public/site', headers: { origin: CONSOLE } });
    expect(read.statusCode).toBe(200);
    expect(corsHeadersOf(read.headers)).toEqual([]);
    expect(read.headers.vary ?? '').not.toMatch(/origin/i);
  });
});
