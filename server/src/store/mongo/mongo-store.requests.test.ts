import { MongoNetworkError, MongoServerError, type MongoClient } from 'mongodb';
import type { VoucherDefinitionRecord, Wallet } from '../../domain/model';
import { StoreUnavailableError } from '../port';
import { MongoStore } from './mongo-store';

/*
 * What the adapter sends to the driver and how it maps what comes back,
 * checked against recording fakes of the driver's collections. This runs
 * everywhere; the behaviour of a real server is the contract suite's job
 * (mongo-store.test.ts), which needs a MongoDB.
 */

interface Call {
  collection: string;
  method: string;
  args: unknown[];
}

type Responder = (method: string, args: unknown[]) => unknown;

function fakeStore(respond: Responder = () => null): { store: MongoStore; calls: Call[] } {
  const calls: Call[] = [];
  const collection = (name: string) => {
    const call = (method: string) => async (...args: unknown[]) => {
      calls.push({ collection: name, method, args });
      return respond(`${name}.${method}`, args);
    };
    return {
      findOne: call('findOne'),
      insertOne: call('insertOne'),
      replaceOne: call('replaceOne'),
      bulkWrite: call('bulkWrite'),
      createIndexes: call('createIndexes'),
      find: (...args: unknown[]) => {
        const sorts: unknown[] = [];
        return {
          sort(spec: unknown) {
            sorts.push(spec);
            return this;
          },
          toArray: async () => {
            calls.push({ collection: name, method: 'find', args: [...args, { sort: sorts[0] }] });
            return respond(`${name}.find`, args) ?? [];
          },
        };
      },
    };
  };
  const client = { close: async () => undefined, db: () => ({ command: async () => ({ ok: 1 }) }) };
  // The constructor is private: connect() is the only way in production.
  const Constructor = MongoStore as unknown as new (client: MongoClient, db: unknown) => MongoStore;
  return { store: new Constructor(client as unknown as MongoClient, { collection }), calls };
}

const wallet: Wallet = {
  walletId: 'member:m-a',
  version: 7,
  balances: [{ correlationId: 'm-a', pointBalance: 10 }],
  reservations: [
    {
      reservationToken: 'rt-1',
      clientId: 'c',
      correlationId: 'm-a',
      identifierType: 'EMAIL',
      reservationAmount: 4,
      contributions: [{ correlationId: 'm-a', points: 4 }],
      expiresAt: new Date('2030-01-01T00:15:00Z'),
      createdAt: new Date('2030-01-01T00:00:00Z'),
      excludedFromCap: false,
    },
  ],
};

const { walletId: _walletId, version: _version, ...walletContent } = wallet;

