import type { LightMyRequestResponse } from 'fastify';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ZodApp } from '../../src/kernel/http/zod-app.js';
import {
  DEFAULT_PER_PAGE,
  likePattern,
  MAX_PER_PAGE,
  offsetOf,
  paged,
  pageQuery,
} from '../../src/kernel/pagination.js';
import { createUser, startTestApp, type TestApp, type TestUser } from '../helpers/app.js';
import { expectRefusedUnchanged } from '../helpers/expectations.js';
import { storedState } from '../helpers/stored-state.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const SECRET_MESSAGE = 'db password=hunter2 at postgres://admin:hunter2@db.internal/prod';

/** Routes only this file needs: a bug (500), a rate-limited probe (429) and a header schema. */
function probeRoutes(app: ZodApp) {
  app.get('/test/boom', async () => {
    throw new Error(SECRET_MESSAGE);
  });
  app.post('/test/limited', { config: { rateLimit: 'deviceCode' } }, async () => ({ ok: true }));
  app.get('/test/needs-header', { schema: { headers: z.object({ 'x-tenant': z.guid() }) } }, async () => ({
    ok: true,
  }));
}

/** What a refused write must leave untouched: the roles with their permissions, every audit row and event. */
const refusalState = (t: TestApp) =>
  storedState(
    t.db,
    { roles: ['key'], role_permissions: ['role_id', 'permission_key'], audit_log: ['id'], event_outbox: ['id'] },
    [],
  );

function expectRequestId(response: LightMyRequestResponse): string {
  const id = response.headers['x-request-id'];
  expect(typeof id).toBe('string');
  expect(id).toMatch(UUID);
  return id as string;
}

