import { context, propagation, trace, type Tracer } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import type { Config } from '../../config.js';
import { traceEdgesWith } from '../../lib/spans.js';

/** The instrumentation scope every span of the service is made under. */
export const TRACER_NAME = 'platform-api';

/** Tracing as the kernel runs it: on from `startTracing` until `shutdown`. */
export interface Tracing {
  readonly tracer: Tracer;
  /** Exports the spans still batched, then turns tracing off in this process. */
  shutdown(): Promise<void>;
}

export interface TracingOptions {
  /** How long ended spans wait to be exported in one batch (the SDK's default: 5 s). */
  exportDelayMs?: number;
}

/** The OTLP/HTTP traces URL under a base endpoint, as OTEL_EXPORTER_OTLP_ENDPOINT is read by the spec. */
export function tracesUrl(endpoint: string): string {
  const base = new URL(endpoint);
  base.pathname = `${base.pathname.replace(/\/+$/, '')}/v1/traces`;
  return base.toString();
}

/**
 * With OTEL_EXPORTER_OTLP_ENDPOINT set: a tracer provider exporting OTLP/HTTP JSON in batches,
 * installed for the whole process with the W3C trace context propagator and an async-hooks
 * context manager (what makes a request's span the parent of the work it starts). Process-wide
 * as OpenTelemetry's API is: one traced kernel per process at a time.
 */
export function startTracing(
  config: Pick<Config, 'otelEndpoint' | 'otelServiceName'>,
  options: TracingOptions = {},
): Tracing {
  if (config.otelEndpoint === undefined) throw new Error('tracing needs OTEL_EXPORTER_OTLP_ENDPOINT');
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: config.otelServiceName }),
    spanProcessors: [
      new BatchSpanProcessor({
        exporter: new OTLPTraceExporter({ url: tracesUrl(config.otelEndpoint) }),
        ...(options.exportDelayMs !== undefined ? { scheduledDelayMillis: options.exportDelayMs } : {}),
      }),
    ],
  });
  // A second traced kernel in this process (tests) would take over the first one's spans.
  if (!trace.setGlobalTracerProvider(provider)) {
    throw new Error('tracing is already on in this process (one traced kernel at a time)');
  }
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  const tracer = provider.getTracer(TRACER_NAME);
  traceEdgesWith(tracer);
  return {
    tracer,
    async shutdown() {
      traceEdgesWith(undefined);
      // Shutting the provider down exports what its processor still holds.
      await provider.shutdown();
      trace.disable();
      context.disable();
      propagation.disable();
    },
  };
}
