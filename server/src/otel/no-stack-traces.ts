import type { Span, SpanProcessor } from '@opentelemetry/sdk-trace-node';
import { ATTR_EXCEPTION_STACKTRACE } from '@opentelemetry/semantic-conventions';

/**
 * Removes the stack trace from every exception event before a span is
 * exported (node:http's instrumentation records an error on the request's
 * span with `recordException`, stack included). The type and message stay.
 * Registered before the batch processor: every `onEnding` runs before any
 * `onEnd`.
 */
export function withoutStackTraces(): SpanProcessor {
  return {
    onStart: () => undefined,
    onEnding: (span: Span) => {
      for (const event of span.events) {
        if (event.attributes && ATTR_EXCEPTION_STACKTRACE in event.attributes) delete event.attributes[ATTR_EXCEPTION_STACKTRACE];
      }
    },
    onEnd: () => undefined,
    forceFlush: () => Promise.resolve(),
    shutdown: () => Promise.resolve(),
  };
}
