import { around } from './around';
import { StoreUnavailableError, type Store, type StoreMethod } from './port';

/** Told of every store call: its method, how long it took, and how it failed (null: it did not). */
export type StoreCallObserver = (method: StoreMethod, seconds: number, failure: 'unavailable' | 'error' | null) => void;

/** The store with every call timed and its failures classified, for metrics. */
export function observedStore(store: Store, observe: StoreCallObserver): Store {
  return around(store, async (method, _args, call) => {
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
