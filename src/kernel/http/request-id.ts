import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';

const INBOUND_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The log field of a caller's own request id, beside the service's `request_id`. */
export const CLIENT_REQUEST_ID_LOG_LABEL = 'client_request_id';

/**
 * The service's own id of every request (`request.id`): what audit rows, events and log lines
 * record. Never the caller's, or a caller could make its audit entries collide with another's.
 */
export function serviceRequestId(): string {
  return randomUUID();
}

/** A caller's well-formed `x-request-id`, kept for its own correlation only; anything else is ignored. */
export function clientRequestId(request: IncomingMessage): string | undefined {
  const inbound = request.headers['x-request-id'];
  return typeof inbound === 'string' && INBOUND_REQUEST_ID.test(inbound) ? inbound : undefined;
}

/** The answer's `x-request-id`: the caller's own id echoed when it sent one, else the service's. */
export function answeredRequestId(request: FastifyRequest): string {
  return clientRequestId(request.raw) ?? request.id;
}

/**
 * The headers every answer carries, set once as a request starts: its id, and `nosniff` so no
 * browser reads a JSON or text answer as a script or a page.
 */
export function stampAnswer(request: FastifyRequest, reply: FastifyReply): void {
  reply.header('x-request-id', answeredRequestId(request));
  reply.header('x-content-type-options', 'nosniff');
}

/** Each request's log lines carry the caller's id beside the service's, so either finds the other. */
export function requestLogger(
  logger: FastifyBaseLogger,
  bindings: Record<string, unknown>,
  options: object,
  request: IncomingMessage,
): FastifyBaseLogger {
  const client = clientRequestId(request);
  if (client !== undefined) bindings[CLIENT_REQUEST_ID_LOG_LABEL] = client;
  return new RequestLog(logger, bindings, options) as unknown as FastifyBaseLogger;
}

type LogCall = (...args: unknown[]) => void;

/**
 * A request's logger, made into pino's child on its first line. Most answers write none (in
 * production not even the request lines), and making the child was a few microseconds of every
 * request, the largest of the kernel's own costs on `GET /health` (bench profile, issue 45).
 */
class RequestLog {
  #child: FastifyBaseLogger | undefined;

  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly bindings: Record<string, unknown>,
    private readonly options: object,
  ) {}

  get #log(): FastifyBaseLogger {
    this.#child ??= this.parent.child(this.bindings, this.options);
    return this.#child;
  }

  /**
   * Whether a line at this level is written. A line the level filters out makes no child (Fastify
   * writes its per-request lines at info, filtered out below it); a route's own level is the child's.
   */
  #writes(level: string): boolean {
    if (this.#child !== undefined || 'level' in this.options) return true;
    const parent = this.parent as FastifyBaseLogger & { isLevelEnabled?: (level: string) => boolean };
    return parent.isLevelEnabled?.(level) ?? true;
  }

  get level(): string {
    return (this.#child ?? this.parent).level;
  }

  set level(level: string) {
    this.#log.level = level;
  }

  fatal(...args: unknown[]): void {
    if (this.#writes('fatal')) (this.#log.fatal as LogCall)(...args);
  }
  error(...args: unknown[]): void {
    if (this.#writes('error')) (this.#log.error as LogCall)(...args);
  }
  warn(...args: unknown[]): void {
    if (this.#writes('warn')) (this.#log.warn as LogCall)(...args);
  }
  info(...args: unknown[]): void {
    if (this.#writes('info')) (this.#log.info as LogCall)(...args);
  }
  debug(...args: unknown[]): void {
    if (this.#writes('debug')) (this.#log.debug as LogCall)(...args);
  }
  trace(...args: unknown[]): void {
    if (this.#writes('trace')) (this.#log.trace as LogCall)(...args);
  }
  silent(...args: unknown[]): void {
    (this.#log.silent as LogCall)(...args);
  }
  child(bindings: Record<string, unknown>, options?: object): FastifyBaseLogger {
    return this.#log.child(bindings, options);
  }
}
