import { MongoClient } from 'mongodb';
import { pino } from 'pino';
import { depsOf, walletLabelOf } from './composition';
import { defaultWalletLimits } from './domain/limits';
import { memberIdHash } from './domain/secrets';
import { collectionNames } from './store/mongo/collections';
import { connectTestStore, dropTestDatabase, testMongoSource } from './store/mongo/test-support/mongo-test-server';

describe('walletLabelOf: how a log line names a wallet', () => {
  const key = new Uint8Array(32).fill(7);
  it.each([
    ['hashed', 'member:m-alice', `member:${memberIdHash(key, 'm-alice')}`],
    ['off', 'member:m-alice', 'member:(member id not logged)'],
    ['plain', 'member:m-alice', 'member:m-alice'],
    ['hashed', 'household:hh-1', 'household:hh-1'],
    ['off', 'household:hh-1', 'household:hh-1'],
  ] as const)('LOG_MEMBER_IDS=%s: %s as %s', (mode, walletId, shown) => {
    expect(walletLabelOf(mode, key)(walletId)).toBe(shown);
  });
});

const source = testMongoSource();
if (source.kind === 'none') {
  it.skip(`depsOf on MongoDB, when the process stops: skipped, ${source.reason}`, () => undefined);
} else {
  describe('depsOf on MongoDB, when the process stops', () => {
    it("closing its store gives the rate limit's unspent tokens back to the window's count first, then closes the client", async () => {
      const { store, dbName } = await connectTestStore(source.uri, 'composition-close');
      const reader = await new MongoClient(source.uri, { serverSelectionTimeoutMS: 10_000 }).connect();
      try {
        const deps = depsOf(store, { walletLimits: defaultWalletLimits, rateLimitPerMinute: 6000 }, pino({ level: 'silent' }));
        const windows = reader.db(dbName).collection(collectionNames.rateLimits);
        await deps.requestCounter!.hit('client-closing');
        // Its first block: 20 tokens claimed, 1 spent.
        expect((await windows.findOne({}))?.claimed).toBe(20);
        await deps.store.close();
        expect((await windows.findOne({}))?.claimed).toBe(1);
      } finally {
        await reader.close();
        await dropTestDatabase(source.uri, dbName);
      }
    });
  });
}