describe('MongoStore requests', () => {
  it('creates the documented indexes', async () => {
    const { store, calls } = fakeStore();
    await store.ensureIndexes();
    const specs = Object.fromEntries(calls.map((c) => [c.collection, c.args[0]]));
    expect(specs).toEqual({
      clients: [{ key: { apiKeyHash: 1 }, unique: true }],
      members: [{ key: { householdId: 1 } }],
      sessions: [{ key: { expiresAt: 1 }, expireAfterSeconds: 0 }],
      voucherDefinitions: [{ key: { businessUnit: 1, status: 1, voucherDefinitionId: 1 } }],
      audit: [{ key: { reservationToken: 1, at: 1, walletVersion: 1 } }],
    });
  });

  it('inserts a wallet at version 0 as version 1', async () => {
    const { store, calls } = fakeStore();
    expect(await store.saveWallet(wallet, 0)).toBe(true);
    expect(calls).toEqual([{ collection: 'wallets', method: 'insertOne', args: [{ _id: 'member:m-a', version: 1, ...walletContent }] }]);
  });

  it('answers false when the wallet was inserted first by someone else', async () => {
    const { store } = fakeStore(() => {
      throw new MongoServerError({ message: 'E11000 duplicate key error', code: 11000 });
    });
    expect(await store.saveWallet(wallet, 0)).toBe(false);
  });

  it('replaces only the version that was read', async () => {
    let matchedCount = 1;
    const { store, calls } = fakeStore(() => ({ matchedCount }));
    expect(await store.saveWallet(wallet, 7)).toBe(true);
    expect(calls[0]).toEqual({
      collection: 'wallets',
      method: 'replaceOne',
      args: [{ _id: 'member:m-a', version: 7 }, { version: 8, ...walletContent }],
    });
    matchedCount = 0;
    expect(await store.saveWallet(wallet, 7)).toBe(false);
  });

  it('turns a network failure into StoreUnavailableError and lets other errors through', async () => {
    const network = fakeStore(() => {
      throw new MongoNetworkError('connect ECONNREFUSED 10.1.2.3:27017');
    });
    await expect(network.store.loadWallet('member:m-a')).rejects.toThrow(StoreUnavailableError);
    await expect(network.store.loadWallet('member:m-a')).rejects.toThrow(/^store unavailable$/);
    const bug = fakeStore(() => {
      throw new MongoServerError({ message: 'unknown operator', code: 2 });
    });
    await expect(bug.store.loadWallet('member:m-a')).rejects.toThrow('unknown operator');
  });

  it('maps documents to records without _id', async () => {
    const { store } = fakeStore((what) =>
      what === 'wallets.findOne' ? { _id: 'member:m-a', version: 3, ...walletContent, extra: 'internal' } : null,
    );
    expect(await store.loadWallet('member:m-a')).toStrictEqual({ ...wallet, version: 3 });
  });

  it('lists definitions with one indexed filter, sorted by id, fields mapped explicitly', async () => {
    const stored = { _id: 'vd-1', voucherDefinitionId: 'vd-1', adminId: 'A', businessUnit: 'LCL', status: 'PUBLISHED', usageChannels: null, definitionName: 'D', rewardType: 'DOLLAR_OFF', rewardMetadata: { amount: 1, scopeType: 'CART' }, expiryRule: { type: 'ROLLING' }, creative: {}, pointValue: 1, redeemableValue: null, basedOn: null };
    const { store, calls } = fakeStore((what) => (what === 'voucherDefinitions.find' ? [stored] : null));
    const listed = await store.listPublishedVoucherDefinitions('LCL', 'CUX');
    expect(calls[0]?.args).toEqual([
      {
        businessUnit: 'LCL',
        status: 'PUBLISHED',
        $or: [{ usageChannels: 'CUX' }, { usageChannels: { $exists: false } }, { usageChannels: { $size: 0 } }],
      },
      { sort: { voucherDefinitionId: 1 } },
    ]);
    const expected: VoucherDefinitionRecord = {
      voucherDefinitionId: 'vd-1',
      adminId: 'A',
      businessUnit: 'LCL',
      status: 'PUBLISHED',
      definitionName: 'D',
      rewardType: 'DOLLAR_OFF',
      rewardMetadata: { amount: 1, scopeType: 'CART' },
      expiryRule: { type: 'ROLLING' },
      creative: {},
      pointValue: 1,
      redeemableValue: null,
      basedOn: null,
    };
    expect(listed).toStrictEqual([expected]);
  });

  it('upserts in order by _id and sends nothing for an empty list', async () => {
    const { store, calls } = fakeStore();
    await store.upsertRedemptions([]);
    expect(calls).toEqual([]);
    await store.upsertRedemptions([
      { redemptionId: 'rd-1', redeemerId: 'm-a', redemptionName: 'One' },
      { redemptionId: 'rd-1', redeemerId: 'm-b', redemptionName: 'Two' },
    ]);
    expect(calls[0]?.args).toEqual([
      [
        { replaceOne: { filter: { _id: 'rd-1' }, replacement: { redeemerId: 'm-a', redemptionName: 'One' }, upsert: true } },
        { replaceOne: { filter: { _id: 'rd-1' }, replacement: { redeemerId: 'm-b', redemptionName: 'Two' }, upsert: true } },
      ],
      { ordered: true },
    ]);
  });

  it('puts only strings into filters', async () => {
    const { store, calls } = fakeStore();
    await store.findCatalogueItems(['0001', { $gt: '' } as unknown as string, '0001']);
    expect(calls[0]?.args[0]).toEqual({ _id: { $in: ['0001'] } });
    await store.findMember({ $ne: null } as unknown as string);
    await store.listAudit({ $ne: null } as unknown as string);
    expect(calls).toHaveLength(1);
    await expect(store.upsertMembers([{ correlationId: { $ne: 1 } } as never])).rejects.toThrow(TypeError);
  });

  it('lists audit entries by time, ties by wallet version', async () => {
    const { store, calls } = fakeStore();
    await store.listAudit('rt-1');
    expect(calls[0]?.args).toEqual([{ reservationToken: 'rt-1' }, { sort: { at: 1, walletVersion: 1 } }]);
  });
});
