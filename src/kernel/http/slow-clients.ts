import { randomUUID } from 'node:crypto';
import type { ServerOptions } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance, FastifyRequest, preParsingHookHandler, RouteOptions } from 'fastify';
import type { Config } from '../../config.js';
import { routeArea } from '../auth.js';
import { AppError } from '../errors.js';
import { InFlightLimit } from './overload.js';
import { hooksOf } from './route-hooks.js';

/**
 * Clients that hold the service's resources without using them: a connection that never finishes
 * its headers, a body that stops arriving, an anonymous crowd of uploads in progress. Each is
 * bounded so that a slow or hostile client costs a bounded share of an instance, never all of it.
 *
 * - Headers must arrive within `REQUEST_HEADERS_TIMEOUT_SECONDS` and a whole request within
 *   `REQUEST_TIMEOUT_SECONDS` (Node's own timers, checked every second): 408 and the connection
 *   closed.
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
export function serverTimeouts(config: Pick<Config, 'requestHeadersTimeoutSeconds' | 'requestTimeoutSeconds'>): {
  http: ServerOptions;
  requestTimeout: number;
} {
  return {
    http: {
      headersTimeout: config.requestHeadersTimeoutSeconds * 1_000,
      connectionsCheckingInterval: TIMEOUT_CHECK_INTERVAL_MS,
    },
    requestTimeout: config.requestTimeoutSeconds * 1_000,
  };
}

const CLIENT_ERRORS: Record<string, { status: number; text: string; error: string }> = {
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, text: 'Request Timeout', error: 'request_timeout' },
  HPE_HEADER_OVERFLOW: { status: 431, text: 'Request Header Fields Too Large', error: 'headers_too_large' },
};
const BAD_REQUEST = { status: 400, text: 'Bad Request', error: 'bad_request' };

/**
 * What Node's parser and timers refuse before any request exists (a malformed request line,
 * headers too large, a request past its budget) gets the service's error body and an
 * `x-request-id` too, then the connection is closed. A reset connection has no one to answer.
 */
export function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const known = (error.code !== undefined ? CLIENT_ERRORS[error.code] : undefined) ?? BAD_REQUEST;
  const body = JSON.stringify({ error: known.error });
  if (socket.writable) {
    socket.write(
      [
        `HTTP/1.1 ${known.status} ${known.text}`,
        'content-type: application/json; charset=utf-8',
        `content-length: ${Buffer.byteLength(body)}`,
        `x-request-id: ${randomUUID()}`,
        'x-content-type-options: nosniff',
        'connection: close',
        '',
        body,
      ].join('\r\n'),
    );
  }
  socket.destroy();
}

/** A body is still to come: the request is not complete and says it carries one. */
function bodyPending(request: FastifyRequest): boolean {
  const raw = request.raw;
  if (raw.complete) return false;
  const length = raw.headers['content-length'];
  return raw.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/** A body being watched: the bytes its socket had read when last looked at, and since when none came. */
interface Watched {
  socket: Socket;
  seen: number;
  quietSince: number;
  onSilence: () => void;
}

/**
 * Bodies still arriving, looked at together by one timer every quarter of the budget: each
 * watch is an entry in a map, not a timer of its own (every write request gets one). Reading
 * `socket.bytesRead` costs the parser nothing: Node counts the bytes whether or not anyone reads
 * the body yet, and watching neither consumes nor wraps the stream. A body with nothing new for
 * the whole budget gets `onSilence`, once.
 */
class BodySilenceWatch {
  readonly #watched = new Map<object, Watched>();
  #timer: NodeJS.Timeout | undefined;

  constructor(private readonly silenceMs: number) {}

  watch(request: FastifyRequest, onSilence: () => void): () => void {
    const socket = request.raw.socket;
    this.#watched.set(request, { socket, seen: socket.bytesRead, quietSince: Date.now(), onSilence });
    this.#timer ??= setInterval(() => this.#sweep(), Math.max(10, Math.floor(this.silenceMs / 4))).unref();
    return () => this.#forget(request);
  }

  #forget(request: object): void {
    this.#watched.delete(request);
    if (this.#watched.size === 0 && this.#timer !== undefined) {
      clearInterval(this.#timer);
      this.#timer = undefined;
    }
  }

  #sweep(): void {
    const now = Date.now();
    for (const [request, entry] of this.#watched) {
      const read = entry.socket.bytesRead;
      if (read !== entry.seen) {
        entry.seen = read;
        entry.quietSince = now;
      } else if (now - entry.quietSince >= this.silenceMs) {
        this.#forget(request);
        entry.onSilence();
      }
    }
  }
}

/**
 * Installs the body timeout and the anonymous upload bound, before a body is read (`preParsing`):
 * a hook of each route's own, which knows at start whether the route is open (no token), and
 * the one the 404 handler gets.
 */
export function installSlowClientGuards(
  app: FastifyInstance,
  config: Pick<Config, 'requestBodyTimeoutSeconds' | 'maxAnonymousUploads'>,
): { notFoundHook: preParsingHookHandler } {
  // The same bounded count as requests in flight: past `max` (0: no limit) a new one is refused.
  const uploads = new InFlightLimit(config.maxAnonymousUploads);
  const bodies = new BodySilenceWatch(config.requestBodyTimeoutSeconds * 1_000);

  const guardOf = (anonymous: boolean): preParsingHookHandler =>
    function slowClientGuard(request, reply, payload, done) {
      if (!bodyPending(request)) return done(null, payload);
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
      const stopWatching = bodies.watch(request, () => {
        finish();
        // The body parser listens for errors while it reads: the 408 goes through the error handler.
        if (payload.listenerCount('error') > 0) payload.emit('error', requestTimedOut());
        else request.raw.socket.destroy();
      });
      request.raw.once('end', finish);
      reply.raw.once('close', finish);
      done(null, payload);
    };
  const open = guardOf(true);
  const signedIn = guardOf(false);
  app.addHook('onRoute', (route: RouteOptions) => {
    const guard = routeArea(route.url) === 'open' ? open : signedIn;
    route.preParsing = [guard, ...hooksOf(route.preParsing)];
  });
  // The 404 handler is no route: its body is watched, and not counted as an anonymous upload.
  return { notFoundHook: signedIn };
}
