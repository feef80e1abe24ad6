import path from 'node:path';
import { MongoClient } from 'mongodb';
import type { ReservationRecord } from '../../domain/model';
import { reservationRecord, sessionRecord, wallet } from '../test-support/records';
import { StoreUnavailableError } from '../port';
import { describeStoreContract } from '../test-support/store.contract';
import { collectionNames } from './collections';
import { MongoStore } from './mongo-store';
import { explainMissing, testMongoSource, stageNames, uniqueDbName } from '../test-support/mongo-test-server';

/*
 * Runs the shared Store contract against the MongoDB of MONGODB_URI. Without one,
 * the suite is skipped with the reason in its title: there is no faithful
 * fake of MongoDB, and a green run must not pretend the adapter was tested.
 */

const source = testMongoSource();
/** Null when the server explains query plans (mongo-wire does not). */
const explainSkip = source.kind === 'none' ? null : explainMissing(source);
const dbName = uniqueDbName(path.basename(__filename, '.test.ts'));

describe('MongoStore without a server', () => {
  // For the operator's start-up message: the driver's own reason, never the URI's credentials.
  // (Clients never see it: a StoreUnavailableError always answers the fixed 503 body.)
  it("fails to connect with StoreUnavailableError giving the driver's reason, without credentials", async () => {
    const connecting = MongoStore.connect({
      uri: 'mongodb://app:s3cret@127.0.0.1:1/?directConnection=true',
      dbName,
      serverSelectionTimeoutMS: 300,
    });
    await expect(connecting).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(connecting).rejects.toThrow(/^connect ECONNREFUSED 127\.0\.0\.1:1$/);
  });
});

