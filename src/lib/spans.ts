import {
  context,
  defaultTextMapSetter,
  propagation,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Span,
  type Tracer,
} from '@opentelemetry/api';
import {
  ATTR_ERROR_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_SERVER_ADDRESS,
  ATTR_SERVER_PORT,
  ATTR_URL_FULL,
} from '@opentelemetry/semantic-conventions';

/**
 * The spans of the service's own edges (statements, Redis commands, calls to other services),
 * made by hand with the OpenTelemetry API (decision 0082). `tracer` is set while tracing is on
 * (OTEL_EXPORTER_OTLP_ENDPOINT, src/kernel/tracing/); off, every helper here is the bare call it
 * wraps: no span, not even the API's no-op one.
 */
let tracer: Tracer | undefined;

/** Turns the spans of this module on (a tracer) or off (undefined); the kernel's tracing does it. */
export function traceEdgesWith(next: Tracer | undefined): void {
  tracer = next;
}

/** Whether the edges' spans are on (to skip preparing a span's attributes when they are not). */
export function edgesTraced(): boolean {
  return tracer !== undefined;
}

export interface ClientSpanOptions {
  /**
   * Only inside a trace already begun (a request's): statements and Redis commands run by timers
   * alone would each start a trace of one span.
   */
  withinTrace?: boolean;
  kind?: SpanKind;
}

/**
 * Runs `call` inside a span of the call this service makes (a client span, active while it runs,
 * so the trace headers of `traceHeaders` name it). A failure marks the span an error, its type
 * only: messages can quote what was sent (an address, a row's values).
 */
export function inClientSpan<T>(
  name: string,
  attributes: Attributes,
  call: (span: Span | undefined) => Promise<T>,
  options: ClientSpanOptions = {},
): Promise<T> {
  if (tracer === undefined) return call(undefined);
  if (options.withinTrace === true && trace.getSpan(context.active()) === undefined) return call(undefined);
  return tracer.startActiveSpan(name, { kind: options.kind ?? SpanKind.CLIENT, attributes }, async (span) => {
    try {
      return await call(span);
    } catch (error) {
      markFailed(span, errorType(error));
      throw error;
    } finally {
      span.end();
    }
  });
}

/**
 * Runs `work` inside a span of this service's own work (a scheduled job's run), active while it
 * runs: the root of a trace of its own when nothing is traced around it, else a child. Off, the
 * bare call. `work` records its outcome on the span itself (it may end in failure without throwing).
 */
export function inInternalSpan<T>(
  name: string,
  attributes: Attributes,
  work: (span: Span | undefined) => Promise<T>,
): Promise<T> {
  return inClientSpan(name, attributes, work, { kind: SpanKind.INTERNAL });
}

/** The span says the operation failed, and how (a SQLSTATE, an error's name, an HTTP status). */
export function markFailed(span: Span, type: string): void {
  span.setStatus({ code: SpanStatusCode.ERROR });
  span.setAttribute(ATTR_ERROR_TYPE, type);
}

/** What kind of failure a thrown value is, without its message: its code (SQLSTATE, errno) or its class. */
export function errorType(error: unknown): string {
  if (typeof error !== 'object' || error === null) return typeof error;
  const { code } = error as { code?: unknown };
  if (typeof code === 'string' && code !== '') return code;
  return error instanceof Error ? error.name : (error.constructor?.name ?? 'Object');
}

const HEADERS_SETTER = { set: (carrier: Headers, key: string, value: string) => carrier.set(key, value) };

/**
 * `headers` with the W3C trace context of the active span added (`traceparent`, `tracestate`):
 * the peer's spans join this trace. Unchanged when tracing is off.
 */
export function traceHeaders<H extends Record<string, string> | Headers>(headers: H): H {
  if (tracer === undefined) return headers;
  if (headers instanceof Headers) propagation.inject(context.active(), headers, HEADERS_SETTER);
  else propagation.inject(context.active(), headers, defaultTextMapSetter);
  return headers;
}

/** Which service a call goes to (`identity`, `runtime`, `stripe`, `smtp`, `s3`), on each outbound span. */
export const PEER_SERVICE = 'peer.service';

