import swagger from '@fastify/swagger';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest, type RouteOptions } from 'fastify';
import fastifyPlugin from 'fastify-plugin';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { routeArea } from './auth.js';
import { isRefusedAt } from './maintenance.js';
import { RATE_LIMITS } from './rate-limits.js';
import { keptAnswer } from './http/compression.js';
import { withAnswerDescriptions } from './openapi-answers.js';
import { applicationErrorOf, ERROR_BODIES, withNamedBodies } from './openapi-bodies.js';

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** A Fastify route schema after the zod transform: `response` is keyed by status code. */
type RouteSchema = { description?: string; response?: Record<string, unknown>; security?: unknown[]; hide?: boolean };

/** Adds what the kernel does to every route: auth, permissions, limits, maintenance and errors. */
function describeKernelBehaviour(route: RouteOptions, operation: RouteSchema): void {
  const url = route.url;
  const methods = Array.isArray(route.method) ? route.method : [route.method];
  const area = routeArea(url);
  operation.response ??= {};
  const responses = operation.response;
  const notes: string[] = [];
  const declaredByRoute = new Set(Object.keys(responses));
  const bodies = new Map<string, { descriptions: string[]; schemas: object[] }>();
  // A status several causes answer (a validation 400 and a route's own 400) declares each body.
  const add = (status: string, description: string, schema: object) => {
    if (declaredByRoute.has(status)) return;
    const body = bodies.get(status) ?? { descriptions: [], schemas: [] };
    // The same body from two causes (the kernel's 413 and a route's own) is declared once.
    if (body.schemas.some((known) => JSON.stringify(known) === JSON.stringify(schema))) return;
    body.descriptions.push(description);
    body.schemas.push(schema);
    bodies.set(status, body);
  };
  if (route.schema && (route.schema.body || route.schema.querystring || route.schema.params || route.schema.headers)) {
    add('400', 'Validation error (SchemaError): `issues` name each refused field.', ERROR_BODIES.validation);
  }
  // Any request that may carry a body meets the body parser, whether or not the route reads one.
  if (methods.some((method) => BODY_METHODS.has(method))) {
    add(
      '400',
      'A body that is not JSON (`invalid_json`), a malformed `Content-Length` or `Content-Type`, or a body the ' +
        'server could not read (`bad_request`).',
      ERROR_BODIES.malformedBody,
    );
    add('413', '`payload_too_large`: the body is larger than the route takes.', ERROR_BODIES.payloadTooLarge);
    add(
      '415',
      '`unsupported_media_type`: a body in a media type or charset the route does not take.',
      ERROR_BODIES.unsupportedMediaType,
    );
    const timedOut =
      '`request_timeout`: the body fell silent or the request took longer than its budget; ' +
      'the connection is closed.';
    add('408', timedOut, ERROR_BODIES.requestTimeout);
  }
  // An open route says so, so a client generator sends it no token.
  operation.security = area === 'open' ? [] : [{ bearerAuth: [] }];
  if (area !== 'open') {
    add('401', '`missing_token`, `invalid_token` or `invalid_audience`.', ERROR_BODIES.unauthorized);
    add(
      '403',
      area === 'admin'
        ? '`forbidden`: `details.perm` names the permission(s) required; or the account is banned/deleted ' +
            '(`details.reason`).'
        : route.config?.staff === true
          ? '`forbidden`: the caller holds no permission key (`details.reason` `staff_only`), or the account is ' +
            'banned or deleted (`details.reason`).'
          : '`forbidden`: the account is banned or deleted (`details.reason`).',
      ERROR_BODIES.forbidden,
    );
  }
  if (route.config?.staff === true) notes.push('**Permission:** any permission key (staff only).');
  const perms = route.config?.perms;
  if (perms && perms.length > 0) {
    notes.push(`**Permission:** ${perms.map((p) => `\`${p}\``).join(' or ')}${perms.length > 1 ? ' (any one)' : ''}.`);
  }
  const limit = route.config?.rateLimit;
  if (limit) {
    const rule = RATE_LIMITS[limit];
    notes.push(`**Rate limit:** ${rule.limit} per ${rule.windowSeconds} s per ${rule.keyedBy}.`);
    // A limit may answer in its route's own dialect (OAuth's 400 `slow_down`), never both.
    const refusal = 'refusal' in rule ? rule.refusal : undefined;
    if (refusal === undefined) add('429', '`rate_limited`, with `Retry-After` seconds.', ERROR_BODIES.rateLimited);
    else
      add(
        String(refusal.status),
        `\`${refusal.error}\` past the rate limit, with \`Retry-After\` seconds.`,
        applicationErrorOf([refusal.error]),
      );
  }
  if (methods.some((m) => isRefusedAt('lockdown', m, url))) {
    const degraded = methods.some((m) => isRefusedAt('degraded', m, url));
    notes.push(`**Maintenance:** refused in ${degraded ? '`degraded` and `lockdown`' : '`lockdown`'}.`);
    add('503', '`panic_mode` maintenance refusal, with `Retry-After: 30`.', ERROR_BODIES.maintenance);
  }
  add(
    '503',
    '`unavailable`: this instance cannot serve it now (`details.reason`: `overloaded`, retry after 1 s; ' +
      '`database_unavailable`, retry after 5 s), with `Retry-After`.',
    ERROR_BODIES.unavailable,
  );
  for (const [status, codes] of Object.entries(route.config?.errors ?? {})) {
    const listed = codes.map((code) => `\`${code}\``).join(', ');
    add(status, `${listed}.`, applicationErrorOf(codes));
  }
  add('500', '`internal`: a bug; quote the `x-request-id` header.', ERROR_BODIES.internal);
  for (const [status, { descriptions, schemas }] of bodies) {
    const description = descriptions.join(' ');
    responses[status] = schemas.length === 1 ? { description, ...schemas[0] } : { description, anyOf: schemas };
  }
  if (notes.length > 0) operation.description = [operation.description, ...notes].filter(Boolean).join('\n\n');
}