describe('errors and request ids', () => {
  let t: TestApp;
  let owner: TestUser;
  beforeAll(async () => {
    t = await startTestApp({ extraRoutes: probeRoutes });
    owner = await createUser(t.db, ['*']);
  });
  afterAll(async () => {
    await t.close();
  });

  describe('x-request-id on every response', () => {
    // Each case provokes one status; every answer carries a fresh uuid request id.
    const cases: Array<{
      name: string;
      status: number;
      send: (u: { owner: TestUser; player: TestUser }) => Parameters<TestApp['request']>[0];
    }> = [
      { name: '200 success', status: 200, send: () => ({ method: 'GET', url: '/health' }) },
      {
        name: '201 created',
        status: 201,
        send: ({ owner }) => ({
          method: 'POST',
          url: '/v1/admin/roles',
          token: owner.token,
          payload: { key: 'rid-created', name: 'Created' },
        }),
      },
      {
        name: '400 validation',
        status: 400,
        send: ({ owner }) => ({ method: 'GET', url: '/v1/admin/roles/not-a-uuid', token: owner.token }),
      },
      { name: '401 missing token', status: 401, send: () => ({ method: 'GET', url: '/v1/admin/roles' }) },
      {
        name: '403 forbidden',
        status: 403,
        send: ({ player }) => ({ method: 'GET', url: '/v1/admin/roles', token: player.token }),
      },
      { name: '404 unknown route', status: 404, send: () => ({ method: 'GET', url: '/nowhere/at/all' }) },
      {
        name: '404 not_found',
        status: 404,
        send: ({ owner }) => ({
          method: 'GET',
          url: '/v1/admin/roles/6f1c1c57-0000-4000-8000-000000000000',
          token: owner.token,
        }),
      },
      {
        name: '409 conflict',
        status: 409,
        send: ({ owner }) => ({
          method: 'POST',
          url: '/v1/admin/roles',
          token: owner.token,
          payload: { key: 'owner', name: 'Taken' },
        }),
      },
      {
        name: '413 too large',
        status: 413,
        send: ({ owner }) => ({
          method: 'POST',
          url: '/v1/admin/roles',
          token: owner.token,
          headers: { 'content-type': 'application/json' },
          payload: `{"key":"big","name":"${'x'.repeat(1_100_000)}"}`,
        }),
      },
      {
        name: '415 media type',
        status: 415,
        send: ({ owner }) => ({
          method: 'POST',
          url: '/v1/admin/roles',
          token: owner.token,
          headers: { 'content-type': 'text/plain' },
          payload: 'key=x',
        }),
      },
      {
        name: '422 invalid_request',
        status: 422,
        send: ({ owner }) => ({
          method: 'DELETE',
          url: '/v1/admin/roles/00000000-0000-4000-8000-000000000001',
          token: owner.token,
        }),
      },
      { name: '500 internal', status: 500, send: () => ({ method: 'GET', url: '/test/boom' }) },
    ];

    it.each(cases)('$name', async ({ status, send }) => {
      const player = await createUser(t.db);
      const response = await t.request(send({ owner, player }));
      expect(response.statusCode).toBe(status);
      expectRequestId(response);
    });

    it('429 rate limited carries one too', async () => {
      const ip = '198.51.100.7';
      const responses = [];
      for (let i = 0; i < 4; i++)
        responses.push(await t.app.inject({ method: 'POST', url: '/test/limited', remoteAddress: ip }));
      expect(responses.map((r) => r.statusCode)).toEqual([200, 200, 200, 429]);
      expect(responses[3]!.json()).toEqual({ error: 'rate_limited' });
      expectRequestId(responses[3]!);
    });

    it('every response gets its own id', async () => {
      const ids = new Set<string>();
      for (let i = 0; i < 5; i++) ids.add(expectRequestId(await t.request({ method: 'GET', url: '/health' })));
      expect(ids.size).toBe(5);
    });
  });

  describe('inbound x-request-id', () => {
    const allowed = 'Aa0._:-';
    const cases: Array<{ name: string; inbound: string; echoed: boolean }> = [
      { name: 'a simple id', inbound: 'req-123', echoed: true },
      { name: 'every allowed character', inbound: `${allowed}zZ9`, echoed: true },
      { name: '128 characters', inbound: 'a'.repeat(128), echoed: true },
      { name: '129 characters', inbound: 'a'.repeat(129), echoed: false },
      { name: 'a space', inbound: 'req 123', echoed: false },
      { name: 'a slash', inbound: 'req/123', echoed: false },
      { name: 'a non-ASCII character', inbound: 'réq-123', echoed: false },
    ];

    it.each(cases)('$name → echoed: $echoed', async ({ inbound, echoed }) => {
      // On an error route too: the id follows the request whatever the outcome.
      for (const url of ['/health', '/v1/admin/roles']) {
        const response = await t.request({ method: 'GET', url, headers: { 'x-request-id': inbound } });
        const id = response.headers['x-request-id'];
        if (echoed) {
          expect(id).toBe(inbound);
        } else {
          expect(id).not.toBe(inbound);
          expect(id).toMatch(UUID);
        }
      }
    });

    it("an echoed id is the caller's only: the audit row records the service's own", async () => {
      const response = await t.request({
        method: 'POST',
        url: '/v1/admin/roles',
        token: owner.token,
        headers: { 'x-request-id': 'trace:abc.42' },
        payload: { key: 'rid-audited', name: 'Audited' },
      });
      expect(response.statusCode).toBe(201);
      expect(response.headers['x-request-id']).toBe('trace:abc.42');
      const row = await t.db
        .selectFrom('audit_log')
        .select(['request_id', 'action'])
        .where('target_id', '=', response.json().id)
        .executeTakeFirstOrThrow();
      expect(row).toEqual({ request_id: expect.stringMatching(UUID), action: 'roles.create' });
    });
  });

  describe('validation errors (400 SchemaError)', () => {
    // zod's issues whole, as zod 4 writes them (docs/decisions/0076-zod-4.md).
    const GUID = '/^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})$/';
    const cases: Array<{
      name: string;
      method: 'GET' | 'POST';
      url: string;
      payload?: unknown;
      headers?: Record<string, string>;
      issues: unknown[];
    }> = [
      {
        name: 'body',
        method: 'POST',
        url: '/v1/admin/roles',
        payload: { key: 'Bad Key', name: '' },
        issues: [
          {
            code: 'invalid_format',
            format: 'regex',
            origin: 'string',
            pattern: '/^[a-z][a-z0-9_.-]{0,47}$/',
            path: ['key'],
            message: 'key must match ^[a-z][a-z0-9_.-]{0,47}$',
          },
          {
            code: 'too_small',
            path: ['name'],
            message: 'Too small: expected string to have >=1 characters',
            minimum: 1,
            origin: 'string',
            inclusive: true,
          },
        ],
      },
      {
        name: 'body with an unknown key (strict)',
        method: 'POST',
        url: '/v1/admin/roles',
        payload: { key: 'fine', name: 'Fine', is_protected: true },
        issues: [
          {
            code: 'unrecognized_keys',
            keys: ['is_protected'],
            path: [],
            message: 'Unrecognized key: "is_protected"',
          },
        ],
      },
      {
        name: 'empty JSON body on a route requiring one',
        method: 'POST',
        url: '/v1/admin/roles',
        headers: { 'content-type': 'application/json' },
        payload: '',
        issues: [
          {
            code: 'invalid_type',
            expected: 'object',
            path: [],
            message: 'Invalid input: expected object, received null',
          },
        ],
      },
      {
        name: 'query per_page over the maximum',
        method: 'GET',
        url: '/v1/admin/roles?per_page=500',
        issues: [
          {
            code: 'too_big',
            path: ['per_page'],
            message: 'Too big: expected number to be <=100',
            maximum: 100,
            origin: 'number',
            inclusive: true,
          },
        ],
      },
      {
        name: 'query sort outside the allow-list',
        method: 'GET',
        url: '/v1/admin/roles?sort=bogus:asc',
        issues: [
          {
            code: 'invalid_format',
            format: 'regex',
            origin: 'string',
            pattern: '/^(key|name|created_at):(asc|desc)$/',
            path: ['sort'],
            message: 'sort must be one of key:asc|key:desc, name:asc|name:desc, created_at:asc|created_at:desc',
          },
        ],
      },
      {
        name: 'params',
        method: 'GET',
        url: '/v1/admin/roles/not-a-uuid',
        issues: [
          {
            code: 'invalid_format',
            format: 'guid',
            origin: 'string',
            pattern: GUID,
            path: ['id'],
            message: 'Invalid GUID',
          },
        ],
      },
      {
        name: 'headers',
        method: 'GET',
        url: '/test/needs-header',
        headers: { 'x-tenant': 'nope' },
        issues: [
          {
            code: 'invalid_format',
            format: 'guid',
            origin: 'string',
            pattern: GUID,
            path: ['x-tenant'],
            message: 'Invalid GUID',
          },
        ],
      },
    ];

    it.each(cases)('$name', async ({ method, url, payload, headers, issues }) => {
      const response = await expectRefusedUnchanged(
        () => refusalState(t),
        () => t.request({ method, url, payload: payload as never, headers, token: owner.token }),
        400,
        { success: false, error: { name: 'SchemaError', issues } },
      );
      expect(response.json()).toStrictEqual({ success: false, error: { name: 'SchemaError', issues } });
      expectRequestId(response);
    });
  });

  describe('application errors', () => {
    it('has no details key when there are none', async () => {
      const response = await t.request({
        method: 'GET',
        url: '/v1/admin/roles/6f1c1c57-0000-4000-8000-000000000000',
        token: owner.token,
      });
      expect(response.statusCode).toBe(404);
      expect(response.body).toBe('{"error":"not_found"}');
    });

    it('carries details when there are some', async () => {
      const response = await t.request({
        method: 'POST',
        url: '/v1/admin/roles',
        token: owner.token,
        payload: { key: 'owner', name: 'Taken' },
      });
      expect(response.statusCode).toBe(409);
      expect(response.json()).toStrictEqual({ error: 'conflict', details: { reason: 'role key taken', key: 'owner' } });
    });

    it('401 has no details key', async () => {
      const response = await t.request({ method: 'GET', url: '/v1/admin/roles' });
      expect(response.statusCode).toBe(401);
      expect(response.body).toBe('{"error":"missing_token"}');
    });
  });

  describe('unknown routes', () => {
    const cases = [
      { name: 'outside any area', method: 'GET', url: '/nope' },
      { name: 'unknown method on a known path', method: 'DELETE', url: '/health' },
      { name: 'under /v1/admin, no token', method: 'GET', url: '/v1/admin/does-not-exist' },
      { name: 'under /v1/admin, write, no token', method: 'POST', url: '/v1/admin/nothing/here' },
      { name: 'under /v1/me, no token', method: 'GET', url: '/v1/me/nothing' },
    ] as const;

    it.each(cases)('$name → 404 not_found', async ({ method, url }) => {
      const response = await t.request({ method, url });
      expect(response.statusCode).toBe(404);
      expect(response.body).toBe('{"error":"not_found"}');
      expectRequestId(response);
    });

    it('a malformed percent-escape in the path → 400 bad_url in our shape, with a request id', async () => {
      const response = await t.request({ method: 'POST', url: '/v1/me/%zz' });
      expect(response.statusCode).toBe(400);
      expect(response.body).toBe('{"error":"bad_url"}');
      expectRequestId(response);
    });
  });

  describe('bodies that never reach the route', () => {
    const big = JSON.stringify({ key: 'too-big', name: 'Big', description: 'x'.repeat(1024 * 1024) });
    const cases: Array<{
      name: string;
      headers: Record<string, string>;
      payload: string;
      status: number;
      body: unknown;
    }> = [
      {
        name: 'malformed JSON',
        headers: { 'content-type': 'application/json' },
        payload: '{"key": "broken",',
        status: 400,
        body: { error: 'invalid_json' },
      },
      {
        name: 'JSON that is not JSON at all',
        headers: { 'content-type': 'application/json' },
        payload: 'key=broken',
        status: 400,
        body: { error: 'invalid_json' },
      },
      {
        name: 'a __proto__ key',
        headers: { 'content-type': 'application/json' },
        payload: '{"key":"proto-role","name":"P","__proto__":{"is_protected":true}}',
        status: 400,
        body: { error: 'invalid_json' },
      },
      {
        name: 'a constructor.prototype key',
        headers: { 'content-type': 'application/json' },
        payload: '{"key":"ctor-role","name":"C","constructor":{"prototype":{"x":1}}}',
        status: 400,
        body: { error: 'invalid_json' },
      },
      {
        name: 'text/plain',
        headers: { 'content-type': 'text/plain' },
        payload: '{"key":"plain-role","name":"Plain"}',
        status: 415,
        body: { error: 'unsupported_media_type' },
      },
      {
        name: 'form encoded',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'key=form-role&name=Form',
        status: 415,
        body: { error: 'unsupported_media_type' },
      },
      {
        name: 'over 1 MiB',
        headers: { 'content-type': 'application/json' },
        payload: big,
        status: 413,
        body: { error: 'payload_too_large' },
      },
      {
        name: 'JSON in Latin-1',
        headers: { 'content-type': 'application/json; charset=iso-8859-1' },
        payload: '{"key":"latin-role","name":"L"}',
        status: 415,
        body: { error: 'unsupported_media_type', details: { charset: 'utf-8 only' } },
      },
      {
        name: 'JSON in UTF-16',
        headers: { 'content-type': 'application/json;charset="UTF-16"' },
        payload: '{"key":"utf16-role","name":"U"}',
        status: 415,
        body: { error: 'unsupported_media_type', details: { charset: 'utf-8 only' } },
      },
      {
        name: 'parameters that do not parse',
        headers: { 'content-type': 'application/json; charset' },
        payload: '{"key":"bad-param-role","name":"B"}',
        status: 415,
        body: { error: 'unsupported_media_type', details: { charset: 'utf-8 only' } },
      },
      {
        name: 'a media type that only starts like JSON',
        headers: { 'content-type': 'application/jsonx' },
        payload: '{"key":"jsonx-role","name":"X"}',
        status: 415,
        body: { error: 'unsupported_media_type' },
      },
    ];

    it.each(cases)('$name → $status', async ({ headers, payload, status, body }) => {
      const response = await expectRefusedUnchanged(
        () => refusalState(t),
        () => t.request({ method: 'POST', url: '/v1/admin/roles', token: owner.token, headers, payload }),
        status,
        body,
      );
      expect(response.json()).toStrictEqual(body);
      expectRequestId(response);
    });

    it('just under the limit is parsed (and validated)', async () => {
      const payload = JSON.stringify({ key: 'near-limit', name: 'Near', description: 'x'.repeat(1000 * 1000) });
      const response = await t.request({
        method: 'POST',
        url: '/v1/admin/roles',
        token: owner.token,
        headers: { 'content-type': 'application/json' },
        payload,
      });
      expect(response.statusCode).toBe(400);
      expect(response.json().error.issues).toEqual([
        expect.objectContaining({ code: 'too_big', path: ['description'], maximum: 500 }),
      ]);
    });

    // RFC 9110: the media type is case-insensitive, parameters follow `;` with optional whitespace,
    // their names are case-insensitive and their values may be quoted. JSON is UTF-8 (RFC 8259).
    it.each([
      'application/json; charset=utf-8',
      'application/json;charset=UTF-8',
      'application/json ; charset="utf-8"',
      'Application/JSON; Charset=Utf-8',
      'application/json; foo=bar',
      'application/merge-patch+json; charset=utf-8',
    ])('%s is JSON', async (contentType) => {
      const key = `ct-${Math.random().toString(36).slice(2, 10)}`;
      const response = await t.request({
        method: 'POST',
        url: '/v1/admin/roles',
        token: owner.token,
        headers: { 'content-type': contentType },
        payload: JSON.stringify({ key, name: 'Ünïcode' }),
      });
      expect(response.statusCode, response.body).toBe(201);
      const role = await t.db
        .selectFrom('roles')
        .select(['key', 'name'])
        .where('id', '=', response.json().id)
        .executeTakeFirstOrThrow();
      expect(role).toEqual({ key, name: 'Ünïcode' });
    });

    it('a +json media type is JSON', async () => {
      const response = await t.request({
        method: 'POST',
        url: '/v1/admin/roles',
        token: owner.token,
        headers: { 'content-type': 'application/vnd.api+json' },
        payload: '{"key":"vnd-role","name":"Vnd"}',
      });
      expect(response.statusCode).toBe(201);
      const role = await t.db
        .selectFrom('roles')
        .select(['key', 'name'])
        .where('id', '=', response.json().id)
        .executeTakeFirstOrThrow();
      expect(role).toEqual({ key: 'vnd-role', name: 'Vnd' });
    });
  });

  describe('500', () => {
    it('answers {error:"internal"} and nothing else', async () => {
      const response = await t.request({ method: 'GET', url: '/test/boom', headers: { 'x-request-id': 'boom-1' } });
      expect(response.statusCode).toBe(500);
      expect(response.body).toBe('{"error":"internal"}');
      expect(response.headers['x-request-id']).toBe('boom-1');
      const everything = JSON.stringify(response.headers) + response.body;
      for (const leak of ['hunter2', 'postgres://', 'stack', 'Error', 'boom.', 'errors.test'])
        expect(everything).not.toContain(leak);
    });
  });
});