/**
 * How one call to another service ended, as its metric counts it: `ok` (it answered yes),
 * `refused` (it answered no: a 4xx, a declined card), `failed` (it answered with a failure: a 5xx, an
 * unreadable answer) or `unreachable` (no answer: connection refused or reset, timed out).
 */
export type PeerCallOutcome = 'ok' | 'refused' | 'failed' | 'unreachable';

/**
 * Where a kernel measures the calls to one peer (its metrics, src/kernel/metrics/): an adapter is
 * handed one when metrics are on, undefined when off. Spans are this module's (process-wide);
 * measures are a kernel's, so two apps in one process each count their own adapters' calls.
 */
export interface PeerCallMeter {
  /** One call ended. `operation` is a name from the adapter's closed set, never a path or an id. */
  called(operation: string, outcome: PeerCallOutcome, seconds: number): void;
}

/** An HTTP exchange under way: its span (tracing on), and the status it was answered with, once read. */
export interface HttpExchange {
  readonly span: Span | undefined;
  status: number | undefined;
}

/** A call's outcome class by its HTTP status, or by having none. */
export function httpOutcome(status: number | undefined): PeerCallOutcome {
  if (status === undefined) return 'unreachable';
  return status >= 500 ? 'failed' : status >= 400 ? 'refused' : 'ok';
}

/**
 * Runs one HTTP exchange with another service inside its client span, named `name` (the method
 * and the route template, never a path holding ids), with the method, peer and URL without its
 * query as attributes, and measured on `meter` as `operation`. `call` sends
 * `traceHeaders` and reports the status with `recordHttpStatus`. With tracing and metrics off,
 * it is the bare call.
 */
export function inHttpClientSpan<T>(
  name: string,
  peer: string,
  method: string,
  url: URL | string,
  call: (exchange: HttpExchange | undefined) => Promise<T>,
  meter?: PeerCallMeter,
  operation = name,
): Promise<T> {
  if (tracer === undefined && meter === undefined) return call(undefined);
  const spanned =
    tracer === undefined
      ? (run: (span: Span | undefined) => Promise<T>) => run(undefined)
      : (run: (span: Span | undefined) => Promise<T>) => inClientSpan(name, httpAttributes(peer, method, url), run);
  if (meter === undefined) return spanned((span) => call({ span, status: undefined }));
  const started = performance.now();
  return spanned(async (span) => {
    const exchange: HttpExchange = { span, status: undefined };
    let outcome: PeerCallOutcome = 'unreachable';
    try {
      const result = await call(exchange);
      outcome = httpOutcome(exchange.status);
      return result;
    } catch (error) {
      // Thrown once answered (its body cut short or unreadable): it answered and failed, it was reached.
      const { status } = exchange;
      outcome = status === undefined ? 'unreachable' : status >= 400 ? httpOutcome(status) : 'failed';
      throw error;
    } finally {
      meter.called(operation, outcome, (performance.now() - started) / 1_000);
    }
  });
}

function httpAttributes(peer: string, method: string, url: URL | string): Attributes {
  const target = typeof url === 'string' ? new URL(url) : url;
  const port = target.port === '' ? (target.protocol === 'https:' ? 443 : 80) : Number(target.port);
  return {
    [PEER_SERVICE]: peer,
    [ATTR_HTTP_REQUEST_METHOD]: method,
    [ATTR_SERVER_ADDRESS]: target.hostname,
    [ATTR_SERVER_PORT]: port,
    [ATTR_URL_FULL]: `${target.origin}${target.pathname}`,
  };
}

/** An HTTP exchange's answer: its status, on its span (4xx/5xx mark it failed, OTel's HTTP rules) and for its measure. */
export function recordHttpStatus(exchange: HttpExchange | undefined, status: number): void {
  if (exchange === undefined) return;
  exchange.status = status;
  recordSpanHttpStatus(exchange.span, status);
}

/** An HTTP status on a span made elsewhere (the Stripe SDK's requests, inside the call's span). */
export function recordSpanHttpStatus(span: Span | undefined, status: number): void {
  if (span === undefined) return;
  span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, status);
  if (status >= 400) markFailed(span, String(status));
}
