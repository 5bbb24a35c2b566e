import { sql } from 'kysely';
import { expect } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import { servedRoutes } from './route-table.js';

/**
 * The /v1/me surface as the app itself serves it, and what one user owns in the database:
 * helpers of me-cross-user.test.ts.
 */

type JsonSchema = {
  type?: string | string[];
  description?: string;
  format?: string;
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
};
type Operation = {
  description?: string;
  parameters?: Array<{ in: 'path' | 'query' | 'header'; name: string; schema: JsonSchema }>;
  requestBody?: { content: Record<string, { schema: JsonSchema }> };
};

/** One value a client puts in a request: a path, query or header parameter, or a body property (`a.b` when nested). */
export interface RouteField {
  in: 'path' | 'query' | 'header' | 'body';
  name: string;
  schema: JsonSchema;
}

export interface MeRoute {
  /** `METHOD /path`, with OpenAPI's `{param}`: the key of the test's tables. */
  route: string;
  method: string;
  path: string;
  description: string;
  hasBody: boolean;
  fields: RouteField[];
}

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch'];

export const isMePath = (path: string) => path === '/v1/me' || path.startsWith('/v1/me/');

/** Every property a body schema names, through anyOf/oneOf/allOf, nested objects and arrays of objects. */
function bodyFields(schema: JsonSchema | undefined, prefix = ''): RouteField[] {
  if (schema === undefined) return [];
  const variants = [...(schema.anyOf ?? []), ...(schema.oneOf ?? []), ...(schema.allOf ?? [])].flatMap((variant) =>
    bodyFields(variant, prefix),
  );
  const own = Object.entries(schema.properties ?? {}).flatMap(([name, property]) => {
    const path = `${prefix}${name}`;
    return [
      { in: 'body' as const, name: path, schema: property },
      ...bodyFields(property, `${path}.`),
      ...bodyFields(property.items, `${path}.`),
    ];
  });
  const unique = new Map([...own, ...variants].map((field) => [field.name, field]));
  return [...unique.values()];
}

/** The /v1/me operations of the served OpenAPI document, with every value a client fills. */
export async function documentedMeRoutes(t: TestApp): Promise<MeRoute[]> {
  const response = await t.request({ method: 'GET', url: '/openapi.json' });
  expect(response.statusCode).toBe(200);
  const doc = response.json() as { paths: Record<string, Record<string, Operation>> };
  return Object.entries(doc.paths)
    .filter(([path]) => isMePath(path))
    .flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([method]) => HTTP_METHODS.includes(method))
        .map(([method, op]) => {
          const bodySchemas = Object.values(op.requestBody?.content ?? {}).map((content) => content.schema);
          return {
            route: `${method.toUpperCase()} ${path}`,
            method: method.toUpperCase(),
            path,
            description: op.description ?? '',
            hasBody: bodySchemas.length > 0,
            fields: [
              ...(op.parameters ?? []).map((parameter) => ({
                in: parameter.in,
                name: parameter.name,
                schema: parameter.schema,
              })),
              ...bodySchemas.flatMap((schema) => bodyFields(schema)),
            ],
          };
        }),
    );
}

/** Every `METHOD /path` under /v1/me in Fastify's own route tree (`:id` written `{id}`), documented or not. */
export function servedMeRoutes(t: TestApp): string[] {
  return servedRoutes(t)
    .filter((route) => isMePath(route.path))
    .map((route) => route.route);
}

const ID_LIKE_NAME = /(^|[_.-])(ids?|keys?|codes?|cursor|tokens?)$|[a-z](Ids?|Keys?|Codes?|Cursor|Tokens?)$/;
const isUuid = (schema: JsonSchema | undefined): boolean =>
  schema !== undefined &&
  (schema.format === 'uuid' || isUuid(schema.items) || [...(schema.anyOf ?? []), ...(schema.oneOf ?? [])].some(isUuid));

/** A value that may name a stored object: a path parameter, an id-, key-, code-, cursor- or token-named field, or a uuid. */
export function namesAnObject(field: RouteField): boolean {
  return field.in === 'path' || ID_LIKE_NAME.test(field.name) || isUuid(field.schema);
}

/**
 * Every stored row of a user, as JSON text by table: their `users` row, every row of every table
 * with a `user_id` (found in the catalog, so a new table is included without listing it), the
 * messages of their tickets, and audit rows by them, about them or about any of `objectIds`.
 * `last_seen_at` is left out: it moves with the owner's own requests (at most once a minute).
 */
export async function rowsOfUser(t: TestApp, userId: string, objectIds: string[]): Promise<Record<string, string[]>> {
  const tables = await sql<{ table_name: string }>`
    SELECT table_name FROM information_schema.columns
    WHERE table_schema = current_schema() AND column_name = 'user_id' ORDER BY table_name`.execute(t.db);
  const targets = sql.join([userId, ...objectIds]);
  const selects = [
    ...tables.rows.map(
      ({ table_name: table }) =>
        sql`SELECT ${table} AS source, to_jsonb(x) AS row FROM ${sql.table(table)} x WHERE x.user_id::text = ${userId}`,
    ),
    sql`SELECT 'users', to_jsonb(x) FROM users x WHERE x.id::text = ${userId}`,
    sql`SELECT 'support_messages', to_jsonb(x) FROM support_messages x JOIN support_tickets st ON st.id = x.ticket_id WHERE st.user_id::text = ${userId}`,
    sql`SELECT 'audit_log', to_jsonb(x) FROM audit_log x WHERE x.actor_id::text = ${userId} OR x.target_id IN (${targets})`,
  ];
  const result = await sql<{
    source: string;
    row: Record<string, unknown>;
  }>`${sql.join(selects, sql` UNION ALL `)}`.execute(t.db);
  const rows: Record<string, string[]> = {};
  for (const { source, row } of result.rows) {
    const { last_seen_at: _moves, ...stable } = row;
    rows[source] ??= [];
    rows[source].push(JSON.stringify(stable));
  }
  for (const list of Object.values(rows)) list.sort();
  return rows;
}
