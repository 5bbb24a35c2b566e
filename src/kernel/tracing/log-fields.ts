import { context, trace } from '@opentelemetry/api';

export interface TraceFields {
  trace_id?: string;
  span_id?: string;
}

const NONE: TraceFields = Object.freeze({});

/**
 * The pino mixin of a traced service: each line written while a span is active (a request's,
 * or a call it makes) names its trace and span, so a log line leads to its trace and back.
 */
export function traceFields(): TraceFields {
  const span = trace.getSpan(context.active());
  if (span === undefined) return NONE;
  const { traceId, spanId } = span.spanContext();
  return { trace_id: traceId, span_id: spanId };
}