if (source.kind === 'none') {
  it.skip(`MongoStore contract: skipped, ${source.reason}`, () => undefined);
} else {
  const { uri } = source;
  let admin: MongoClient;

  beforeAll(async () => {
    admin = await new MongoClient(uri, { serverSelectionTimeoutMS: 10_000 }).connect();
  }, 120_000);

  afterAll(async () => {
    await admin?.db(dbName).dropDatabase();
    await admin?.close();
  }, 60_000);

  /** Each test starts from an empty database; the store recreates its indexes on connect. */
  async function freshStore(): Promise<MongoStore> {
    await admin.db(dbName).dropDatabase();
    return MongoStore.connect({ uri, dbName, serverSelectionTimeoutMS: 10_000 });
  }

  describeStoreContract('MongoStore', async () => {
    const store = await freshStore();
    return { store, cleanup: () => store.close(), settle: () => store.outbox.settle() };
  });

  describe('MongoStore specifics', () => {
    let store: MongoStore;

    beforeEach(async () => {
      store = await freshStore();
    });

    afterEach(async () => {
      await store.close();
    });

    it('creates its indexes idempotently', async () => {
      await store.ensureIndexes();
      await store.ensureIndexes();
      const db = admin.db(dbName);
      const keysOf = async (name: string) => (await db.collection(name).indexes()).map((i) => ({ key: i.key, unique: i.unique, ttl: i.expireAfterSeconds }));
      expect(await keysOf(collectionNames.apiKeys)).toContainEqual({ key: { digest: 1 }, unique: true, ttl: undefined });
      expect(await keysOf(collectionNames.apiKeys)).toContainEqual({ key: { clientId: 1, createdAt: 1 }, unique: undefined, ttl: undefined });
      expect(await keysOf(collectionNames.members)).toContainEqual({ key: { householdId: 1 }, unique: undefined, ttl: undefined });
      expect(await keysOf(collectionNames.sessions)).toContainEqual({ key: { expiresAt: 1 }, unique: undefined, ttl: 0 });
      expect(await keysOf(collectionNames.voucherDefinitions)).toContainEqual({
        key: { businessUnit: 1, status: 1, voucherDefinitionId: 1 },
        unique: undefined,
        ttl: undefined,
      });
      expect(await keysOf(collectionNames.audit)).toContainEqual({ key: { reservationToken: 1, at: 1, walletVersion: 1 }, unique: undefined, ttl: undefined });
    });

    const definition = (id: string, businessUnit: string, status: string) => ({
      voucherDefinitionId: id,
      adminId: `ADM-${id}`,
      businessUnit,
      status,
      definitionName: id,
      rewardType: 'DOLLAR_OFF',
      rewardMetadata: { amount: 1, scopeType: 'CART' },
      expiryRule: { type: 'ROLLING' },
      creative: {},
      pointValue: null,
      redeemableValue: null,
    });
    const others = Array.from({ length: 60 }, (_, i) => definition(`x-${String(i).padStart(3, '0')}`, i % 2 ? 'SDM' : 'LCL', i % 2 ? 'PUBLISHED' : 'DRAFT'));

    it('lists only the published definitions of one unit, sorted, among others', async () => {
      await store.upsertVoucherDefinitions([...others, definition('vd-2', 'LCL', 'PUBLISHED'), definition('vd-1', 'LCL', 'PUBLISHED')]);
      expect((await store.listPublishedVoucherDefinitions('LCL', 'CUX')).map((d) => d.voucherDefinitionId)).toEqual(['vd-1', 'vd-2']);
    });

    (explainSkip === null ? it : it.skip)(
      explainSkip === null
        ? 'answers the voucher listing from its index, without reading other units or statuses or sorting'
        : `answers the voucher listing from its index: skipped, ${explainSkip}`,
      async () => {
        await store.upsertVoucherDefinitions([...others, definition('vd-2', 'LCL', 'PUBLISHED'), definition('vd-1', 'LCL', 'PUBLISHED')]);
        // The same filter and sort the adapter sends.
        const explain = await admin
          .db(dbName)
          .collection(collectionNames.voucherDefinitions)
          .find({
            businessUnit: 'LCL',
            status: 'PUBLISHED',
            $or: [{ usageChannels: 'CUX' }, { usageChannels: { $exists: false } }, { usageChannels: { $size: 0 } }],
          })
          .sort({ voucherDefinitionId: 1 })
          .explain('executionStats');
        const stages = stageNames(explain.queryPlanner?.winningPlan);
        expect(stages).toContain('IXSCAN');
        expect(stages).not.toContain('SORT');
        expect(stages).not.toContain('COLLSCAN');
        expect(explain.executionStats?.totalDocsExamined).toBeLessThanOrEqual(2);
      },
    );

    describe("delivering a change's outbox to the reservation documents", () => {
      const key = { clientId: 'c', correlationId: 'm-late', reservationToken: 'rt-1' };
      const record = (points: number) =>
        reservationRecord(key.reservationToken, key.correlationId, { [key.correlationId]: points }, { clientId: key.clientId, expiresAt: new Date('2999-01-01T00:00:00.000Z') });
      const walletOf = (reservations: ReservationRecord[]) => wallet('member:m-late', { 'm-late': 1000 }, reservations);
      const rawReservations = () => admin.db(dbName).collection(collectionNames.reservations).find({ walletId: 'member:m-late' }).toArray();

      it('writes a reservation created again over the tombstone its removal left', async () => {
        expect(await store.saveWallet(walletOf([record(300)]), 0)).toBe(true);
        expect(await store.saveWallet({ ...walletOf([]), version: 1 }, 1)).toBe(true);
        expect(await rawReservations()).toEqual([expect.objectContaining({ walletVersion: 2, removedAt: expect.any(Date) })]);
        expect(await store.saveWallet({ ...walletOf([record(200)]), version: 2 }, 2)).toBe(true);
        const [raw] = await rawReservations();
        expect(raw).toMatchObject({ walletVersion: 3, reservationAmount: 200 });
        expect(raw).not.toHaveProperty('removedAt');
        expect((await store.loadWalletSlice('member:m-late', key))?.reservation).toStrictEqual(record(200));
      });

      it.each([
        ['created', 7, 100, true],
        ['changed', 7, 100, false],
        ['created', 4, 250, true],
        ['changed', 4, 250, false],
      ] as const)(
        'delivers a late outbox of version 5 (%s) only over an older reservation document (version %d: %d points)',
        async (_kind, storedVersion, expectedPoints, created) => {
          expect(await store.saveWallet(walletOf([record(300)]), 0)).toBe(true);
          const raw = admin.db(dbName);
          // The reservation document as another change left it, and a wallet whose outbox (version 5) was never delivered.
          await raw.collection(collectionNames.reservations).updateOne({ walletId: 'member:m-late' }, { $set: { walletVersion: storedVersion, reservationAmount: 100 } });
          const reservations = [{ key, reservation: record(250), ...(created ? { created: true } : {}) }];
          await raw.collection(collectionNames.wallets).updateOne({ _id: 'member:m-late' as never }, { $set: { version: 5, outbox: { at: new Date(), reservations, audit: null } } });
          // Any reader of version 5 delivers its outbox first (and, without an audit entry, clears it).
          await store.loadWalletSlice('member:m-late', key);
          expect(await rawReservations()).toEqual([expect.objectContaining({ walletVersion: Math.max(storedVersion, 5), reservationAmount: expectedPoints })]);
          expect(await raw.collection(collectionNames.wallets).findOne({ _id: 'member:m-late' as never })).not.toHaveProperty('outbox');
        },
      );
    });

    it('reads the session keys with the ended sessions in one command', async () => {
      const sent: string[] = [];
      const observed = await MongoStore.connect({ uri, dbName, serverSelectionTimeoutMS: 10_000 }, { onCommand: (event) => sent.push(`${event.commandName} ${String(event.command[event.commandName])}`) });
      try {
        const expiresAt = new Date('2099-01-01T00:00:00.000Z');
        for (const sessionId of ['sid-1', 'sid-2']) await observed.endSession({ sessionId, expiresAt });
        sent.length = 0;
        const read = await observed.readSessionState(new Date('2030-01-01T00:00:00.000Z'), new Date(0), 10);
        expect(read.keys).toHaveLength(1);
        expect(read.ended.map((e) => e.sessionId)).toEqual(['sid-1', 'sid-2']);
        expect(sent).toEqual(['aggregate sessionKeys']);
      } finally {
        await observed.close();
      }
    });

    it('reads the ended sessions of a database without a live session key (before the fleet has one): no keys, its sign-outs still', async () => {
      await admin.db(dbName).collection(collectionNames.sessionKeys).deleteMany({});
      const expiresAt = new Date('2099-01-01T00:00:00.000Z');
      await store.endSession({ sessionId: 'sid-1', expiresAt });
      const read = await store.readSessionState(new Date('2030-01-01T00:00:00.000Z'), new Date(0), 10);
      expect(read).toStrictEqual({ keys: [], ended: [{ sessionId: 'sid-1', endedAt: expect.any(Date) as Date, expiresAt }] });
    });

    it('stores dates as BSON dates and keeps internal fields inside the adapter', async () => {
      await store.insertSession(sessionRecord('h1'));
      const raw = await admin.db(dbName).collection<{ _id: string; expiresAt: unknown }>(collectionNames.sessions).findOne({ _id: 'h1' });
      expect(raw?.expiresAt).toBeInstanceOf(Date);
      expect(Object.keys((await store.findSession('h1')) ?? {})).not.toContain('_id');
    });
  });
}
