import { context, trace } from '@opentelemetry/api';

export interface TraceFields {
  trace_id?: string;
  span_id?: string;
}

/**
 * The pino mixin of a traced service: each line written while a span is active (a request's,
 * or a call it makes) names its trace and span, so a log line leads to its trace and back.
 * A new object every line, also outside a span: pino assigns the line's own fields into it.
 */
export function traceFields(): TraceFields {
  const span = trace.getSpan(context.active());
  if (span === undefined) return {};
  const { traceId, spanId } = span.spanContext();
  return { trace_id: traceId, span_id: spanId };
}
