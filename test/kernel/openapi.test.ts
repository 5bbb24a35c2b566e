import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PERMISSIONS } from '../../src/modules/index.js';
import { startTestApp, type TestApp } from '../helpers/app.js';

type Operation = {
  summary?: string;
  description?: string;
  security?: unknown[];
  parameters?: Array<{ in: string; name: string; required?: boolean; schema: Record<string, unknown> }>;
  requestBody?: { required?: boolean; content: Record<string, { schema: Record<string, any> }> };
  responses: Record<string, { description: string; content?: Record<string, { schema: Record<string, any> }> }>;
};
type OpenApi = {
  openapi: string;
  info: { title: string; version: string };
  paths: Record<string, Record<string, Operation>>;
  components: { securitySchemes: Record<string, unknown>; schemas?: Record<string, Record<string, any>> };
};

/** Every JSON object in `value` (schemas and everything else), depth first. */
function* objectsIn(value: unknown): Generator<Record<string, unknown>> {
  if (Array.isArray(value)) for (const each of value) yield* objectsIn(each);
  else if (typeof value === 'object' && value !== null) {
    yield value as Record<string, unknown>;
    for (const each of Object.values(value)) yield* objectsIn(each);
  }
}

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch'];

/** Every (method, path) Fastify serves, read from its route tree; `:id` becomes `{id}` as in OpenAPI. */
function servedRoutes(tree: string): string[] {
  const stack: string[] = [];
  const routes: string[] = [];
  for (const line of tree.split('\n')) {
    const match = /^((?:│ {3}| {4})*)[├└]── (\S+) \(([^)]+)\)$/.exec(line);
    if (!match) continue;
    const depth = match[1]!.length / 4;
    stack.length = depth;
    stack.push(match[2]!);
    const path = stack.join('').replace(/:(\w+)/g, '{$1}');
    for (const method of match[3]!.split(', ')) if (method !== 'HEAD') routes.push(`${method.toLowerCase()} ${path}`);
  }
  return routes;
}

function areaOf(path: string): 'admin' | 'me' | 'open' {
  if (path.startsWith('/v1/admin')) return 'admin';
  if (path === '/v1/me' || path.startsWith('/v1/me/')) return 'me';
  return 'open';
}

