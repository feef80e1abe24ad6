import type { Span, SpanProcessor } from '@opentelemetry/sdk-trace-node';
import { ATTR_EXCEPTION_MESSAGE, ATTR_EXCEPTION_STACKTRACE } from '@opentelemetry/semantic-conventions';
import { withoutDocumentValues } from '../store/mongo/document-values';

/**
 * What a span may say of an error, made so before it is exported: no stack
 * trace (node:http's instrumentation records an error on the request's
 * span with `recordException`, stack included), and no value a MongoDB
 * error quotes (MongoDB's instrumentation gives a failed command's span the
 * driver's message as its status, a duplicate key's values included, before
 * the adapter's translation can take them out: store/mongo/errors.ts). The
 * type and the rest of the message stay. The store's own spans say only an
 * error's type (traced-store.ts). Registered before the batch processor:
 * every `onEnding` runs before any `onEnd`.
 */
export function exportableErrors(): SpanProcessor {
  return {
    onStart: () => undefined,
    onEnding: (span: Span) => {
      const message = span.status.message;
      if (message !== undefined) span.setStatus({ code: span.status.code, message: withoutDocumentValues(message) });
      for (const event of span.events) {
        const attributes = event.attributes;
        if (!attributes) continue;
        if (ATTR_EXCEPTION_STACKTRACE in attributes) delete attributes[ATTR_EXCEPTION_STACKTRACE];
        const text = attributes[ATTR_EXCEPTION_MESSAGE];
        if (typeof text === 'string') attributes[ATTR_EXCEPTION_MESSAGE] = withoutDocumentValues(text);
      }
    },
    onEnd: () => undefined,
    forceFlush: () => Promise.resolve(),
    shutdown: () => Promise.resolve(),
  };
}
