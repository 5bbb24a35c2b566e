import { validateHeaderName, validateHeaderValue } from 'node:http';
import type {
  FastifyError,
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  onRequestHookHandler,
  onResponseHookHandler,
  preParsingHookHandler,
} from 'fastify';
import type { z } from 'zod';
import { databaseFailureOf } from '../db/failures.js';

/**
 * A domain error: services throw these and never see HTTP; the kernel's error handler alone
 * turns them into a status and the spec's application-error body `{ error, details? }`.
 */
export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly details?: unknown,
    /** Extra response headers (Retry-After on 429 and 503). */
    readonly headers?: Record<string, string>,
  ) {
    // An answer, not a bug: capturing a stack trace costs about 18 µs of each 429 and 503, more
    // than the rest of such a refusal (`npm run bench -- --skip-build --cpu-prof --only 429`).
    // Unexpected errors keep their stacks.
    const stackTraceLimit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(code);
    Error.stackTraceLimit = stackTraceLimit;
    this.name = 'AppError';
  }

  /** The response body; subclasses with a documented shape of their own override it. */
  toBody(): unknown {
    return applicationErrorBody(this.code, this.details);
  }

  /**
   * The body as JSON text, for a refusal answered to many requests as one instance (the
   * maintenance gate's): kept once, written as it is. Undefined: serialized per answer.
   */
  keptText(): string | undefined {
    return undefined;
  }
}

export const notFound = (code = 'not_found', details?: unknown) => new AppError(404, code, details);
export const forbidden = (details: Record<string, unknown>) => new AppError(403, 'forbidden', details);
export const conflict = (details?: unknown) => new AppError(409, 'conflict', details);
export const invalidRequest = (details?: unknown) => new AppError(422, 'invalid_request', details);
export const invalidState = (details?: unknown) => new AppError(422, 'invalid_state', details);
/** 503 `unavailable`: an outside service (the Runtime) could not be reached or could not do it; retry later. */
export const unavailable = (details?: unknown, retryAfterSeconds = 5) =>
  new AppError(503, 'unavailable', details, { 'retry-after': String(retryAfterSeconds) });
/**
 * 503 `unavailable` with `details.reason: 'overloaded'`: this instance has more work under way than
 * it can finish in time (requests in flight, or no pooled database session free). A burst past
 * capacity is usually over within a second: `Retry-After: 1`.
 */
export const overloaded = () => unavailable({ reason: 'overloaded' }, 1);
/** 502 `auth_service_error`: the identity provider refused or failed a call this route needed. */
export const authServiceError = (details?: unknown) => new AppError(502, 'auth_service_error', details);
/** Every code a 401 carries (the OpenAPI document declares these). */
export const UNAUTHORIZED_CODES = ['missing_token', 'invalid_token', 'invalid_audience'] as const;
export const unauthorized = (code: (typeof UNAUTHORIZED_CODES)[number]) => new AppError(401, code);

export function applicationErrorBody(code: string, details?: unknown): { error: string; details?: unknown } {
  return details === undefined ? { error: code } : { error: code, details };
}

/** The spec's validation body, produced for body, query, params and headers alike. */
export function schemaErrorBody(issues: z.core.$ZodIssue[]) {
  return { success: false as const, error: { name: 'SchemaError' as const, issues } };
}

/** A validator's verdict carries the zod issue itself so the body shows zod's own fields. */
export interface ZodValidationEntry {
  params: { issue: z.core.$ZodIssue };
  message: string;
}

function isZodValidation(error: FastifyError): error is FastifyError & { validation: ZodValidationEntry[] } {
  const entries = error.validation as unknown;
  return (
    Array.isArray(entries) && entries.length > 0 && entries.every((entry) => typeof entry?.params?.issue === 'object')
  );
}

