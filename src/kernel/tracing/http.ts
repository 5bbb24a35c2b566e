import type { IncomingMessage, ServerResponse } from 'node:http';
import { context, propagation, ROOT_CONTEXT, SpanKind, trace, type Span, type Tracer } from '@opentelemetry/api';
import {
  ATTR_CLIENT_ADDRESS,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
  ATTR_NETWORK_PROTOCOL_VERSION,
  ATTR_URL_PATH,
  ATTR_URL_SCHEME,
  ATTR_USER_AGENT_ORIGINAL,
} from '@opentelemetry/semantic-conventions';
import type { FastifyInstance } from 'fastify';
import { markFailed } from '../../lib/spans.js';

type RequestListener = (request: IncomingMessage, response: ServerResponse) => void;

/** Each request's server span, found again by the hook that names it once the route is known. */
const serverSpans = new WeakMap<IncomingMessage, Span>();

/** The path asked for, without its query (which may carry a credential: logging.ts). */
const pathOf = (url: string | undefined) => (url ?? '/').split('?', 1)[0]!;

/**
 * One server span per HTTP request, child of the caller's `traceparent` when it sends one. The
 * span begins where Node hands the request over, around Fastify's own handler, so everything
 * the request does (every hook, the log lines Fastify writes, the statements and calls it makes)
 * runs inside it. It is named once routed: method and route as declared (`GET
 * /v1/admin/users/:id`), never the path asked for. Requests made with `inject` (tests) do not
 * pass through the server and are not traced; WebSocket upgrades neither.
 */
export function traceRequests(app: FastifyInstance, tracer: Tracer): void {
  const server = app.server;
  const listeners = server.listeners('request') as RequestListener[];
  if (listeners.length !== 1) throw new Error(`expected Fastify's one request listener, found ${listeners.length}`);
  const fastifyHandler = listeners[0]!;
  server.removeListener('request', fastifyHandler);
  server.on('request', function tracedRequest(request: IncomingMessage, response: ServerResponse) {
    const parent = propagation.extract(ROOT_CONTEXT, request.headers);
    const span = tracer.startSpan(
      request.method ?? 'HTTP',
      {
        kind: SpanKind.SERVER,
        attributes: {
          [ATTR_HTTP_REQUEST_METHOD]: request.method,
          [ATTR_URL_PATH]: pathOf(request.url),
          [ATTR_URL_SCHEME]: 'http',
          [ATTR_NETWORK_PROTOCOL_VERSION]: request.httpVersion,
          [ATTR_USER_AGENT_ORIGINAL]: request.headers['user-agent'],
        },
      },
      parent,
    );
    serverSpans.set(request, span);
    response.once('close', () => endServerSpan(span, response));
    const active = trace.setSpan(parent, span);
    // The body arrives in events of the socket, not of this call: its listeners run in the span too.
    context.bind(active, request);
    context.bind(active, response);
    context.with(active, fastifyHandler, undefined, request, response);
  });

  // Named, so `printRoutes({ includeHooks: true })` shows it (the tests check it is absent when off).
  app.addHook('onRequest', function tracingNamesSpan(request, _reply, done) {
    const span = serverSpans.get(request.raw);
    if (span !== undefined) {
      const route = request.routeOptions.url;
      if (route !== undefined) {
        span.updateName(`${request.method} ${route}`);
        span.setAttribute(ATTR_HTTP_ROUTE, route);
      }
      // The client as TRUST_PROXY decides it, not the socket's peer.
      span.setAttribute(ATTR_CLIENT_ADDRESS, request.ip);
    }
    done();
  });
}

/** The answer's status on the span; a 5xx (or no answer at all) marks it failed, as OTel's HTTP rules say. */
function endServerSpan(span: Span, response: ServerResponse): void {
  if (response.writableFinished || response.headersSent) {
    span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, response.statusCode);
    if (response.statusCode >= 500) markFailed(span, String(response.statusCode));
  } else {
    markFailed(span, 'connection_closed');
  }
  span.end();
}
