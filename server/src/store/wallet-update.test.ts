import type { Wallet } from '../domain/model';
import { deepCopy } from './copy';
import { compareKeys } from './key-order';
import { MemoryStore } from './memory/memory-store';
import { wallet } from './test-support/records';
import type { WholeWalletStore } from './port';
import { assertExpectedVersion, updateWallet, WalletConflictError } from './wallet-update';

const addPoints = (points: number) => (wallet: Wallet): boolean => {
  const balance = wallet.balances.find((b) => b.correlationId === 'm-a');
  if (balance) balance.pointBalance += points;
  else wallet.balances.push({ correlationId: 'm-a', pointBalance: points });
  return true;
};

describe('updateWallet', () => {
  let store: MemoryStore;

  beforeEach(() => {
    store = new MemoryStore({ sessionSweepIntervalMs: 0 });
  });

  afterEach(() => store.close());

  it('creates a missing wallet at version 1 and returns it as stored', async () => {
    const saved = await updateWallet(store, 'member:m-a', addPoints(5));
    expect(saved).toEqual(wallet('member:m-a', { 'm-a': 5 }, [], { version: 1 }));
    expect(await store.loadWallet('member:m-a')).toEqual(saved);
  });

  it('reloads and re-applies the change when another writer saved first', async () => {
    await updateWallet(store, 'member:m-a', addPoints(5));
    let interfered = false;
    const racing: WholeWalletStore = Object.create(store, {
      saveWallet: {
        value: async (wallet: Wallet, expected: number) => {
          if (!interfered) {
            interfered = true;
            await updateWallet(store, 'member:m-a', addPoints(100));
          }
          return store.saveWallet(wallet, expected);
        },
      },
    });
    const saved = await updateWallet(racing, 'member:m-a', addPoints(1));
    expect(saved.version).toBe(3);
    expect(saved.balances).toEqual([{ correlationId: 'm-a', pointBalance: 106 }]);
  });

  it('writes nothing when the mutation changes nothing', async () => {
    await updateWallet(store, 'member:m-a', addPoints(5));
    const unchanged = await updateWallet(store, 'member:m-a', () => false);
    expect(unchanged.version).toBe(1);
    expect(await updateWallet(store, 'member:m-none', () => false)).toEqual({ walletId: 'member:m-none', version: 0, balances: [], reservations: [] });
    expect(await store.loadWallet('member:m-none')).toBeNull();
  });

  it('gives up with WalletConflictError after the allowed attempts', async () => {
    const losing: WholeWalletStore = Object.create(store, { saveWallet: { value: async () => false } });
    await expect(updateWallet(losing, 'member:m-a', addPoints(1), 3)).rejects.toThrow(WalletConflictError);
  });

  it.each([-1, 0.5, Number.NaN, Number.POSITIVE_INFINITY])('refuses expected version %p', (version) => {
    expect(() => assertExpectedVersion(version)).toThrow(RangeError);
  });
});

describe('deepCopy', () => {
  it('copies nested records, Dates included, sharing nothing', () => {
    const original = { at: new Date('2030-01-01T00:00:00Z'), list: [{ n: 1 }], none: null };
    const copy = deepCopy(original);
    expect(copy).toStrictEqual(original);
    expect(copy.at).not.toBe(original.at);
    expect(copy.at).toBeInstanceOf(Date);
    expect(copy.list[0]).not.toBe(original.list[0]);
  });

  it('recognises a Date from another realm and returns one of this realm', () => {
    const foreign = structuredClone({ at: new Date(0) }); // host realm under jest
    expect(deepCopy(foreign).at).toBeInstanceOf(Date);
  });

  it('keeps a "__proto__" key from JSON as data', () => {
    const parsed = JSON.parse('{"__proto__": {"polluted": true}}') as Record<string, unknown>;
    const copy = deepCopy(parsed);
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(Object.keys(copy)).toEqual(['__proto__']);
  });
});

describe('compareKeys', () => {
  it('orders by code point, like MongoDB without a collation', () => {
    // U+FF21 (fullwidth A) is below U+1F600 in code points, though not in UTF-16 units.
    expect(['\u{1F600}', '\uFF21', 'b', 'B', 'a-10', 'a-1'].sort(compareKeys)).toEqual(['B', 'a-1', 'a-10', 'b', '\uFF21', '\u{1F600}']);
  });
});
