import { context, SpanKind, SpanStatusCode, trace, type Span, type Tracer } from '@opentelemetry/api';
import { ATTR_ERROR_TYPE } from '@opentelemetry/semantic-conventions';
import { wrapStore } from '../store/store-wrapper';
import type { Store } from '../store/port';

/**
 * The store with a span around every call made within a traced request,
 * named after the `Store` method (`findSessionContext`, `loadWalletSlice`,
 * `saveReservationChange`, ...): the MongoDB commands of a call are its children,
 * so a slow request shows which call, and which command, took the time.
 * Calls outside any request go straight to the store, as MongoDB commands
 * outside one make no span either.
 */
export function tracedStore(store: Store, tracer: Tracer): Store {
  return wrapStore(store, (method, _args, call) => {
    if (trace.getSpan(context.active()) === undefined) return call();
    return tracer.startActiveSpan(method, { kind: SpanKind.INTERNAL }, (span) => settle(span, call()));
  });
}

/** Ends `span` when `pending` settles; a failure marks it with the error's type only (no message, no stack). */
export async function settle<T>(span: Span, pending: Promise<T>): Promise<T> {
  try {
    return await pending;
  } catch (error) {
    markFailed(span, error);
    throw error;
  } finally {
    span.end();
  }
}

export function markFailed(span: Span, error: unknown): void {
  const type = error instanceof Error ? error.name : typeof error;
  span.setAttribute(ATTR_ERROR_TYPE, type);
  span.setStatus({ code: SpanStatusCode.ERROR, message: type });
}
