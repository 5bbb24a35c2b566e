import { randomUUID } from 'node:crypto';
import type { InjectOptions } from 'fastify';
import { expect } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import type { ZodApp } from '../../src/kernel/http/zod-app.js';

/**
 * The routes the app serves and what each declares, read from the app itself: Fastify's route
 * tree, each route's own `config` (seen by a hook as requests reach it), and the served OpenAPI
 * document. Helpers of the suites in this folder; a route added later is covered without a list.
 */

export type JsonSchema = {
  type?: string | string[];
  description?: string;
  format?: string;
  pattern?: string;
  enum?: unknown[];
  const?: unknown;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  minLength?: number;
  maxLength?: number;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  not?: JsonSchema;
  default?: unknown;
};

export interface Operation {
  /** `METHOD /path`, with OpenAPI's `{param}`. */
  route: string;
  method: string;
  path: string;
  description: string;
  parameters: Array<{ in: 'path' | 'query' | 'header'; name: string; required?: boolean; schema: JsonSchema }>;
  body: JsonSchema | undefined;
}

export interface ServedRoute {
  route: string;
  method: string;
  path: string;
}

export const isAdminPath = (path: string) => path === '/v1/admin' || path.startsWith('/v1/admin/');
export const isMePath = (path: string) => path === '/v1/me' || path.startsWith('/v1/me/');
export const WRITE_METHODS = ['POST', 'PUT', 'PATCH', 'DELETE'];
export const SWITCH_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/** Every `METHOD /path` in Fastify's own route tree (`:id` written `{id}`), documented or not; HEAD kept apart. */
export function servedRoutes(t: TestApp, options: { head?: boolean } = {}): ServedRoute[] {
  const stack: string[] = [];
  const routes: ServedRoute[] = [];
  for (const line of t.app.printRoutes({ commonPrefix: false }).split('\n')) {
    const match = /^((?:│ {3}| {4})*)[├└]── (\S+) \(([^)]+)\)$/.exec(line);
    if (!match) continue;
    stack.length = match[1]!.length / 4;
    stack.push(match[2]!);
    const path = stack.join('').replace(/:(\w+)/g, '{$1}');
    for (const method of match[3]!.split(', ')) {
      if (method === 'HEAD' && !options.head) continue;
      routes.push({ route: `${method} ${path}`, method, path });
    }
  }
  return routes;
}

/** The operations of the served OpenAPI document. */
export async function documentedOperations(t: TestApp): Promise<Map<string, Operation>> {
  const response = await t.request({ method: 'GET', url: '/openapi.json' });
  expect(response.statusCode).toBe(200);
  const doc = response.json() as {
    paths: Record<
      string,
      Record<
        string,
        {
          description?: string;
          parameters?: Operation['parameters'];
          requestBody?: { content: Record<string, { schema: JsonSchema }> };
        }
      >
    >;
  };
  const operations = new Map<string, Operation>();
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (!SWITCH_METHODS.includes(method.toUpperCase())) continue;
      const route = `${method.toUpperCase()} ${path}`;
      operations.set(route, {
        route,
        method: method.toUpperCase(),
        path,
        description: op.description ?? '',
        parameters: op.parameters ?? [],
        body: Object.values(op.requestBody?.content ?? {})[0]?.schema,
      });
    }
  }
  return operations;
}

/** What a route declares in its Fastify `config`, as a request that reached it saw it. */
export interface RouteConfig {
  perms: readonly string[] | undefined;
  rateLimit: string | undefined;
}

/**
 * Records, for every request, which route (if any) Fastify matched and that route's `config`.
 * An `onResponse` hook runs for refusals too (401, 403, 400), so a request without a token is
 * enough to read a route's permission keys from the route itself, not from any list or answer.
 * Pass `extraRoutes` to startTestApp: root hooks are collected at ready, so every route gets it.
 */
export function routeRecorder() {
  const configs = new Map<string, RouteConfig>();
  /** The answer's x-request-id → the route matched (`METHOD /path`), or null when none was (the not-found handler answered). */
  const matched = new Map<string, string | null>();
  return {
    configs,
    matched,
    extraRoutes(app: ZodApp) {
      app.addHook('onResponse', async (request, reply) => {
        const url = request.routeOptions.url;
        const key = url === undefined ? null : `${request.method} ${url.replace(/:(\w+)/g, '{$1}')}`;
        matched.set(String(reply.getHeader('x-request-id') ?? request.id), key);
        if (key !== null)
          configs.set(key, {
            perms: request.routeOptions.config.perms,
            rateLimit: request.routeOptions.config.rateLimit,
          });
      });
    },
    /** The route a response's request reached (by its `x-request-id`). */
    routeOf(response: { headers: Record<string, unknown> }): string | null | undefined {
      return matched.get(String(response.headers['x-request-id']));
    },
  };
}

