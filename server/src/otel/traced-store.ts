import { context, SpanKind, SpanStatusCode, trace, type Span, type Tracer } from '@opentelemetry/api';
import { ATTR_ERROR_TYPE } from '@opentelemetry/semantic-conventions';
import { storeMethods, type Store, type StoreMethod, type VoucherDefinitionsVersioned } from '../store/port';

/**
 * The store with a span around every call made within a traced request,
 * named after the `Store` method (`findSessionContext`, `loadWalletSlice`,
 * `saveWalletSlice`, ...): the MongoDB commands of a call are its children,
 * so a slow request shows which call, and which command, took the time.
 * Calls outside any request go straight to the store, as MongoDB commands
 * outside one make no span either.
 *
 * Built like `observedStore` (bound functions, no Proxy), forwarding the
 * voucher definitions version synchronously when the store has one, so
 * that what is cached behind it stays cached.
 */
export function tracedStore(store: Store, tracer: Tracer): Store {
  const traced = {} as Record<StoreMethod, (...args: unknown[]) => Promise<unknown>>;
  for (const method of storeMethods) {
    const call = (store[method] as (...args: unknown[]) => Promise<unknown>).bind(store);
    traced[method] = (...args) => {
      if (trace.getSpan(context.active()) === undefined) return call(...args);
      return tracer.startActiveSpan(method, { kind: SpanKind.INTERNAL }, (span) => settle(span, call(...args)));
    };
  }
  const versioned = (store as Partial<VoucherDefinitionsVersioned>).voucherDefinitionsVersion;
  if (typeof versioned === 'function') Object.assign(traced, { voucherDefinitionsVersion: () => versioned.call(store) });
  return traced as unknown as Store;
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
