/**
 * What the ports' suites of the Store contract share: the store of the
 * test under way, and the records and checks several of them use.
 */
import type { AuditEntry, ClientRecord, ReservationRecord, Wallet } from '../../../domain/model';
import type { Store } from '../../port';
import { wallet } from '../records';

/**
 * What each port's suite reads in its tests: `store`, the store of the test
 * under way, fresh and empty (store.contract.ts makes one before each test,
 * so read it inside a test), and `settle`, which waits for what its saves
 * left to do after their answer (the MongoDB store's outbox).
 */
export interface CurrentStore {
  readonly store: Store;
  settle(): Promise<void>;
}

/** Client settings away from the defaults, so that a store that drops one is caught (the builders copy them). */
export const settings: Partial<ClientRecord> = { enabledBusinessUnits: ['LCL', 'SDM'], redemptionTiers: [1000, 2500], dailyRedemptionCap: 6000 };

/**
 * A wallet's reservations come in no particular order (the memory store keeps
 * them as saved, MongoDB by key): compare wallets with their reservations sorted.
 */
export function sorted<W extends Wallet | null | undefined>(w: W): W {
  if (!w) return w;
  const key = (r: ReservationRecord) => JSON.stringify([r.clientId, r.correlationId, r.reservationToken]);
  return { ...w, reservations: [...w.reservations].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0)) };
}

/**
 * Entries reach the trail only with the changes that carry them: one save
 * per entry, each of a wallet of its own, then what the saves left for
 * after their answer (the outbox).
 */
export async function saveChangesCarrying(current: CurrentStore, entries: AuditEntry[]): Promise<void> {
  for (const [i, entry] of entries.entries()) {
    expect(await current.store.saveWallet({ ...wallet(`member:m-audited-${i}`, { [`m-audited-${i}`]: 1 }), audit: entry }, 0)).toBe(true);
  }
  await current.settle();
}

/**
 * Tries changes to records a store handed out. A store may hand out copies
 * (the change stays in the copy) or frozen records (the change throws a
 * TypeError); either way the store must not change, which the caller checks.
 */
export function tryToChange(...attempts: Array<() => unknown>): void {
  for (const attempt of attempts) {
    try {
      attempt();
    } catch (error) {
      expect(error).toBeInstanceOf(TypeError);
    }
  }
}
