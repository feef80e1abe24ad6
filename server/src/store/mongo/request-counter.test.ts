import type { Db } from 'mongodb';
import { MongoStore } from './mongo-store';
import { MongoRequestCounter } from './request-counter';
import { systemError } from './test-support/raw-errors';
import { connectTestStore, testMongoSource, type TestMongoStore } from './test-support/mongo-test-server';

describe('MongoRequestCounter when MongoDB fails', () => {
  it("falls back to this process's own count instead of failing the request", async () => {
    const failing = { collection: () => ({ findOneAndUpdate: () => Promise.reject(systemError('ECONNREFUSED', 'connect ECONNREFUSED')) }) } as unknown as Db;
    const counter = new MongoRequestCounter(2, 60, () => ({ db: failing, generation: 0 }));
    const hits = [];
    for (let i = 0; i < 3; i++) hits.push((await counter.hit('client-a')).hits);
    expect(hits).toEqual([1, 2, 3]);
    expect((await counter.hit('client-b')).hits).toBe(1);
  });

  it("answers with this process's own count when MongoDB does not answer in time", async () => {
    const silent = { collection: () => ({ findOneAndUpdate: () => new Promise(() => undefined) }) } as unknown as Db;
    const counter = new MongoRequestCounter(2, 60, () => ({ db: silent, generation: 0 }), 50);
    // Without the timeout each hit would wait forever (the test's own timeout would fail it).
    const hits = [];
    for (let i = 0; i < 3; i++) hits.push((await counter.hit('client-a')).hits);
    expect(hits).toEqual([1, 2, 3]);
  });
});

const source = testMongoSource();
if (source.kind === 'none') {
  it.skip(`MongoRequestCounter on MongoDB: skipped, ${source.reason}`, () => undefined);
} else {
  describe('MongoRequestCounter on MongoDB', () => {
    let first: TestMongoStore;
    let second: MongoStore;

    beforeAll(async () => {
      first = await connectTestStore(source.uri, 'request-counter');
      // A second process: its own client, the same database.
      second = await MongoStore.connect({ uri: source.uri, dbName: first.dbName, serverSelectionTimeoutMS: 10_000 });
    }, 60_000);
    afterAll(async () => {
      await second?.close();
      await first?.cleanup();
    });

    it('counts the requests of one key across processes in one window, each key apart', async () => {
      const a = first.store.requestCounter(5, 60);
      const b = second.requestCounter(5, 60);
      const hits: number[] = [];
      for (let i = 0; i < 8; i++) hits.push((await (i % 2 ? b : a).hit('client-shared')).hits);
      expect(hits).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
      expect((await b.hit('client-other')).hits).toBe(1);
    });

    it('starts a new window once the last one ended', async () => {
      const counter = first.store.requestCounter(5, 1);
      expect((await counter.hit('client-window')).hits).toBe(1);
      expect((await counter.hit('client-window')).hits).toBe(2);
      await new Promise((resolve) => setTimeout(resolve, 1100));
      const fresh = await counter.hit('client-window');
      expect(fresh.hits).toBe(1);
      expect(fresh.msBeforeReset).toBeGreaterThan(0);
      expect(fresh.msBeforeReset).toBeLessThanOrEqual(1000);
    });
  });
}