describe('x-request-id on 503 (maintenance)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it('refusals carry one, the inbound one too', async () => {
    const staff = await createUser(t.db, ['ops.panic']);
    const set = await t.request({
      method: 'POST',
      url: '/v1/admin/ops/panic',
      token: staff.token,
      payload: { level: 'lockdown', reason: 'request id test' },
    });
    expect(set.statusCode).toBe(200);

    const fresh = await t.request({ method: 'POST', url: '/v1/me/support', payload: { text: 'hi' } });
    expect(fresh.statusCode).toBe(503);
    expect(fresh.json()).toStrictEqual({ error: 'panic_mode', level: 'lockdown', reason: 'request id test' });
    expect(fresh.headers['retry-after']).toBe('30');
    expectRequestId(fresh);

    const echoed = await t.request({
      method: 'POST',
      url: '/v1/public/waitlist',
      headers: { 'x-request-id': 'lockdown-probe-7' },
      payload: {},
    });
    expect(echoed.statusCode).toBe(503);
    expect(echoed.headers['x-request-id']).toBe('lockdown-probe-7');
  });
});

describe('pagination helper', () => {
  const query = pageQuery(['key', 'created_at'], { field: 'key', direction: 'asc' });

  it('defaults to page 1, 25 per page and the route default sort', () => {
    expect(DEFAULT_PER_PAGE).toBe(25);
    expect(MAX_PER_PAGE).toBe(100);
    expect(query.parse({})).toEqual({ page: 1, per_page: 25, sort: { field: 'key', direction: 'asc' } });
  });

  it('coerces query strings and accepts the bounds', () => {
    expect(query.parse({ page: '3', per_page: '100', q: '  alice ', sort: 'created_at:desc' })).toEqual({
      page: 3,
      per_page: 100,
      q: 'alice',
      sort: { field: 'created_at', direction: 'desc' },
    });
    expect(query.parse({ per_page: '1' }).per_page).toBe(1);
  });

  const refused: Array<{ name: string; input: Record<string, string>; path: string }> = [
    { name: 'per_page over 100', input: { per_page: '101' }, path: 'per_page' },
    { name: 'per_page 0', input: { per_page: '0' }, path: 'per_page' },
    { name: 'page 0', input: { page: '0' }, path: 'page' },
    { name: 'page not a number', input: { page: 'two' }, path: 'page' },
    { name: 'page fractional', input: { page: '1.5' }, path: 'page' },
    { name: 'sort field not allowed', input: { sort: 'email:asc' }, path: 'sort' },
    { name: 'sort direction unknown', input: { sort: 'key:up' }, path: 'sort' },
    { name: 'sort without direction', input: { sort: 'key' }, path: 'sort' },
    { name: 'sort with a suffix', input: { sort: 'key:asc;drop' }, path: 'sort' },
    { name: 'empty q', input: { q: '   ' }, path: 'q' },
  ];

  it.each(refused)('refuses $name', ({ input, path }) => {
    const result = query.safeParse(input);
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((issue) => issue.path)).toEqual([[path]]);
  });

  it('computes offsets and the paged body', () => {
    expect(offsetOf({ page: 1, per_page: 25 })).toBe(0);
    expect(offsetOf({ page: 3, per_page: 10 })).toBe(20);
    expect(paged(['a'], { page: 2, per_page: 1 }, 7)).toEqual({
      data: ['a'],
      meta: { page: 2, per_page: 1, total: 7 },
    });
  });

  it('likePattern escapes %, _ and backslash and wraps in %', () => {
    expect(likePattern('abc')).toBe('%abc%');
    expect(likePattern('50%')).toBe('%50\\%%');
    expect(likePattern('a_b')).toBe('%a\\_b%');
    expect(likePattern('c:\\dir')).toBe('%c:\\\\dir%');
  });

  describe('likePattern on the database', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp();
    });
    afterAll(async () => {
      await t.close();
    });

    it('matches literally inside ILIKE', async () => {
      await t.db
        .insertInto('roles')
        .values([
          { key: 'lit-a', name: '100% sure' },
          { key: 'lit-b', name: '1000 sure' },
          { key: 'lit-c', name: 'under_score' },
          { key: 'lit-d', name: 'underXscore' },
          { key: 'lit-e', name: 'back\\slash' },
          { key: 'lit-f', name: 'backslash' },
        ])
        .execute();
      const match = async (q: string) =>
        (
          await t.db.selectFrom('roles').select('key').where('name', 'ilike', likePattern(q)).orderBy('key').execute()
        ).map((r) => r.key);
      expect(await match('0%')).toEqual(['lit-a']);
      expect(await match('R_S')).toEqual(['lit-c']);
      expect(await match('k\\s')).toEqual(['lit-e']);
      expect(await match('SURE')).toEqual(['lit-a', 'lit-b']);
    });
  });
});
