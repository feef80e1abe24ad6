import { memberIdHash } from '../../domain/secrets';
import { MongoStore } from './mongo-store';
import { dropTestDatabase, describeOnMongoDB, uniqueDbName } from '../test-support/mongo-test-server';

describeOnMongoDB('the log key on MongoDB, several processes on one database', (uri) => {
  const dbName = uniqueDbName('logkey');
  const connect = () => MongoStore.connect({ uri, dbName, serverSelectionTimeoutMS: 10_000 });
  afterAll(() => dropTestDatabase(uri, dbName));

  it('is made once, by whichever asks first, and every process (and a restart) reads the same one', async () => {
    const stores = await Promise.all([connect(), connect(), connect()]);
    let first: Buffer;
    try {
      // Three first starts at once: one makes the key, the others read it.
      const keys = await Promise.all(stores.flatMap((store) => [store.logKey(), store.logKey()]));
      first = keys[0]!;
      expect(first).toHaveLength(32);
      for (const key of keys) expect(key.equals(first)).toBe(true);
    } finally {
      await Promise.all(stores.map((store) => store.close()));
    }
    const restarted = await connect();
    try {
      expect(memberIdHash(await restarted.logKey(), 'm-alice')).toBe(memberIdHash(first, 'm-alice'));
    } finally {
      await restarted.close();
    }
  });
});
