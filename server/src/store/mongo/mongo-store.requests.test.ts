import { MongoNetworkError, MongoServerError, type Db, type MongoClient } from 'mongodb';
import type { VoucherDefinitionRecord } from '../../domain/model';
import { redemptionRecord, reservationRecord, wallet as walletOf } from '../test-support/records';
import { StoreUnavailableError, type StoreLiveness } from '../port';
import { totalsOf } from '../../domain/wallet-totals';
import { fixedConnection, type ConnectionHealth } from './connection';
import { sweepBucketOf } from './wallets/documents';
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
      updateOne: call('updateOne'),
      aggregate: (...args: unknown[]) => ({
        toArray: async () => {
          calls.push({ collection: name, method: 'aggregate', args });
          return respond(`${name}.aggregate`, args) ?? [];
        },
      }),
      collectionName: name,
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
  return { store: MongoStore.over(fixedConnection(client as unknown as MongoClient, { collection } as unknown as Db)), calls };
}

const wallet = walletOf('member:m-a', { 'm-a': 10 }, [reservationRecord('rt-1', 'm-a', { 'm-a': 4 }, { clientId: 'c' })], { version: 7 });

const { walletId: _walletId, version: _version, ...walletFields } = wallet;
/** The wallet's sweep bucket: part of every filter of it (its shard key). */
const bucket = sweepBucketOf('member:m-a');
/** What a whole save stores: the wallet and the totals of its reservations. */
const walletContent = { ...walletFields, totals: totalsOf(wallet.reservations) };

