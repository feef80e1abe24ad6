import { MongoServerError, type Collection } from 'mongodb';
import { StoreUnavailableError } from '../../port';
import { MongoWallets, type WalletCollections } from './mongo-wallets';
import type { WalletWithDelivery } from './documents';
import { Outbox } from './outbox';

/*
 * A change of a wallet whose last outbox the database refuses to take (a
 * poison outbox: here, a validator the audit trail was given) is told to
 * come back later, as when the database is away: the request gets a 503,
 * never a 500. Fake collections: the refusal is one no server of the test
 * run can be made to give.
 */

const walletId = 'm-poison';
const key = { clientId: 'c-1', correlationId: 'm-poison', reservationToken: 'rt-1' };

const undelivered: WalletWithDelivery = {
  _id: walletId,
  bucket: 0,
  version: 2,
  balances: [],
  totals: { held: [], daily: [], count: 0, nextExpiry: null },
  outbox: { at: new Date(), reservations: [], audit: { _id: `${walletId}@2.x` } as never },
  delivered: [],
};

function refusal(): MongoServerError {
  return new MongoServerError({ message: 'Document failed validation', code: 121, errmsg: 'Document failed validation' });
}

/** Collections whose wallet reads find the undelivered wallet and whose audit writes `refuse` says how to fail. */
function walletsOver(refuse: () => Error): MongoWallets {
  const collection = (name: string, overrides: object) => ({ collectionName: name, ...overrides }) as unknown as Collection<never>;
  const collections = {
    wallets: collection('wallets', {
      aggregate: () => ({ toArray: async () => [{ ...undelivered, stored: [] }] }),
      findOne: async () => ({ version: undelivered.version }),
    }),
    reservations: collection('reservations', { bulkWrite: async () => ({}), find: () => ({ sort: () => ({ toArray: async () => [] }) }) }),
    audit: collection('audit', { bulkWrite: () => Promise.reject(refuse()) }),
    members: collection('members', {}),
  } as unknown as WalletCollections;
  const deps = { collections: () => collections, run: <T>(op: () => Promise<T>) => op(), now: () => new Date() };
  return new MongoWallets(deps, new Outbox(deps));
}

describe('a wallet whose last outbox cannot be delivered', () => {
  it.each([
    ['reading its slice (Operation B)', (wallets: MongoWallets) => wallets.loadWalletSlice(walletId, key)],
    ['reading it whole', (wallets: MongoWallets) => wallets.loadWallet(walletId)],
    [
      'saving its slice',
      (wallets: MongoWallets) =>
        wallets.saveReservationChange({ walletId, totals: undelivered.totals, reservation: { ...key } as never, audit: null }, 2),
    ],
  ])('is unavailable (503) when %s, the refusal kept as the cause', async (_when, act) => {
    const error = await act(walletsOver(refusal)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect((error as Error).message).not.toContain(walletId);
    expect((error as Error).cause).toBeInstanceOf(MongoServerError);
  });

  it('passes the database being away through as it is', async () => {
    const away = new StoreUnavailableError('no answer within 5000 ms');
    await expect(walletsOver(() => away).loadWalletSlice(walletId, key)).rejects.toBe(away);
  });
});
