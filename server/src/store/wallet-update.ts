import type { Wallet } from '../domain/model';
import { deepCopy } from './copy';
import type { WholeWalletStore } from './port';

/**
 * Changes a wallet copy in place. Returns false when nothing needs saving,
 * so a no-op never bumps the version.
 */
export type WalletMutation = (wallet: Wallet) => boolean;

/** The CAS loop lost the race `attempts` times in a row. */
export class WalletConflictError extends Error {
  constructor(
    readonly walletId: string,
    readonly attempts: number,
  ) {
    super(`wallet ${walletId}: still conflicting after ${attempts} attempts`);
    this.name = 'WalletConflictError';
  }
}

/** Versions are whole numbers from 0 (0: the wallet does not exist yet); anything else is a caller bug. */
export function assertExpectedVersion(expectedVersion: number): void {
  if (!Number.isSafeInteger(expectedVersion) || expectedVersion < 0) {
    throw new RangeError(`expectedVersion must be a non-negative integer, got ${String(expectedVersion)}`);
  }
}

function emptyWallet(walletId: string): Wallet {
  return { walletId, version: 0, balances: [], reservations: [] };
}

/**
 * The compare-and-set loop wallet writers outside the request path use
 * (fixtures, tests): load (or start an empty wallet), mutate a copy (a store
 * may hand out its wallets frozen), save against the version that was read, and start
 * over when someone else saved first. `mutate` may run several times, so it
 * must derive everything from the wallet it is given.
 *
 * Returns the wallet as stored afterwards (with its new version).
 */
export async function updateWallet(
  store: WholeWalletStore,
  walletId: string,
  mutate: WalletMutation,
  maxAttempts = 100,
): Promise<Wallet> {
  for (let attempt = 1; attempt <= maxAttempts; attempt++) {
    const loaded = await store.loadWallet(walletId);
    const wallet = loaded ? deepCopy(loaded) : emptyWallet(walletId);
    const expectedVersion = wallet.version;
    if (!mutate(wallet)) return wallet;
    // The id and version are the loop's, whatever the mutation did to them.
    const next: Wallet = { ...wallet, walletId, version: expectedVersion };
    if (await store.saveWallet(next, expectedVersion)) return { ...next, version: expectedVersion + 1 };
  }
  throw new WalletConflictError(walletId, maxAttempts);
}
