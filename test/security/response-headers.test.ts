import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';

/**
 * What a browser needs on every answer, asked for as an outsider would: `nosniff` everywhere (so
 * no JSON or text answer is read as a script or a page), and for the API reference at /docs a
 * Content-Security-Policy that forbids framing; /docs can be turned off (DOCS_UI=off).
 */

const ORIGIN = 'https://admin.example.test';

describe('headers of every answer', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ config: { corsOrigins: [ORIGIN], production: true } });
  });
  afterAll(async () => {
    await t.close();
  });

  const answers: Array<{ name: string; status: number; request: InjectOptions }> = [
    { name: 'a health probe', status: 200, request: { method: 'GET', url: '/health' } },
    { name: 'a public JSON read', status: 200, request: { method: 'GET', url: '/v1/public/site' } },
    { name: 'the OpenAPI document', status: 200, request: { method: 'GET', url: '/openapi.json' } },
    { name: 'a refusal without a token', status: 401, request: { method: 'GET', url: '/v1/admin/roles' } },
    { name: 'an unknown path', status: 404, request: { method: 'GET', url: '/v1/nothing-here' } },
    { name: 'a malformed URL', status: 400, request: { method: 'GET', url: '/v1/public/store/games/%E0%A4%A' } },
    {
      name: 'a CORS preflight',
      status: 204,
      request: {
        method: 'OPTIONS',
        url: '/v1/me',
        headers: { origin: ORIGIN, 'access-control-request-method': 'GET' },
      },
    },
    { name: 'the docs page', status: 200, request: { method: 'GET', url: '/docs' } },
    { name: "the docs' script", status: 200, request: { method: 'GET', url: '/docs/static/swagger-ui-bundle.js' } },
  ];

  it.each(answers)('$name ($status) says nosniff', async ({ status, request }) => {
    const response = await t.request(request);
    expect(response.statusCode).toBe(status);
    expect(response.headers['x-content-type-options']).toBe('nosniff');
  });

  it('/docs, in production too, carries a policy that forbids framing, inline scripts and other origins', async () => {
    for (const url of ['/docs', '/docs/', '/docs/static/swagger-initializer.js']) {
      const response = await t.request({ method: 'GET', url });
      const policy = String(response.headers['content-security-policy']);
      expect(policy, url).toContain("frame-ancestors 'none'");
      expect(policy, url).toContain("default-src 'none'");
      expect(policy, url).toContain("script-src 'self';");
      expect(policy, url).not.toContain('unsafe');
    }
  });
});

describe('DOCS_UI=off', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ config: { docsUi: false } });
  });
  afterAll(async () => {
    await t.close();
  });

  it('serves no /docs; the OpenAPI document stays', async () => {
    for (const url of ['/docs', '/docs/', '/docs/static/swagger-ui-bundle.js']) {
      const response = await t.request({ method: 'GET', url });
      expect(response.statusCode, url).toBe(404);
      expect(response.json()).toEqual({ error: 'not_found' });
    }
    expect((await t.request({ method: 'GET', url: '/openapi.json' })).statusCode).toBe(200);
  });
});
