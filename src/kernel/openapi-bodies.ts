import { UNAUTHORIZED_CODES } from './errors.js';

/**
 * The error bodies the request path answers on every route, each named once under
 * `components.schemas` of the OpenAPI document and referred to by `$ref` (a client gets one
 * `UnauthorizedError` type, not two hundred copies). A route's own codes stay inline: their enum
 * differs from route to route.
 */

const COMPONENT = 'x-component';

/** A body the document names: `withNamedBodies` moves it under components.schemas. */
const named = <T extends object>(name: string, schema: T) => ({ [COMPONENT]: name, ...schema });

const applicationError = {
  type: 'object',
  required: ['error'],
  properties: {
    error: { type: 'string', description: 'Stable error code.' },
    details: { description: 'Structured detail; omitted when there is none.' },
  },
};

/** The application error body whose `error` is one of a route's codes. */
export const applicationErrorOf = (codes: readonly string[]) => ({
  ...applicationError,
  properties: { ...applicationError.properties, error: { type: 'string', enum: [...codes] } },
});

const validationError = {
  type: 'object',
  required: ['success', 'error'],
  properties: {
    success: { const: false },
    error: {
      type: 'object',
      required: ['name', 'issues'],
      properties: {
        name: { const: 'SchemaError' },
        issues: {
          type: 'array',
          items: {
            type: 'object',
            required: ['code', 'path', 'message'],
            properties: {
              code: { type: 'string', description: "zod's issue code (`invalid_type`, `too_small`, …)." },
              path: { type: 'array', items: { type: ['string', 'number'] } },
              message: { type: 'string' },
            },
          },
        },
      },
    },
  },
};

const maintenanceError = {
  type: 'object',
  required: ['error', 'level', 'reason'],
  properties: {
    error: { const: 'panic_mode' },
    level: { enum: ['degraded', 'lockdown'] },
    reason: { type: ['string', 'null'] },
  },
};

export const ERROR_BODIES = {
  validation: named('ValidationError', validationError),
  maintenance: named('MaintenanceError', maintenanceError),
  internal: named('InternalError', {
    type: 'object',
    required: ['error'],
    properties: { error: { const: 'internal' } },
  }),
  unauthorized: named('UnauthorizedError', applicationErrorOf(UNAUTHORIZED_CODES)),
  forbidden: named('ForbiddenError', applicationErrorOf(['forbidden'])),
  malformedBody: named(
    'MalformedBodyError',
    applicationErrorOf(['invalid_json', 'invalid_content_length', 'invalid_content_type', 'bad_request']),
  ),
  payloadTooLarge: named('PayloadTooLargeError', applicationErrorOf(['payload_too_large'])),
  unsupportedMediaType: named('UnsupportedMediaTypeError', applicationErrorOf(['unsupported_media_type'])),
  requestTimeout: named('RequestTimeoutError', applicationErrorOf(['request_timeout'])),
  rateLimited: named('RateLimitedError', applicationErrorOf(['rate_limited'])),
  unavailable: named('UnavailableError', applicationErrorOf(['unavailable'])),
};

type Node = Record<string, unknown>;
interface Document {
  paths?: Record<
    string,
    Record<string, { responses?: Record<string, { content?: Record<string, { schema?: Node }> }> }>
  >;
  components?: { schemas?: Record<string, unknown> };
}

/** Moves every named body under components.schemas and puts a `$ref` where it stood. */
export function withNamedBodies(document: Document): void {
  document.components ??= {};
  document.components.schemas ??= {};
  const schemas = document.components.schemas;
  const referenced = (node: Node): Node => {
    const { [COMPONENT]: name, description: _description, ...schema } = node;
    if (typeof name !== 'string') return node;
    schemas[name] ??= schema;
    return { $ref: `#/components/schemas/${name}` };
  };
  for (const item of Object.values(document.paths ?? {}))
    for (const operation of Object.values(item))
      for (const response of Object.values(operation.responses ?? {}))
        for (const media of Object.values(response.content ?? {})) {
          const schema = media.schema;
          if (schema === undefined) continue;
          if (Array.isArray(schema.anyOf)) schema.anyOf = (schema.anyOf as Node[]).map(referenced);
          else media.schema = referenced(schema);
        }
}