/** Marks an operation whose body may be left out, for `withOptionalBodies` (an `x-` key: swagger copies it over). */
const OPTIONAL_BODY = 'x-optional-body';

/** Whether the route's body schema takes no body at all (`.optional()`, `.nullish()`). */
function bodyMayBeAbsent(route: RouteOptions): boolean {
  const body = route.schema?.body;
  return body instanceof z.core.$ZodType && z.safeParse(body, undefined).success;
}

/** The parts of the document read here. */
interface OpenApiDocument {
  paths?: Record<string, Record<string, unknown>>;
  components?: { schemas?: Record<string, unknown> };
}
type Operation = { requestBody?: { required?: boolean }; [OPTIONAL_BODY]?: boolean };

/**
 * @fastify/swagger writes `requestBody.required: true` for every route with a body schema; a body
 * the route's schema lets a client leave out is said to be optional instead.
 */
function withOptionalBodies(document: OpenApiDocument): void {
  for (const item of Object.values(document.paths ?? {})) {
    for (const operation of Object.values(item) as Operation[]) {
      if (typeof operation !== 'object' || operation === null || !operation[OPTIONAL_BODY]) continue;
      delete operation[OPTIONAL_BODY];
      if (operation.requestBody) operation.requestBody.required = false;
    }
  }
}

const SCHEMA_REF = '#/components/schemas/';

/** The component schemas `value` refers to by `$ref`, directly. */
function schemaRefsIn(value: unknown, into: string[] = []): string[] {
  if (Array.isArray(value)) for (const each of value) schemaRefsIn(each, into);
  else if (typeof value === 'object' && value !== null) {
    for (const [key, each] of Object.entries(value)) {
      if (key === '$ref' && typeof each === 'string' && each.startsWith(SCHEMA_REF))
        into.push(each.slice(SCHEMA_REF.length));
      else schemaRefsIn(each, into);
    }
  }
  return into;
}

/**
 * The component schemas of the zod schemas registered with an id (`.meta({ id: 'User' })`), less
 * those no operation reaches: fastify-type-provider-zod writes each registered schema twice, as an
 * answer (`User`) and as a request body (`UserInput`), whether or not a route takes it as one.
 */
function withNamedSchemas(document: OpenApiDocument): OpenApiDocument {
  const own = new Set(Object.keys(document.components?.schemas ?? {}));
  const named = jsonSchemaTransformObject({ openapiObject: document } as never) as OpenApiDocument;
  const schemas = named.components?.schemas ?? {};
  const reached = new Set<string>();
  const pending = schemaRefsIn(named.paths);
  for (let name = pending.pop(); name !== undefined; name = pending.pop()) {
    if (reached.has(name)) continue;
    reached.add(name);
    schemaRefsIn(schemas[name], pending);
  }
  for (const name of Object.keys(schemas)) if (!own.has(name) && !reached.has(name)) delete schemas[name];
  return named;
}

/**
 * Component schemas by name: zod's registry lists them in the order modules were first imported,
 * which differs between a service and a test run that imported some module earlier; sorted, the
 * document is the same whoever builds it.
 */
function withSortedSchemas(document: OpenApiDocument): OpenApiDocument {
  const schemas = document.components?.schemas;
  if (schemas === undefined) return document;
  const sorted = Object.fromEntries(Object.entries(schemas).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return { ...document, components: { ...document.components, schemas: sorted } };
}

/**
 * Swagger UI's own policy: its bundle, stylesheet and initializer are files of this origin (no
 * inline code), it reads /openapi.json and tries operations on this origin; never framed. Its
 * bundle adds one fixed <style> element, allowed by its hash (test/kernel/docs-ui.test.ts fails
 * in Chromium if an upgrade changes it).
 */
export const DOCS_CONTENT_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'sha256-RL3ie0nH+Lzz2YNqQN83mnU0J1ot4QL7b99vMdIX99w='",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "object-src 'none'",
].join('; ');