/** Every object variant a (body) schema allows: itself, or its anyOf/oneOf branches that are objects. */
export function objectVariants(schema: JsonSchema | undefined): JsonSchema[] {
  if (schema === undefined) return [];
  const branches = [...(schema.anyOf ?? []), ...(schema.oneOf ?? [])];
  if (branches.length > 0) return branches.flatMap(objectVariants);
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  return types.includes('object') ? [schema] : [];
}

const PATTERN_CANDIDATES = ['general', 'abc', 'a1', 'a', 'x1', 'launcher', '1', 'ABCDEFGH', 'user@example.test'];

/** A value the schema accepts, naming nothing that exists (a fresh uuid, a large id), for paths, queries and discriminators. */
export function sampleValue(schema: JsonSchema | undefined, name = ''): unknown {
  if (schema === undefined) return 'x';
  if (schema.const !== undefined) return schema.const;
  if (schema.enum !== undefined) return schema.enum[0];
  const branch = [...(schema.anyOf ?? []), ...(schema.oneOf ?? []), ...(schema.allOf ?? [])].find(
    (variant) => variant.not === undefined,
  );
  if (branch !== undefined) return sampleValue(branch, name);
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  if (types.includes('integer') || types.includes('number')) {
    const min = schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : 1);
    return Math.max(min, Math.min(schema.maximum ?? 987_654, 987_654));
  }
  if (types.includes('boolean')) return false;
  if (types.includes('array')) return [];
  if (types.includes('object')) return {};
  if (schema.format === 'uuid') return randomUUID();
  if (schema.format === 'email' || /email/i.test(name)) return `nobody-${randomUUID().slice(0, 8)}@example.test`;
  if (schema.format === 'date-time') return '2030-01-01T00:00:00Z';
  if (schema.format === 'date') return '2030-01-01';
  if (schema.pattern !== undefined) {
    const pattern = new RegExp(schema.pattern);
    const fits = (value: string) =>
      pattern.test(value) && value.length >= (schema.minLength ?? 0) && value.length <= (schema.maxLength ?? Infinity);
    const found = PATTERN_CANDIDATES.find(fits);
    if (found !== undefined) return found;
  }
  return 'x'.repeat(Math.max(1, schema.minLength ?? 1));
}

/** A body of the schema's first object variant with each required property sampled (discriminators get their first value). */
export function sampleBody(schema: JsonSchema | undefined): Record<string, unknown> {
  const variant = objectVariants(schema)[0];
  if (variant === undefined) return {};
  return Object.fromEntries(
    (variant.required ?? []).map((name) => [name, sampleValue(variant.properties?.[name], name)]),
  );
}

/** The URL of an operation with each path parameter filled with a valid value that names nothing. */
export function urlOf(path: string, operation: Operation | undefined): string {
  return path.replace(/\{(\w+)\}/g, (_whole, name: string) => {
    const parameter = operation?.parameters.find((candidate) => candidate.in === 'path' && candidate.name === name);
    return encodeURIComponent(String(sampleValue(parameter?.schema, name)));
  });
}

/** The request an authorised caller makes with nothing but what routing needs: valid path values, an empty JSON body on writes. */
export function minimalRequest(route: ServedRoute, operation: Operation | undefined): InjectOptions {
  const hasBody =
    operation?.body !== undefined ||
    (operation === undefined && WRITE_METHODS.includes(route.method) && route.method !== 'DELETE');
  return {
    method: route.method as InjectOptions['method'],
    url: urlOf(route.path, operation),
    ...(hasBody ? { payload: {} } : {}),
  };
}

/** Every zod issue of a 400 SchemaError body, union branches included. */
export function schemaIssues(body: unknown): Array<{ code: string; path: Array<string | number>; keys?: string[] }> {
  const top = (body as { error?: { name?: string; issues?: unknown[] } }).error;
  if (top?.name !== 'SchemaError' || !Array.isArray(top.issues)) return [];
  const all: Array<{ code: string; path: Array<string | number>; keys?: string[] }> = [];
  const visit = (issue: any, prefix: Array<string | number>) => {
    const path = [...prefix, ...(issue.path ?? [])];
    all.push({ ...issue, path });
    // zod 4 lists a union's branches as arrays of issues whose paths start at the union.
    for (const branch of issue.errors ?? []) for (const inner of branch) visit(inner, path);
  };
  for (const issue of top.issues) visit(issue, []);
  return all;
}
