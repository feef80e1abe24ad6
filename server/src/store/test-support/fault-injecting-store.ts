import { wrapStore } from '../store-wrapper';
import { StoreUnavailableError, type Store, type StoreMethod } from '../port';

/** What a failing store does: look unreachable (503) or fail unexpectedly (500). */
export type Fault = 'unavailable' | 'error';

export interface FaultPlan {
  fault: Fault;
  /** Only these methods fail; all of them when absent. */
  methods?: StoreMethod[];
  /** Fail this many calls, then recover by itself; forever when absent. */
  times?: number;
  /** What an `error` fault throws (a planted error, its message and causes the test's); default `injected fault in <method>`. */
  thrown?: (method: StoreMethod) => unknown;
}

/** A store that fails its calls on demand. */
export interface FaultInjectingStore extends Store {
  /** Starts failing as planned; `null` heals the store. */
  inject(plan: FaultPlan | null): void;
}

/** Always reaches the store: tests close it through the wrapper. */
const neverFailed: ReadonlySet<StoreMethod> = new Set(['close']);

/**
 * Wraps a store and fails its calls on demand, for tests of what the service
 * does when its store goes away (503, nothing half-written, recovery) and for
 * the Pact provider states that need a 500 or a 503. It offers no voucher
 * definitions version, so every listing reaches the store (and its faults).
 */
export function faultInjecting(inner: Store): FaultInjectingStore {
  let plan: FaultPlan | null = null;
  const store = wrapStore(
    inner,
    async (method, _args, call) => {
      const current = plan;
      if (current && !neverFailed.has(method) && (!current.methods || current.methods.includes(method))) {
        if (current.times !== undefined && --current.times <= 0) plan = null;
        if (current.fault === 'unavailable') throw new StoreUnavailableError();
        throw current.thrown ? current.thrown(method) : new Error(`injected fault in ${method}`);
      }
      return call();
    },
    { forwardVersion: false },
  );
  return Object.assign(store, {
    inject(next: FaultPlan | null) {
      plan = next ? { ...next } : null;
    },
  });
}
