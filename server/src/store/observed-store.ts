import { StoreUnavailableError, storeMethods, type Store, type StoreMethod, type VoucherDefinitionsVersioned } from './port';

/** Told of every store call: its method, how long it took, and how it failed (null: it did not). */
export type StoreCallObserver = (method: StoreMethod, seconds: number, failure: 'unavailable' | 'error' | null) => void;

/**
 * The store with every call timed and its failures classified, for metrics.
 * A plain object of bound functions (no Proxy, nothing made per call but
 * the timing), forwarding the voucher definitions version synchronously
 * when the store has one, so that what is cached behind it stays cached.
 */
export function observedStore(store: Store, observe: StoreCallObserver): Store {
  const observed = {} as Record<StoreMethod, (...args: unknown[]) => Promise<unknown>>;
  for (const method of storeMethods) {
    const call = (store[method] as (...args: unknown[]) => Promise<unknown>).bind(store);
    observed[method] = async (...args) => {
      const started = performance.now();
      try {
        const result = await call(...args);
        observe(method, (performance.now() - started) / 1000, null);
        return result;
      } catch (error) {
        observe(method, (performance.now() - started) / 1000, error instanceof StoreUnavailableError ? 'unavailable' : 'error');
        throw error;
      }
    };
  }
  const versioned = (store as Partial<VoucherDefinitionsVersioned>).voucherDefinitionsVersion;
  if (typeof versioned === 'function') Object.assign(observed, { voucherDefinitionsVersion: () => versioned.call(store) });
  return observed as unknown as Store;
}
