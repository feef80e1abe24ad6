/**
 * `StoreLifecycle` (store/port.ts): readiness (closing is each test's
 * cleanup).
 */
import type { CurrentStore } from './contract-support';

export function describeStoreLifecycleContract(current: CurrentStore): void {
  describe('StoreLifecycle', () => {
    it('answers ping', async () => {
      await expect(current.store.ping()).resolves.toBeUndefined();
    });
  });
}