/** Fastify's own 4xx (body parsing, content type, size) mapped to stable, documented codes. */
const FASTIFY_CLIENT_ERRORS: Record<string, { status: number; code: string }> = {
  FST_ERR_CTP_INVALID_JSON_BODY: { status: 400, code: 'invalid_json' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { status: 400, code: 'invalid_json' },
  FST_ERR_CTP_BODY_TOO_LARGE: { status: 413, code: 'payload_too_large' },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { status: 415, code: 'unsupported_media_type' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { status: 400, code: 'invalid_content_length' },
  FST_ERR_CTP_INVALID_TYPE: { status: 400, code: 'invalid_content_type' },
  FST_ERR_BAD_URL: { status: 400, code: 'bad_url' },
  FST_ERR_ASYNC_CONSTRAINT: { status: 400, code: 'bad_request' },
};

/** An application error's answer: its status, headers and body (kept text when it has one). */
export function sendAppError(reply: FastifyReply, error: AppError) {
  if (error.headers) reply.headers(error.headers);
  reply.code(error.status);
  const text = error.keptText();
  if (text === undefined) return reply.send(error.toBody());
  return reply.type('application/json; charset=utf-8').send(text);
}

/** What Node's writeHead raises for a header it cannot write (a CR, LF or non-Latin-1 character). */
const HEADER_WRITE_ERRORS = new Set(['ERR_INVALID_CHAR', 'ERR_HTTP_INVALID_HEADER_VALUE', 'ERR_INVALID_HTTP_TOKEN']);

/**
 * Node refuses a header only when the answer is written, after the route returned, and the error
 * answer carries the reply's headers again: it failed the same way, and Fastify's last-resort
 * handler wrote its own body with no headers at all (no `x-request-id`). The headers it cannot
 * write are dropped, and the failed answer's status text with them, so this answer goes out.
 */
function dropUnwritableHeaders(reply: FastifyReply): void {
  for (const [name, value] of Object.entries(reply.getHeaders())) {
    try {
      validateHeaderName(name);
      for (const each of Array.isArray(value) ? value : [value]) {
        if (each !== undefined) validateHeaderValue(name, String(each));
      }
    } catch {
      reply.removeHeader(name);
    }
  }
  reply.raw.statusMessage = '';
}

export function handleError(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  if (error.code !== undefined && HEADER_WRITE_ERRORS.has(error.code)) dropUnwritableHeaders(reply);
  if (error instanceof AppError) return sendAppError(reply, error);
  if (isZodValidation(error)) {
    return reply
      .code(400)
      .send(schemaErrorBody((error.validation as ZodValidationEntry[]).map((entry) => entry.params.issue)));
  }
  const known = error.code ? FASTIFY_CLIENT_ERRORS[error.code] : undefined;
  if (known) return reply.code(known.status).send(applicationErrorBody(known.code));
  if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500) {
    return reply.code(error.statusCode).send(applicationErrorBody('bad_request'));
  }
  const databaseFailure = databaseFailureOf(error);
  if (databaseFailure !== undefined) {
    // Not a bug of ours and not the caller's: the database is away or too slow, or every pooled
    // session stayed busy. Say so, so clients and load balancers retry, and log it (without the
    // query or its values) for the operator.
    // A SQLSTATE names the failure; only a connection-level error (which has none) needs its message.
    const sqlstate = typeof error.code === 'string' && /^[0-9A-Z]{5}$/.test(error.code);
    const told = sqlstate ? { code: error.code } : { code: error.code, message: error.message };
    request.log.warn({ database: told }, `database ${databaseFailure}`);
    const refusal = databaseFailure === 'busy' ? overloaded() : unavailable({ reason: 'database_unavailable' });
    return sendAppError(reply, refusal);
  }
  // Anything else is a bug: log it with the request id, answer nothing about it.
  request.log.error({ err: error }, 'unhandled error');
  return reply.code(500).send({ error: 'internal' });
}

export function installErrorHandling(app: FastifyInstance) {
  app.setErrorHandler(handleError);
}

/** The hooks the 404 handler runs besides the global ones: it is no route, so no onRoute hook sees it. */
export interface NotFoundHooks {
  onRequest: onRequestHookHandler;
  onResponse: onResponseHookHandler;
  preParsing: preParsingHookHandler;
}

/**
 * The 404 answer, with the request path's hooks. Fastify's options of this handler are typed for
 * preValidation and preHandler only, but it runs every lifecycle hook it is given (its
 * four-oh-four.js); the request-id and slow-client tests cover the 404's.
 */
export function installNotFoundHandler(app: FastifyInstance, hooks: NotFoundHooks) {
  app.setNotFoundHandler(hooks as never, (_request, reply) => reply.code(404).send(applicationErrorBody('not_found')));
}
