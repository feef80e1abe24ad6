import { context, isSpanContextValid, trace } from '@opentelemetry/api';

/**
 * pino's `mixin` while tracing is on: every log line written within a
 * traced request carries its trace id and the active span's id, under the
 * names OpenTelemetry's pino instrumentation uses. The access log line,
 * written once the response is done, carries the request's server span:
 * node:http's instrumentation binds the response's listeners to it.
 */
export function logFields(): Record<string, string> {
  const span = trace.getSpan(context.active());
  if (span === undefined) return {};
  const spanContext = span.spanContext();
  if (!isSpanContextValid(spanContext)) return {};
  return {
    trace_id: spanContext.traceId,
    span_id: spanContext.spanId,
    trace_flags: spanContext.traceFlags.toString(16).padStart(2, '0'),
  };
}
