/**
 * `StoreLifecycle` (store/port.ts): readiness (closing is each test's
 * cleanup).
 */
import type { Store } from '../../port';
import type { CurrentStore } from './contract-support';

export function describeStoreLifecycleContract(current: CurrentStore): void {
  describe('StoreLifecycle', () => {
    let store: Store;

    beforeEach(() => {
      ({ store } = current());
    });

    it('answers ping', async () => {
      await expect(store.ping()).resolves.toBeUndefined();
    });
  });
}
