import { StoreUnavailableError, storeMethods, type Store, type StoreMethod } from './port';

/**
 * What a wrapper does around one store call. `call` runs the call on the
 * wrapped store with `args`; the hook returns what the call should return
 * (a promise, as every port method does: an async hook rejects rather than
 * throws).
 */
export type StoreCallHook = (method: StoreMethod, args: readonly unknown[], call: () => Promise<unknown>) => Promise<unknown>;

export interface WrapStoreOptions {
  /**
   * Whether the wrapper offers the store's voucher definitions version
   * (forwarded synchronously, not through the hook) when the store has one.
   * Default true, so that listings kept by version behind a wrapper stay
   * kept. False for a wrapper every listing must reach (injected faults,
   * tests that watch every call): without a version nothing is kept.
   */
  forwardVersion?: boolean;
}

/**
 * `store` with every port method going through `hook`: the one way to wrap
 * a store (metrics: `observedStore` below; tracing, injected faults, the
 * tests' spies). A plain object of functions bound once, no Proxy: nothing
 * but the hook's own work is added to a call. It has the port's methods
 * only, never an adapter's own (the outbox, the rate limit's claims, health).
 */
export function wrapStore(store: Store, hook: StoreCallHook, options: WrapStoreOptions = {}): Store {
  const wrapped = {} as Record<StoreMethod, (...args: unknown[]) => Promise<unknown>>;
  for (const method of storeMethods) {
    const run = (store[method] as (...args: unknown[]) => Promise<unknown>).bind(store);
    wrapped[method] = (...args) => hook(method, args, () => run(...args));
  }
  const version = store.voucherDefinitionsVersion;
  if ((options.forwardVersion ?? true) && typeof version === 'function') {
    Object.assign(wrapped, { voucherDefinitionsVersion: () => version.call(store) });
  }
  return wrapped as unknown as Store;
}

/** Told of every store call: its method, how long it took, and how it failed (null: it did not). */
export type StoreCallObserver = (method: StoreMethod, seconds: number, failure: 'unavailable' | 'error' | null) => void;

/** The store with every call timed and its failures classified, for metrics. */
export function observedStore(store: Store, observe: StoreCallObserver): Store {
  return wrapStore(store, async (method, _args, call) => {
    const started = performance.now();
    try {
      const result = await call();
      observe(method, (performance.now() - started) / 1000, null);
      return result;
    } catch (error) {
      observe(method, (performance.now() - started) / 1000, error instanceof StoreUnavailableError ? 'unavailable' : 'error');
      throw error;
    }
  });
}
