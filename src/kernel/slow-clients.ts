import { randomUUID } from 'node:crypto';
import type { ServerOptions } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import { routeArea } from './auth.js';
import { AppError } from './errors.js';

/**
 * Clients that hold the service's resources without using them: a connection that never finishes
 * its headers, a body that stops arriving, an anonymous crowd of uploads in progress. Each is
 * bounded so that a slow or hostile client costs a bounded share of an instance, never all of it.
 *
 * - Headers must arrive within `REQUEST_HEADERS_TIMEOUT_SECONDS` and a whole request within
 *   `REQUEST_TIMEOUT_SECONDS` (Node's own timers, checked every second): 408 and the connection closed.
 * - A body may fall silent for at most `REQUEST_BODY_TIMEOUT_SECONDS`: 408 through the error
 *   handler (with `x-request-id`), and the connection closed (the rest of the body is never read).
 * - Bodies of routes open without a token still arriving: at most `MAX_ANONYMOUS_UPLOADS` at once;
 *   past it, 503 `overloaded` before the body is read. Signed-in uploads are the caller's own, and
 *   bounded by the timeouts.
 */

/** How often Node looks for connections past their headers or request budget (its default is 30 s). */
const TIMEOUT_CHECK_INTERVAL_MS = 1_000;
const CLOSE = { connection: 'close' };

/** The 408: the client was too slow to send its request. */
export const requestTimedOut = () => new AppError(408, 'request_timeout', undefined, CLOSE);

/** Options of the HTTP server itself: Node's header and request budgets, checked every second. */
export function serverTimeouts(config: Pick<Config, 'requestHeadersTimeoutSeconds' | 'requestTimeoutSeconds'>): { http: ServerOptions; requestTimeout: number } {
  return {
    http: { headersTimeout: config.requestHeadersTimeoutSeconds * 1_000, connectionsCheckingInterval: TIMEOUT_CHECK_INTERVAL_MS },
    requestTimeout: config.requestTimeoutSeconds * 1_000,
  };
}

const CLIENT_ERRORS: Record<string, { status: number; text: string; error: string }> = {
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, text: 'Request Timeout', error: 'request_timeout' },
  HPE_HEADER_OVERFLOW: { status: 431, text: 'Request Header Fields Too Large', error: 'headers_too_large' },
};

/**
 * What Node's parser and timers refuse before any request exists (a malformed request line,
 * headers too large, a request past its budget) gets the service's error body and an
 * `x-request-id` too, then the connection is closed. A reset connection has no one to answer.
 */
export function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const known = (error.code !== undefined ? CLIENT_ERRORS[error.code] : undefined) ?? { status: 400, text: 'Bad Request', error: 'bad_request' };
  const body = JSON.stringify({ error: known.error });
  if (socket.writable) {
    socket.write(`HTTP/1.1 ${known.status} ${known.text}\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\n`
      + `x-request-id: ${randomUUID()}\r\nconnection: close\r\n\r\n${body}`);
  }
  socket.destroy();
}

/** Uploads in progress on routes open without a token, in this process. */
export class AnonymousUploads {
  #inProgress = 0;

  constructor(readonly max: number) {}

  get inProgress(): number {
    return this.#inProgress;
  }

  tryEnter(): boolean {
    if (this.max > 0 && this.#inProgress >= this.max) return false;
    this.#inProgress += 1;
    return true;
  }

  leave(): void {
    this.#inProgress -= 1;
  }
}

/** A body is still to come: the request is not complete and says it carries one. */
function bodyPending(request: FastifyRequest): boolean {
  const raw = request.raw;
  if (raw.complete) return false;
  const length = raw.headers['content-length'];
  return raw.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/**
 * Watches a body still arriving: every quarter of the budget it looks at the bytes the socket
 * has read (Node counts them whether or not anyone reads the body yet, so watching costs the
 * parser nothing); once nothing has arrived for the whole budget, `onSilence` runs.
 */
function watchSilence(request: FastifyRequest, silenceMs: number, onSilence: () => void): () => void {
  const socket = request.raw.socket;
  let seen = socket.bytesRead;
  let quietSince = Date.now();
  const timer = setInterval(() => {
    if (request.raw.complete) return clearInterval(timer);
    const now = Date.now();
    if (socket.bytesRead !== seen) {
      seen = socket.bytesRead;
      quietSince = now;
    } else if (now - quietSince >= silenceMs) {
      clearInterval(timer);
      onSilence();
    }
  }, Math.max(10, Math.floor(silenceMs / 4)));
  timer.unref();
  return () => clearInterval(timer);
}

/** Installs the body timeout and the anonymous upload bound, before a body is read (`preParsing`). */
export function installSlowClientGuards(app: FastifyInstance, config: Pick<Config, 'requestBodyTimeoutSeconds' | 'maxAnonymousUploads'>): AnonymousUploads {
  const uploads = new AnonymousUploads(config.maxAnonymousUploads);
  const silenceMs = config.requestBodyTimeoutSeconds * 1_000;

  app.addHook('preParsing', (request, reply, payload, done) => {
    if (!bodyPending(request)) return done(null, payload);
    const path = request.routeOptions.url;
    const anonymous = path !== undefined && routeArea(path) === 'open';
    if (anonymous && !uploads.tryEnter()) {
      return done(new AppError(503, 'unavailable', { reason: 'overloaded' }, { 'retry-after': '1', ...CLOSE }));
    }
    let finished = false;
    const finish = () => {
      if (finished) return;
      finished = true;
      stopWatching();
      if (anonymous) uploads.leave();
    };
    const stopWatching = watchSilence(request, silenceMs, () => {
      finish();
      // The body parser listens for errors while it reads: the 408 goes through the error handler.
      if (payload.listenerCount('error') > 0) payload.emit('error', requestTimedOut());
      else request.raw.socket.destroy();
    });
    request.raw.once('end', finish);
    reply.raw.once('close', finish);
    done(null, payload);
  });
  return uploads;
}
