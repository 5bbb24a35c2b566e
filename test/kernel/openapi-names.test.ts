import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { SPEC_OPERATIONS } from '../helpers/spec-operations.js';

type Operation = {
  operationId?: string;
  summary?: string;
  description?: string;
  tags?: string[];
  security?: unknown[];
  responses: Record<string, unknown>;
};
type Document = {
  paths: Record<string, Record<string, Operation>>;
  tags: Array<{ name: string; description: string }>;
  servers: Array<{ url: string }>;
};

describe('the OpenAPI document names and groups every operation', () => {
  let t: TestApp;
  let doc: Document;
  let operations: Array<{ method: string; path: string; op: Operation }>;
  beforeAll(async () => {
    t = await startTestApp();
    doc = (await t.request({ method: 'GET', url: '/openapi.json' })).json() as Document;
    operations = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item).map(([method, op]) => ({ method, path, op })),
    );
  });
  afterAll(() => t.close());

  it('names every operation once, in verb-noun camelCase', () => {
    const unnamed = operations.filter(({ op }) => op.operationId === undefined).map((o) => `${o.method} ${o.path}`);
    expect(unnamed).toEqual([]);
    const ids = operations.map(({ op }) => op.operationId!);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^[a-z]+[A-Z][A-Za-z0-9]*$/);
  });

  it("gives the spec's 21 operations the spec's names", () => {
    const named = Object.fromEntries(operations.map(({ method, path, op }) => [op.operationId, `${method} ${path}`]));
    for (const [id, method, path] of SPEC_OPERATIONS) expect(named[id], id).toBe(`${method.toLowerCase()} ${path}`);
  });

  it('keeps internal numbers and names out of summaries', () => {
    for (const { op } of operations) {
      expect(op.summary ?? '').not.toMatch(/\(operation \d+\)/);
      expect(op.summary ?? '').not.toContain(`(${op.operationId})`);
    }
  });

  it('describes every tag an operation uses, and uses every tag it describes', () => {
    const used = new Set(operations.flatMap(({ op }) => op.tags ?? []));
    const described = doc.tags.map((tag) => tag.name);
    expect(new Set(described)).toEqual(used);
    expect(new Set(described).size).toBe(described.length);
    for (const tag of doc.tags) expect(tag.description, tag.name).toMatch(/^[A-Z].{10,}\.$/);
    for (const { method, path, op } of operations) expect(op.tags, `${method} ${path}`).toHaveLength(1);
  });

  it('marks public operations as needing no token, and names its server', () => {
    const open = (path: string) => !path.startsWith('/v1/admin') && path !== '/v1/me' && !path.startsWith('/v1/me/');
    for (const { method, path, op } of operations)
      expect(op.security, `${method} ${path}`).toEqual(open(path) ? [] : [{ bearerAuth: [] }]);
    expect(doc.servers).toEqual([{ url: '/', description: expect.any(String) }]);
  });

  it('declares every status its prose names, and a 404 wherever a path names a resource', () => {
    for (const { method, path, op } of operations) {
      const where = `${method} ${path}`;
      // "404 `not_found`", "409 `conflict` when…": a status followed by a code in backticks.
      for (const [, status] of (op.description ?? '').matchAll(/\b([1-5]\d\d) `/g))
        expect(Object.keys(op.responses), `${where} names ${status}`).toContain(status);
      if (path.includes('{')) expect(Object.keys(op.responses), where).toContain('404');
    }
  });

  it('says what every answer carries, never "Default Response"', () => {
    for (const { method, path, op } of operations)
      for (const [status, response] of Object.entries(op.responses))
        expect((response as { description: string }).description, `${method} ${path} ${status}`).not.toMatch(
          /^(Default Response)?$/,
        );
  });
});
