import type { Middleware } from 'openapi-fetch';

/**
 * W3C Trace Context headers (https://www.w3.org/TR/trace-context/): the
 * caller's current span, which the API's trace then continues. What
 * OpenTelemetry's `propagation.inject(context.active(), carrier)` writes
 * into an empty object.
 */
export interface TraceHeaders {
  traceparent?: string;
  tracestate?: string;
}

/** Gives the trace headers of the caller's current span (or nothing: the call then starts no trace of the caller's). */
export type TracePropagation = () => TraceHeaders | undefined;

/** `version-traceid-parentid-flags`, lower-case hex, as version 00 defines it (and as every current tracer sends it). */
const traceparentFormat = /^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/;
/** W3C: a tracestate of more than 512 characters may be cut anywhere by the receiver. */
const maxTracestateLength = 512;

/**
 * Sends the caller's trace context with every call: `tracePropagation` is
 * asked once per call, in openapi-fetch's `onRequest` (so every retry of a
 * call carries the same `traceparent`, like its request id). A header the
 * caller set on the request itself (with `raw`) is kept.
 *
 * Tracing never fails a call: a function that throws, or a value that is
 * not a valid `traceparent`, sends nothing; `tracestate` goes only with a
 * `traceparent`, and only when it is a valid header value of at most 512
 * characters.
 */
export function traceContextMiddleware(tracePropagation: TracePropagation): Middleware {
  return {
    onRequest({ request }) {
      if (request.headers.has('traceparent')) return undefined;
      const { traceparent, tracestate } = currentTraceHeaders(tracePropagation);
      if (!isTraceparent(traceparent)) return undefined;
      request.headers.set('traceparent', traceparent);
      if (typeof tracestate === 'string' && tracestate !== '' && tracestate.length <= maxTracestateLength && isHeaderValue(tracestate)) {
        request.headers.set('tracestate', tracestate);
      }
      return undefined;
    },
  };
}

function currentTraceHeaders(tracePropagation: TracePropagation): TraceHeaders {
  try {
    const headers = tracePropagation();
    return typeof headers === 'object' && headers !== null ? headers : {};
  } catch {
    return {};
  }
}

function isTraceparent(value: unknown): value is string {
  if (typeof value !== 'string' || !traceparentFormat.test(value)) return false;
  const [version, traceId, parentId] = value.split('-');
  // Version ff and all-zero ids are invalid (W3C Trace Context, 3.2.2).
  return version !== 'ff' && !/^0+$/.test(traceId ?? '') && !/^0+$/.test(parentId ?? '');
}

function isHeaderValue(value: string): boolean {
  try {
    new Headers([['tracestate', value]]);
    return true;
  } catch {
    return false;
  }
}
