import { MongoClient, type Document } from 'mongodb';
import { defaultWalletLimits } from '../../server/src/domain/limits';
import { createReservationService } from '../../server/src/features/reservations/service';
import { loadFixture } from '../../server/src/features/load/load-fixture';
import { collectionNames } from '../../server/src/store/mongo/collections';
import type { MongoStore } from '../../server/src/store/mongo/mongo-store';
import { connectTestStore, describeOnMongoDB, type TestMongoStore } from '../../server/src/store/test-support/mongo-test-server';
import { fixtureClient, fixtureMember, fixtureReservation } from '../../server/src/test-support/fixture-entries';
import { sessionRecord } from '../../server/src/store/test-support/records';

/*
 * Audit ids on MongoDB when a wallet goes back to a version it had: its
 * wallet and reservation documents restored from a backup while the audit
 * trail is kept. The next change makes that version again; its entry must
 * reach the trail beside the old one (not be taken for it, as delivered),
 * and its reservation document must be written. (That delivering one entry
 * twice stores it once: outbox.test.ts; the memory store's log:
 * audit-log.test.ts.)
 */

jest.setTimeout(60_000);

const now = () => new Date();

describeOnMongoDB('audit ids across a wallet restored to an earlier version, the trail kept', (uri) => {
  let test: TestMongoStore;
  let store: MongoStore;
  let raw: MongoClient;

  beforeAll(async () => {
    raw = await new MongoClient(uri, { serverSelectionTimeoutMS: 10_000 }).connect();
    test = await connectTestStore(uri, 'auditids');
    store = test.store;
    await loadFixture(
      store,
      {
        clients: [fixtureClient('app', 'pk_app_000000000001')],
        members: [fixtureMember('m-a', 1000)],
        reservations: [fixtureReservation('rt-1', 'm-a', { 'm-a': 400 }, { clientId: 'app', expiresAt: new Date(Date.now() + 3_600_000).toISOString() })],
      },
      now(),
    );
  });
  afterAll(async () => {
    await raw.close();
    await test.cleanup();
  });

  it("a change that makes a version again reaches the trail as an entry of its own, its reservation written; each entry once", async () => {
    const db = raw.db(test.dbName);
    const service = createReservationService({ store, clock: now, walletLimits: defaultWalletLimits });
    const client = (await store.findClient('app'))!;
    const session = sessionRecord('h', { clientId: 'app', keyId: 'key_x', correlationId: 'm-a', identifierType: 'CARD_NUMBER', expiresAt: new Date(Date.now() + 3_600_000), walletId: 'member:m-a' });
    const lower = (amount: number) => service.updateReservation({ client, session, correlationId: 'm-a', reservationToken: 'rt-1' }, { reservationAmount: amount });

    // The backup: the wallet and its reservations as they are now.
    const backup = {
      wallet: (await db.collection(collectionNames.wallets).findOne({ _id: 'member:m-a' as never }))!,
      reservations: await db.collection(collectionNames.reservations).find({ walletId: 'member:m-a' }).toArray(),
    };
    await lower(300);
    await store.outbox.settle();
    const [first] = await store.listAudit('rt-1');

    // Restored; the trail kept.
    await db.collection(collectionNames.wallets).replaceOne({ _id: 'member:m-a' as never }, backup.wallet);
    for (const doc of backup.reservations) await db.collection<Document>(collectionNames.reservations).replaceOne({ _id: doc._id }, doc);
    await lower(200);
    await store.outbox.settle();

    const trail = await store.listAudit('rt-1');
    expect(trail.map((e) => [e.walletVersion, e.before?.reservationAmount, e.after.reservationAmount])).toEqual([
      [first!.walletVersion, 400, 300],
      [first!.walletVersion, 400, 200],
    ]);
    expect(trail[0]!.id).not.toBe(trail[1]!.id);
    expect((await db.collection(collectionNames.reservations).findOne({ walletId: 'member:m-a', reservationToken: 'rt-1' }))?.reservationAmount).toBe(200);

    expect(await db.collection(collectionNames.audit).countDocuments({ reservationToken: 'rt-1' })).toBe(2);
  });
});
