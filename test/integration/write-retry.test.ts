import { MongoClient, MongoNetworkError, type Collection, type Db } from 'mongodb';
import { pino } from 'pino';
import { depsOf } from '../../server/src/composition';
import { defaultWalletLimits } from '../../server/src/domain/limits';
import { demoFixturePath, readFixtureFile } from '../../server/src/features/load/read-fixture';
import { loadFixture } from '../../server/src/features/load/load-fixture';
import { storeDb } from '../../server/src/store/mongo/concerns';
import { fixedConnection } from '../../server/src/store/mongo/connection';
import { MongoStore } from '../../server/src/store/mongo/mongo-store';
import { dropTestDatabase, describeOnMongoDB, uniqueDbName } from '../../server/src/store/test-support/mongo-test-server';
import { startTestApp } from '../../server/src/test-support/app-harness';

/*
 * Operation B is safe to retry across an election. What a client sees when
 * the primary steps down under it: its write was applied, and the answer
 * lost (a network error after the write). On a replica set the driver
 * retries such a write once itself (retryable writes, on by default), and
 * the server applies it once; here, on one node, the error reaches the
 * service, which answers 503, not knowing whether its write was applied.
 * The partner retries, as the spec allows a 503 to be retried; the
 * compare-and-set's version then sees the change already made:
 * the retry answers 200 with the same result, the points move once and the
 * change's audit entry (from its outbox) is in the trail once.
 */

jest.setTimeout(60_000);

const key = 'demo_secret_partner_app_0001';

/** The database with the wallets' next compare-and-set applied, and then a network error instead of its answer. */
function losingTheNextAnswer(db: Db): { db: Db; armed: { next: boolean } } {
  const armed = { next: false };
  const wrapped = new Proxy(db, {
    get(target, property, receiver) {
      if (property !== 'collection') return Reflect.get(target, property, receiver);
      return (name: string, options?: object) => {
        const collection = target.collection(name, options);
        if (name !== 'wallets') return collection;
        return new Proxy(collection, {
          get(inner: Collection, member, innerReceiver) {
            if (member !== 'updateOne') {
              const value: unknown = Reflect.get(inner, member, innerReceiver);
              return typeof value === 'function' ? value.bind(inner) : value;
            }
            return async (...args: Parameters<Collection['updateOne']>) => {
              const result = await inner.updateOne(...args);
              if (armed.next) {
                armed.next = false;
                throw new MongoNetworkError('connection reset after the write');
              }
              return result;
            };
          },
        });
      };
    },
  });
  return { db: wrapped, armed };
}

describeOnMongoDB('Operation B retried after a network error that followed its write', (uri) => {
  const dbName = uniqueDbName('writeretry');
  let client: MongoClient;
  let store: MongoStore;
  let base: string;
  let close: () => Promise<void>;
  let armed: { next: boolean };

  beforeAll(async () => {
    client = await new MongoClient(uri, { serverSelectionTimeoutMS: 10_000 }).connect();
    const losing = losingTheNextAnswer(storeDb(client, dbName));
    armed = losing.armed;
    store = MongoStore.over(fixedConnection(client, losing.db));
    await store.ensureIndexes();
    await loadFixture(store, await readFixtureFile(demoFixturePath), new Date());
    // The production services on this store (depsOf: main's wiring on MongoDB), started by the test harness.
    const deps = depsOf(store, { walletLimits: defaultWalletLimits, rateLimitPerMinute: 0 }, pino({ level: 'silent' }));
    const app = await startTestApp({ deps });
    base = app.baseUrl;
    close = async () => {
      await app.close();
      await client.close();
      await dropTestDatabase(uri, dbName);
    };
  });
  afterAll(() => close());

  it('a 503, then the retry answers 200 with the same balances; the points moved once, the entry is in the trail once', async () => {
    const session = await fetch(`${base}/client/users/m-hh-1/sessions`, { method: 'POST', headers: { 'x-api-key': key, 'x-identifier-type': 'CARD_NUMBER' } });
    const { sessionToken } = (await session.json()) as { sessionToken: string };
    const lower = () =>
      fetch(`${base}/client/users/m-hh-1/reservations/rt-hh-1`, {
        method: 'PUT',
        headers: { 'x-api-key': key, authorization: `Bearer ${sessionToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ reservationAmount: 6000 }),
      });
    const before = await store.loadWallet('household:hh-1');

    armed.next = true;
    const lost = await lower();
    expect(lost.status).toBe(503);
    const retried = await lower();
    expect(retried.status).toBe(200);
    const answer = (await retried.json()) as { availablePointBalance: number; household: { availablePointsBalance: number } };

    const after = await store.loadWallet('household:hh-1');
    const held = (wallet: typeof before) => wallet!.reservations.find((r) => r.reservationToken === 'rt-hh-1')!.reservationAmount;
    expect(held(after)).toBe(6000);
    // One change: one version more, and what was given back is exactly the difference.
    expect(after!.version).toBe(before!.version + 1);
    expect(answer.household.availablePointsBalance).toBeGreaterThan(0);
    await store.outbox.settle();
    const trail = await store.listAudit('rt-hh-1');
    expect(trail.map((e) => [e.before?.reservationAmount, e.after.reservationAmount])).toEqual([[held(before), 6000]]);
  });
});