describe('OpenAPI document and /docs', () => {
  let t: TestApp;
  let doc: OpenApi;
  let operations: Array<{ method: string; path: string; op: Operation }>;

  beforeAll(async () => {
    t = await startTestApp();
    const response = await t.request({ method: 'GET', url: '/openapi.json' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.headers['x-request-id']).toEqual(expect.any(String));
    doc = response.json();
    operations = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([method]) => HTTP_METHODS.includes(method))
        .map(([method, op]) => ({ method, path, op })),
    );
  });
  afterAll(async () => {
    await t.close();
  });

  it('is OpenAPI 3.1.0 with the bearer scheme, served without a token', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info).toMatchObject({ title: 'Platform API', version: expect.any(String) });
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'JWT',
    });
  });

  it('documents every route the app serves, and only those', () => {
    const served = servedRoutes(t.app.printRoutes({ commonPrefix: false })).filter(
      // The console's built files at /admin are no API (src/modules/console/app-files.ts).
      (route) => !route.includes(' /docs') && !route.endsWith(' /openapi.json') && !/ \/admin(\/|\*|$)/.test(route),
    );
    const documented = operations.map(({ method, path }) => `${method} ${path}`);
    expect(served.length).toBeGreaterThan(10);
    expect([...documented].sort()).toEqual([...served].sort());
  });

  // The routes of the kernel issue and the permission text each one must show.
  const kernelRoutes: Array<{ method: string; path: string; perm?: string }> = [
    { method: 'get', path: '/health' },
    { method: 'get', path: '/v1/me' },
    { method: 'get', path: '/v1/me/permissions' },
    { method: 'get', path: '/v1/admin/roles', perm: '`roles.read`' },
    { method: 'post', path: '/v1/admin/roles', perm: '`roles.write`' },
    { method: 'get', path: '/v1/admin/roles/{id}', perm: '`roles.read`' },
    { method: 'patch', path: '/v1/admin/roles/{id}', perm: '`roles.write`' },
    { method: 'delete', path: '/v1/admin/roles/{id}', perm: '`roles.write`' },
    { method: 'put', path: '/v1/admin/roles/{id}/permissions', perm: '`roles.write`' },
    { method: 'get', path: '/v1/admin/permissions', perm: '`roles.read`' },
    { method: 'post', path: '/v1/admin/users/bulk/roles', perm: '`roles.assign`' },
    { method: 'get', path: '/v1/admin/ops/panic', perm: '`ops.read` or `ops.panic` (any one)' },
    { method: 'post', path: '/v1/admin/ops/panic', perm: '`ops.panic`' },
    { method: 'get', path: '/v1/admin/audit', perm: '`audit.read`' },
    { method: 'get', path: '/v1/admin/audit/facets', perm: '`audit.read`' },
  ];

  it.each(kernelRoutes)('$method $path is documented with its permission', ({ method, path, perm }) => {
    const op = doc.paths[path]?.[method];
    expect(op, `${method} ${path}`).toBeDefined();
    if (perm) expect(op!.description).toContain(`**Permission:** ${perm}.`);
    else expect(op!.description ?? '').not.toContain('**Permission:**');
  });

  it('every admin operation: bearer auth, its permission keys named, 401/403/500', () => {
    const admin = operations.filter(({ path }) => areaOf(path) === 'admin');
    expect(admin.length).toBeGreaterThanOrEqual(12);
    for (const { method, path, op } of admin) {
      const where = `${method} ${path}`;
      expect(op.security, where).toEqual([{ bearerAuth: [] }]);
      const permission = /\*\*Permission:\*\* ((?:`[^`]+`(?: or )?)+)/.exec(op.description ?? '');
      expect(permission, where).not.toBeNull();
      for (const [, key] of permission![1]!.matchAll(/`([^`]+)`/g))
        expect(PERMISSIONS.keys as readonly string[], where).toContain(key);
      for (const status of ['401', '403', '500']) expect(Object.keys(op.responses), where).toContain(status);
      expect(op.responses['403']!.description, where).toContain('details.perm');
      // The request path's refusals are named components, one type for every client.
      expect(op.responses['401']!.content!['application/json']!.schema).toEqual({
        $ref: '#/components/schemas/UnauthorizedError',
      });
      expect(op.responses['500']!.content!['application/json']!.schema).toEqual({
        $ref: '#/components/schemas/InternalError',
      });
    }
  });

  it('/v1/me operations need a token but no permission; open ones need neither', () => {
    for (const { method, path, op } of operations) {
      const where = `${method} ${path}`;
      expect(Object.keys(op.responses), where).toContain('500');
      // A success answer: a 2xx, the 303 of a form post that sends the browser on, or a WebSocket's 101.
      expect(
        Object.keys(op.responses).some((status) => /^2\d\d$|^303$|^101$/.test(status)),
        where,
      ).toBe(true);
      if (areaOf(path) === 'me') {
        expect(op.security, where).toEqual([{ bearerAuth: [] }]);
        expect(Object.keys(op.responses), where).toEqual(expect.arrayContaining(['401', '403']));
      }
      if (areaOf(path) === 'open') {
        expect(op.security, where).toEqual([]);
        // No token to refuse; a 401 an open route answers is its own (a sign-in code), never the token's.
        expect(JSON.stringify(op.responses['401'] ?? {}), where).not.toContain('UnauthorizedError');
        expect(Object.keys(op.responses), where).not.toContain('403');
      }
    }
  });

  it('operations taking input document the 400 validation body', () => {
    for (const { method, path, op } of operations) {
      const takesInput = (op.parameters?.length ?? 0) > 0 || op.requestBody !== undefined;
      if (!takesInput) continue;
      expect(op.responses['400'], `${method} ${path}`).toBeDefined();
    }
    expect(doc.paths['/v1/admin/roles/{id}']!.get!.responses['400']!.content!['application/json']!.schema).toEqual({
      $ref: '#/components/schemas/ValidationError',
    });
    expect(doc.components.schemas!.UnauthorizedError).toMatchObject({
      required: ['error'],
      properties: { error: { enum: ['missing_token', 'invalid_token', 'invalid_audience'] } },
    });
    expect(doc.components.schemas!.InternalError).toMatchObject({ properties: { error: { enum: ['internal'] } } });
    expect(doc.components.schemas!.ValidationError).toMatchObject({
      required: ['success', 'error'],
      properties: {
        success: { enum: [false] },
        error: {
          properties: { name: { enum: ['SchemaError'] }, issues: { items: { required: ['code', 'path', 'message'] } } },
        },
      },
    });
  });

  it('is generated from the route schemas (bodies, params, queries, responses)', () => {
    const create = doc.paths['/v1/admin/roles']!.post!;
    const body = create.requestBody!.content['application/json']!.schema;
    expect(body).toMatchObject({
      type: 'object',
      required: ['key', 'name'],
      additionalProperties: false,
      properties: {
        key: { type: 'string', pattern: '^[a-z][a-z0-9_.-]{0,47}$' },
        name: { minLength: 1, maxLength: 100 },
        permissions: { maxItems: 200 },
      },
    });
    expect(Object.keys(create.responses)).toContain('201');
    // The created id is the shared `IdResult` component, referenced.
    expect(create.responses['201']!.content!['application/json']!.schema).toEqual({
      $ref: '#/components/schemas/IdResult',
    });
    expect(doc.components.schemas!.IdResult).toMatchObject({ properties: { id: { format: 'uuid' } } });

    expect(doc.paths['/v1/admin/roles/{id}']!.get!.parameters).toEqual([
      expect.objectContaining({
        in: 'path',
        name: 'id',
        required: true,
        schema: expect.objectContaining({ format: 'uuid' }),
      }),
    ]);
    const auditQuery = Object.fromEntries(
      doc.paths['/v1/admin/audit']!.get!.parameters!.filter((p) => p.in === 'query').map((p) => [p.name, p.schema]),
    );
    expect(Object.keys(auditQuery).sort()).toEqual([
      'action',
      'actor_id',
      'from',
      'page',
      'per_page',
      'q',
      'sort',
      'target_id',
      'target_type',
      'to',
    ]);
    expect(auditQuery.actor_id).toMatchObject({ format: 'uuid' });
    expect(auditQuery.per_page).toMatchObject({ maximum: 100, default: 25 });
    expect(Object.keys(doc.paths['/v1/admin/roles/{id}']!.delete!.responses)).toContain('204');
    expect(doc.paths['/v1/admin/ops/panic']!.post!.requestBody!.content['application/json']!.schema).toMatchObject({
      required: ['level', 'reason'],
      properties: { level: { enum: ['off', 'degraded', 'lockdown'] }, reason: { minLength: 3, maxLength: 500 } },
    });
  });

  it('an optional body is optional: no `anyOf` with `{ not: {} }`, and `required: false` where a route takes no body', () => {
    for (const object of objectsIn(doc)) {
      const branches = Array.isArray(object.anyOf) ? (object.anyOf as unknown[]) : [];
      expect(branches.some((branch) => JSON.stringify(branch) === '{"not":{}}')).toBe(false);
    }
    const bodies = operations.filter(({ op }) => op.requestBody !== undefined);
    const optional = bodies
      .filter(({ op }) => op.requestBody!.required === false)
      .map(({ method, path }) => `${method} ${path}`);
    expect(optional).toEqual(
      expect.arrayContaining(['post /v1/me/delete', 'post /v1/admin/support/tickets/{id}/close']),
    );
    expect(optional.length).toBeLessThan(bodies.length);
    expect(doc.paths['/v1/admin/roles']!.post!.requestBody!.required).toBe(true);
    for (const { method, path, op } of bodies) {
      expect(typeof op.requestBody!.required, `${method} ${path}`).toBe('boolean');
      expect(op, `${method} ${path}`).not.toHaveProperty('x-optional-body');
    }
  });

  it('writes exclusive bounds as numbers (OpenAPI 3.1), never as booleans', () => {
    const bounds = [...objectsIn(doc.paths)].flatMap((object) =>
      ['exclusiveMinimum', 'exclusiveMaximum'].filter((key) => key in object).map((key) => object[key]),
    );
    expect(bounds.length).toBeGreaterThan(0);
    for (const bound of bounds) expect(typeof bound).toBe('number');
    const coupon = doc.paths['/v1/admin/billing/coupons']!.post!.requestBody!.content['application/json']!.schema;
    expect(coupon.properties.percent_off).toMatchObject({ type: 'number', exclusiveMinimum: 0, maximum: 100 });
  });

  it('a zod schema registered with an id is one component schema, referenced by `$ref` where it is answered', () => {
    const user = doc.components.schemas?.User;
    expect(user).toMatchObject({
      type: 'object',
      properties: { id: { format: 'uuid' }, roles: { type: 'array' }, credit_balance: { type: 'integer' } },
    });
    expect(user!.required).toEqual(expect.arrayContaining(['id', 'email', 'roles', 'recent_audit']));
    for (const method of ['get', 'patch']) {
      expect(
        doc.paths['/v1/admin/users/{id}']![method]!.responses['200']!.content!['application/json']!.schema,
      ).toEqual({ $ref: '#/components/schemas/User' });
    }
    // Written once: no unused request-side twin (`UserInput`), and no operation copies it inline.
    expect(doc.components.schemas).not.toHaveProperty('UserInput');
    const inlineCopies = [...objectsIn(doc.paths)].filter(
      (object) => JSON.stringify(object.properties) === JSON.stringify(user!.properties),
    );
    expect(inlineCopies).toEqual([]);
  });

  it("a rate limit is documented with the refusal its route gives: 429, or the device token's 400 slow_down", () => {
    expect(doc.paths['/v1/public/waitlist']!.post!.responses['429']).toBeDefined();
    const deviceToken = doc.paths['/v1/public/device/token']!.post!;
    expect(deviceToken.responses['429']).toBeUndefined();
    expect(deviceToken.responses['400']).toBeDefined();
    expect(deviceToken.description).toContain('**Rate limit:** 30 per 60 s per ip.');
  });

  it('staff routes are never documented as refused by maintenance', () => {
    for (const { method, path, op } of operations) {
      if (areaOf(path) === 'admin' || path === '/health')
        expect(JSON.stringify(op.responses['503'] ?? {}), `${method} ${path}`).not.toContain('panic_mode');
    }
  });

  it('/docs answers an HTML page that loads the same document', async () => {
    let response = await t.request({ method: 'GET', url: '/docs' });
    for (let hops = 0; response.statusCode >= 300 && response.statusCode < 400 && hops < 3; hops++) {
      response = await t.request({
        method: 'GET',
        url: new URL(String(response.headers.location), 'http://localhost/docs').pathname,
      });
    }
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/html/);
    expect(response.body).toMatch(/<html/i);
    expect(response.body).toContain('swagger-ui');

    const initializer = await t.request({ method: 'GET', url: '/docs/static/swagger-initializer.js' });
    expect(initializer.statusCode).toBe(200);
    const json = await t.request({ method: 'GET', url: '/docs/json' });
    expect(json.statusCode).toBe(200);
    expect(json.json()).toEqual(doc);
  });
});