export async function installOpenApi(
  app: FastifyInstance,
  tags: Array<{ name: string; description: string }>,
  { docsUi }: { docsUi: boolean },
): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Platform API',
        version: '1.0.0',
        license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
        description:
          'Accounts, billing, site content and staff administration. Every response carries `x-request-id`. ' +
          ('Errors: `{ error, details? }`; validation errors: `{ success: false, error: { name: "SchemaError", ' +
            'issues } }`. ') +
          'Any operation may answer 503 `unavailable` with `Retry-After` when this instance cannot serve it now: ' +
          '`details.reason` `overloaded` (too many requests or anonymous uploads under way, or no database ' +
          'session free in time; retry after 1 s) or `database_unavailable` (retry after 5 s). ' +
          'A client too slow to send its request (headers, a body fallen silent, the whole request past its budget) ' +
          'is answered 408 `request_timeout` and its connection closed.\n\n' +
          'Paged lists answer `{ data, meta }` with `meta` a `PageMeta` (`page`, `per_page`, `total`; asked for ' +
          'with `page` and `per_page`), to which a list may add list-wide counts such as `unread`. The spec fixes ' +
          'a few other shapes: `CursorPageMeta` (`limit`, `next_cursor`) for the runtime session lists, no total ' +
          "for the player's credit ledger, `limit` and `offset` for storage browsing and a bare array for the " +
          'public products, while small bounded sets such as runtime nodes or cron jobs answer `{ data }` alone.',
      },
      // Relative: the document is served by the instance it describes, wherever that is reached.
      servers: [{ url: '/', description: 'The instance serving this document' }],
      tags,
      components: {
        securitySchemes: {
          bearerAuth: {
            type: 'http',
            scheme: 'bearer',
            bearerFormat: 'JWT',
            description: 'Access token from the identity provider (`aud: authenticated`).',
          },
        },
      },
    },
    transform: (input) => {
      const transformed = jsonSchemaTransform(input as Parameters<typeof jsonSchemaTransform>[0]);
      // A route without a schema (a test's probe) is listed as it is.
      const schema = transformed.schema as RouteSchema | undefined;
      if (schema !== undefined && !schema.hide && input.route) {
        const route = input.route as RouteOptions;
        describeKernelBehaviour(route, schema);
        if (bodyMayBeAbsent(route)) (schema as Operation)[OPTIONAL_BODY] = true;
      }
      return transformed;
    },
    transformObject: (input) => {
      const document = withNamedSchemas((input as { openapiObject: OpenApiDocument }).openapiObject);
      withOptionalBodies(document);
      withNamedBodies(document as Parameters<typeof withNamedBodies>[0]);
      withAnswerDescriptions(document);
      return withSortedSchemas(document);
    },
  });
  if (docsUi) registerDocsUi(app);
  // 1.7 MB of JSON: kept as its text and compressed once per encoding, not per request.
  app.get(
    '/openapi.json',
    { schema: { hide: true }, compress: false },
    keptAnswer(() => JSON.stringify(app.swagger())),
  );
}

/** Headers of the docs app's answer that describe its own connection or body, not the answer. */
const HOP_HEADERS = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'date']);

/**
 * /docs (Swagger UI), loaded when first asked for: @fastify/swagger-ui and @fastify/static cost a
 * start about 40 ms of CPU that few instances ever use. Routes cannot be added to a running app,
 * so the UI runs in an app of its own, never listening, that reads this app's document; /docs and
 * everything under it are handed to it and its answers sent as they are (its policy header
 * included), through this app's hooks (request id, compression) like any other answer.
 */
function registerDocsUi(app: FastifyInstance): void {
  let docsApp: Promise<FastifyInstance> | undefined;
  const buildDocsApp = async () => {
    const { default: swaggerUi } = await import('@fastify/swagger-ui');
    const docs = Fastify({ logger: false, routerOptions: { ignoreTrailingSlash: true } });
    // Swagger UI needs @fastify/swagger's plugin and serves /docs/json from its `swagger`
    // decorator: here both stand for this app's.
    await docs.register(
      fastifyPlugin(
        async (instance) => {
          instance.decorate('swagger', ((options?: { yaml?: boolean }) => app.swagger(options as never)) as never);
        },
        { name: '@fastify/swagger' },
      ),
    );
    await docs.register(swaggerUi, { routePrefix: '/docs', staticCSP: DOCS_CONTENT_POLICY });
    await docs.ready();
    return docs;
  };
  const handOver = async (request: FastifyRequest, reply: FastifyReply) => {
    docsApp ??= buildDocsApp();
    const answer = await (await docsApp).inject({
      method: request.method as 'GET' | 'HEAD',
      url: request.url,
      headers: request.headers,
    });
    // Not the UI's: this app's own 404, as for any path it does not serve.
    if (answer.statusCode === 404) return reply.callNotFound();
    for (const [name, value] of Object.entries(answer.headers)) {
      if (!HOP_HEADERS.has(name.toLowerCase()) && value !== undefined) void reply.header(name, value);
    }
    return reply.code(answer.statusCode).send(answer.rawPayload);
  };
  app.get('/docs', { schema: { hide: true } }, handOver);
  app.get('/docs/*', { schema: { hide: true } }, handOver);
}