describe('MongoStore requests', () => {
  it('creates the documented indexes', async () => {
    const { store, calls } = fakeStore();
    await store.ensureIndexes();
    const specs = Object.fromEntries(calls.map((c) => [c.collection, c.args[0]]));
    expect(specs).toEqual({
      apiKeys: [
        { key: { digest: 1 }, unique: true },
        { key: { clientId: 1, createdAt: 1 } },
        { key: { kind: 1, createdAt: 1 }, partialFilterExpression: { kind: 'publishable' } },
      ],
      members: [{ key: { householdId: 1 } }],
      sessions: [{ key: { expiresAt: 1 }, expireAfterSeconds: 0 }],
      // A session key goes once it opens no more tokens; an ended session once its token has expired.
      sessionKeys: [{ key: { verifiesUntil: 1 }, expireAfterSeconds: 0 }],
      endedSessions: [{ key: { endedAt: 1, _id: 1 } }, { key: { expiresAt: 1 }, expireAfterSeconds: 0 }],
      voucherDefinitions: [{ key: { businessUnit: 1, status: 1, voucherDefinitionId: 1 } }],
      audit: [{ key: { reservationToken: 1, at: 1, walletVersion: 1 } }],
      wallets: [{ key: { bucket: 1, 'outbox.at': 1 }, partialFilterExpression: { 'outbox.at': { $exists: true } } }],
      reservations: [{ key: { removedAt: 1 }, expireAfterSeconds: 86_400 }],
      // The rate limit's windows: found by key, removed a window after they end.
      rateLimits: [{ key: { expire: -1 }, expireAfterSeconds: 0 }, { key: { key: 1 }, unique: true }],
    });
  });

  const rt1 = wallet.reservations[0]!;
  const rt1Key = { clientId: 'c', correlationId: 'm-a', reservationToken: 'rt-1' };
  const rt1Id = '10:member:m-a1:c3:m-a4:rt-1';

  it('inserts a wallet at version 0 as version 1, then inserts its reservations (new, so unguarded) and clears its outbox', async () => {
    const { store, calls } = fakeStore();
    expect(await store.saveWallet(wallet, 0)).toBe(true);
    expect(calls).toEqual([
      {
        collection: 'wallets',
        method: 'insertOne',
        args: [
          {
            _id: 'member:m-a',
            bucket,
            version: 1,
            balances: wallet.balances,
            totals: walletContent.totals,
            outbox: { at: expect.any(Date), reservations: [{ key: rt1Key, reservation: rt1, created: true }], audit: null },
          },
        ],
      },
      {
        collection: 'reservations',
        method: 'bulkWrite',
        args: [[{ insertOne: { document: { _id: rt1Id, walletId: 'member:m-a', walletVersion: 1, ...rt1 } } }], { ordered: false }],
      },
      // No audit entry to tell it delivered: the one who delivers it clears it.
      {
        collection: 'wallets',
        method: 'bulkWrite',
        args: [[{ updateOne: { filter: { bucket, _id: 'member:m-a', version: 1 }, update: { $unset: { outbox: '' } } } }], { ordered: false }],
      },
    ]);
  });

  it('saves a whole wallet against the version read, writing only the reservations that changed', async () => {
    const rt2 = { ...rt1, reservationToken: 'rt-2' };
    let matchedCount = 1;
    const { store, calls } = fakeStore((what) => {
      if (what === 'wallets.aggregate') return [{ _id: 'member:m-a', version: 7, balances: wallet.balances, totals: totalsOf([rt1, rt2]) }];
      if (what === 'wallets.findOne') return { _id: 'member:m-a', version: 7 };
      if (what === 'reservations.find') return [rt1, rt2].map((r) => ({ _id: `x-${r.reservationToken}`, walletId: 'member:m-a', walletVersion: 6, ...r }));
      return { matchedCount };
    });
    // rt-1 unchanged, rt-2 removed.
    expect(await store.saveWallet(wallet, 7)).toBe(true);
    const update = calls.find((c) => c.method === 'updateOne');
    expect(update?.args).toEqual([
      { bucket, _id: 'member:m-a', version: 7 },
      {
        $set: {
          version: 8,
          balances: wallet.balances,
          totals: walletContent.totals,
          outbox: { at: expect.any(Date), reservations: [{ key: { ...rt1Key, reservationToken: 'rt-2' }, reservation: null }], audit: null },
        },
        // A wallet with no member moving saved whole: any record of a move is gone.
        $unset: { moves: '' },
      },
    ]);
    matchedCount = 0;
    expect(await store.saveWallet(wallet, 7)).toBe(false);
    expect(await store.saveWallet(wallet, 6)).toBe(false);
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
    const { reservations, ...walletDoc } = walletContent;
    const { store } = fakeStore((what) => {
      if (what === 'wallets.aggregate') return [{ _id: 'member:m-a', version: 3, ...walletDoc, extra: 'internal' }];
      if (what === 'wallets.findOne') return { _id: 'member:m-a', version: 3 };
      if (what === 'reservations.find') return reservations.map((r) => ({ _id: rt1Id, walletId: 'member:m-a', walletVersion: 3, ...r, extra: 'internal' }));
      return null;
    });
    expect(await store.loadWallet('member:m-a')).toStrictEqual({ ...wallet, version: 3 });
  });

  const key = { clientId: 'c', correlationId: 'm-a', reservationToken: 'rt-1' };
  const docId = '10:member:m-a1:c3:m-a4:rt-1';

  it('reads a slice in one aggregate: the wallet, then the one reservation document and whether its outbox is delivered', async () => {
    const { store, calls } = fakeStore((what) =>
      what === 'wallets.aggregate'
        ? [{ _id: 'member:m-a', version: 7, balances: wallet.balances, totals: walletContent.totals, stored: [{ _id: docId, walletId: 'member:m-a', walletVersion: 7, ...wallet.reservations[0] }] }]
        : null,
    );
    expect(await store.loadWalletSlice('member:m-a', key)).toStrictEqual({
      walletId: 'member:m-a',
      version: 7,
      balances: wallet.balances,
      totals: walletContent.totals,
      reservation: wallet.reservations[0],
    });
    expect(calls).toEqual([
      {
        collection: 'wallets',
        method: 'aggregate',
        args: [
          [
            { $match: { bucket, _id: 'member:m-a' } },
            { $addFields: { storedId: docId } },
            { $lookup: { from: 'reservations', localField: 'storedId', foreignField: '_id', as: 'stored' } },
            { $lookup: { from: 'audit', localField: 'outbox.audit._id', foreignField: '_id', as: 'delivered' } },
            { $project: { 'delivered.walletId': 0, 'delivered.before': 0, 'delivered.after': 0, 'delivered.shares': 0 } },
          ],
        ],
      },
    ]);
    // An operator object as a key part matches nothing and sends nothing.
    expect(await store.loadWalletSlice('member:m-a', { ...key, reservationToken: { $ne: '' } as unknown as string })).toBeNull();
    expect(calls).toHaveLength(1);
  });

  const lowered = { ...wallet.reservations[0]!, reservationAmount: 3, contributions: [{ correlationId: 'm-a', points: 3 }] };
  const auditOf8 = { _id: 'member:m-a@8', walletId: 'member:m-a', walletVersion: 8 };
  const sliceWithOutbox = (delivered: unknown[]) => [
    {
      _id: 'member:m-a',
      version: 8,
      balances: wallet.balances,
      totals: totalsOf([lowered]),
      outbox: { at: new Date(), reservations: [{ key, reservation: lowered }], audit: auditOf8 },
      stored: [{ _id: docId, walletId: 'member:m-a', walletVersion: 7, ...wallet.reservations[0] }],
      delivered,
    },
  ];

  it('lays an undelivered outbox over the stored reservation, and delivers it: the reservation, then the audit entry', async () => {
    const { store, calls } = fakeStore((what) => (what === 'wallets.aggregate' ? sliceWithOutbox([]) : null));
    expect((await store.loadWalletSlice('member:m-a', key))?.reservation).toStrictEqual(lowered);
    expect(calls.slice(1)).toEqual([
      {
        collection: 'reservations',
        method: 'bulkWrite',
        args: [
          [{ replaceOne: { filter: { _id: docId, walletVersion: { $lt: 8 } }, replacement: { walletId: 'member:m-a', walletVersion: 8, ...lowered }, upsert: true } }],
          { ordered: false },
        ],
      },
      { collection: 'audit', method: 'bulkWrite', args: [[{ insertOne: { document: auditOf8 } }], { ordered: false }] },
    ]);
  });

  it('sends nothing more for an outbox the database says is delivered (its audit entry is in the trail)', async () => {
    const { store, calls } = fakeStore((what) => (what === 'wallets.aggregate' ? sliceWithOutbox([{ _id: auditOf8._id }]) : null));
    expect((await store.loadWalletSlice('member:m-a', key))?.reservation).toStrictEqual(lowered);
    expect(calls).toHaveLength(1);
  });

  it('writes a slice in one updateOne of the wallet guarded by the version: totals and the outbox (the reservation, its audit entry)', async () => {
    let matchedCount = 1;
    const { store, calls } = fakeStore((what) =>
      what === 'wallets.aggregate' ? [{ _id: 'member:m-a', version: 7, balances: wallet.balances, totals: walletContent.totals, stored: [] }] : { matchedCount },
    );
    const totals = totalsOf([lowered]);
    // A change reads before it saves: the read saw version 7 with nothing to deliver.
    await store.loadWalletSlice('member:m-a', key);
    expect(await store.saveReservationChange({ walletId: 'member:m-a', reservation: lowered, totals, audit: null }, 7)).toBe(true);
    expect(calls[1]).toEqual({
      collection: 'wallets',
      method: 'updateOne',
      args: [{ bucket, _id: 'member:m-a', version: 7 }, { $set: { version: 8, totals, outbox: { at: expect.any(Date), reservations: [{ key, reservation: lowered }], audit: null } } }],
    });
    matchedCount = 0;
    expect(await store.saveReservationChange({ walletId: 'member:m-a', reservation: lowered, totals, audit: null }, 7)).toBe(false);
    await store.outbox.settle();
  });

  it('saves a change that drops expired reservations whole, against the version read: the change and the removals in its outbox', async () => {
    const gone = { ...rt1, reservationToken: 'rt-gone', expiresAt: new Date('2020-01-01T00:00:00.000Z') };
    const goneKey = { ...rt1Key, reservationToken: 'rt-gone' };
    let matchedCount = 1;
    const { store, calls } = fakeStore((what) => {
      if (what === 'wallets.aggregate') return [{ _id: 'member:m-a', version: 7, balances: wallet.balances, totals: totalsOf([rt1, gone]) }];
      if (what === 'wallets.findOne') return { _id: 'member:m-a', version: 7 };
      if (what === 'reservations.find') return [rt1, gone].map((r) => ({ _id: `x-${r.reservationToken}`, walletId: 'member:m-a', walletVersion: 6, ...r }));
      return { matchedCount };
    });
    const change = { walletId: 'member:m-a', reservation: lowered, totals: totalsOf([lowered]), audit: null, expired: [goneKey] };
    expect(await store.saveReservationChange(change, 7)).toBe(true);
    expect(calls.map((c) => `${c.collection}.${c.method}`).slice(0, 4)).toEqual(['wallets.aggregate', 'reservations.find', 'wallets.findOne', 'wallets.updateOne']);
    expect(calls[3]?.args).toEqual([
      { bucket, _id: 'member:m-a', version: 7 },
      {
        $set: {
          version: 8,
          balances: wallet.balances,
          totals: totalsOf([lowered]),
          outbox: { at: expect.any(Date), reservations: [{ key: rt1Key, reservation: lowered }, { key: goneKey, reservation: null }], audit: null },
        },
        $unset: { moves: '' },
      },
    ]);
    matchedCount = 0;
    expect(await store.saveReservationChange(change, 7)).toBe(false);
    expect(await store.saveReservationChange(change, 6)).toBe(false);
    await store.outbox.settle();
  });

  it('lists definitions with one indexed filter, sorted by id, fields mapped explicitly', async () => {
    // A raw document without the optional fields (and a null list of channels): its record leaves them out.
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
      redemptionRecord('rd-1', 'm-a', { redemptionName: 'One' }),
      redemptionRecord('rd-1', 'm-b', { redemptionName: 'Two' }),
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

describe('MongoStore liveness (`/healthz`)', () => {
  const stuckSince = new Date('2030-01-01T00:00:00.000Z');
  it.each<[string, ConnectionHealth, StoreLiveness]>([
    ['a client that answers', { reachable: true, stuckSince: null, recoverable: true, rebuilds: 0 }, { live: true }],
    ['a stuck client the watchdog may still replace', { reachable: false, stuckSince, recoverable: true, rebuilds: 2 }, { live: true }],
    [
      'a client stuck past the limit',
      { reachable: false, stuckSince, recoverable: false, rebuilds: 3 },
      { live: false, reason: "MongoDB answers a fresh client but not this process's since 2030-01-01T00:00:00.000Z, after 3 client replacements" },
    ],
  ])('%s', (_case, health, liveness) => {
    const client = { close: async () => undefined } as unknown as MongoClient;
    const store = MongoStore.over({ ...fixedConnection(client, {} as Db), health: () => health });
    expect(store.liveness()).toEqual(liveness);
  });
});
