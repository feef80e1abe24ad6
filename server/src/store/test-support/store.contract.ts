/**
 * The behaviour every `Store` adapter promises, as one jest suite made of
 * one suite per port interface of store/port.ts (`contract/`). Each
 * adapter's test file calls `describeStoreContract` with a factory that
 * gives a fresh, empty store per test; the same suites run on every adapter.
 */
import type { Store } from '../port';
import { describeAuditStoreContract } from './contract/audit-store.contract';
import { describeAuthStoreContract } from './contract/auth-store.contract';
import type { CurrentStore } from './contract/contract-support';
import { describeFilterValuesContract } from './contract/filter-values.contract';
import { describeFixtureStoreContract } from './contract/fixture-store.contract';
import { describeKeyStoreContract } from './contract/key-store.contract';
import { describeListingStoreContract } from './contract/listing-store.contract';
import { describeMemberStoreContract } from './contract/member-store.contract';
import { describeReservationStoreContract } from './contract/reservation-store.contract';
import { describeSessionStateStoreContract } from './contract/session-state-store.contract';
import { describeStoreLifecycleContract } from './contract/store-lifecycle.contract';
import { describeWholeWalletStoreContract } from './contract/whole-wallet-store.contract';

/**
 * A fresh store, and `settle`: waits for what its saves left to do after
 * their answer (the MongoDB store's outbox); absent, nothing is left.
 */
export type StoreFactory = () => Promise<{ store: Store; cleanup: () => Promise<void>; settle?: () => Promise<void> }>;

export function describeStoreContract(name: string, factory: StoreFactory): void {
  describe(`${name} honours the Store contract`, () => {
    let current: { store: Store; settle: () => Promise<void> };
    let cleanup: () => Promise<void>;

    beforeEach(async () => {
      const made = await factory();
      current = { store: made.store, settle: made.settle ?? (async () => undefined) };
      cleanup = made.cleanup;
    });

    afterEach(async () => {
      await cleanup();
    });

    const currentStore: CurrentStore = {
      get store() {
        return current.store;
      },
      settle: () => current.settle(),
    };
    describeMemberStoreContract(currentStore);
    describeAuthStoreContract(currentStore);
    describeSessionStateStoreContract(currentStore);
    describeKeyStoreContract(currentStore);
    describeListingStoreContract(currentStore);
    describeWholeWalletStoreContract(currentStore);
    describeReservationStoreContract(currentStore);
    describeAuditStoreContract(currentStore);
    describeFixtureStoreContract(currentStore);
    describeStoreLifecycleContract(currentStore);
    describeFilterValuesContract(currentStore);
  });
}
