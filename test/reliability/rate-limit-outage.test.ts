import { MongoClient } from 'mongodb';
import { BlockQuotaCounter } from '../../server/src/rate-limit/block-quota';
import type { WindowCount } from '../../server/src/rate-limit/counter';
import { windowOf } from '../../server/src/rate-limit/windows';
import { collectionNames } from '../../server/src/store/mongo/collections';
import { quotaClaims, windowDocumentKey } from '../../server/src/store/mongo/quota-claim';
import { testMongoSource, uniqueDbName } from '../../server/src/store/test-support/mongo-test-server';
import { eventually } from '../../server/src/test-support/time';
import { singleMongoHost, startTcpProxy, throughProxy, type TcpProxy } from '../support/tcp-proxy';

/*
 * The fleet-wide rate limit while MongoDB is away: two processes' counters,
 * each with its own client through a TCP proxy that cuts every connection,
 * on a clock of the test's. What docs/design/rate-limit.md ("MongoDB
 * away") promises: a claim that finds MongoDB away is given up (at its
 * deadline), after which no request waits for MongoDB, and after the window in which MongoDB went away each process admits at
 * most its share of the limit per window (the limit divided by the
 * processes it saw claiming), so the fleet stays at the limit; once MongoDB
 * is back, what each admitted alone is added to the window's count.
 */

jest.setTimeout(60_000);

const source = testMongoSource();
const proxied = source.kind === 'uri' ? singleMongoHost(source.uri) : null;
const skip = source.kind === 'none' ? source.reason : proxied ? null : 'MONGODB_URI names several hosts; the outage proxy takes one';

const windowMs = 60_000;
const limit = 600;
// The default deadline: shorter ones can pass on a loaded machine while MongoDB answers, and a process then counts alone.
const timeoutMs = 1000;
const retryMs = 200;

(skip === null ? describe : describe.skip)(`the rate limit while MongoDB is away${skip ? `: skipped, ${skip}` : ''}`, () => {
  const dbName = uniqueDbName('rate-limit-outage');
  const clients: MongoClient[] = [];
  const proxies: TcpProxy[] = [];

  afterAll(async () => {
    for (const proxy of proxies) await proxy.restore();
    await clients[0]?.db(dbName).dropDatabase();
    await Promise.all(clients.map((c) => c.close()));
    for (const proxy of proxies) await proxy.close();
  });

  /** Two processes, a client each through one proxy, on a clock of the test's that starts with `key`'s window. */
  async function fleet(key: string) {
    const proxy = await startTcpProxy(proxied!);
    proxies.push(proxy);
    const start = windowOf(key, Date.now(), windowMs).start;
    const clock = { t: start, now: () => clock.t };
    const own: MongoClient[] = [];
    for (let i = 0; i < 2; i++) {
      own.push(await new MongoClient(throughProxy(source.kind === 'uri' ? source.uri : '', proxy), { serverSelectionTimeoutMS: 1000 }).connect());
    }
    clients.push(...own);
    const counters = own.map((client) => new BlockQuotaCounter({ limit, windowMs, claim: quotaClaims(() => client.db(dbName)), now: clock.now, timeoutMs, retryMs }));
    return { proxy, start, clock, counters, reader: own[0]!.db(dbName).collection(collectionNames.rateLimits) };
  }

  /**
   * `total` requests of `key` alternating between the processes, ten at a
   * time: admitted per process, and how many had to wait for a claim (those
   * the counter answered with a promise, not at once).
   */
  async function spread(counters: BlockQuotaCounter[], key: string, total: number): Promise<{ admitted: number[]; waited: number }> {
    const admitted = [0, 0];
    let waited = 0;
    for (let sent = 0; sent < total; sent += 10) {
      await Promise.all(
        Array.from({ length: 10 }, async (_, i) => {
          const which = (sent + i) % 2;
          const answer = counters[which]!.hit(key);
          if (answer instanceof Promise) waited++;
          const count: WindowCount = await answer;
          if (count.hits <= limit) admitted[which]!++;
        }),
      );
    }
    return { admitted, waited };
  }

  it.each<[string, (proxy: TcpProxy) => Promise<void> | void]>([
    ['cut (connections reset and refused)', (proxy) => proxy.cut()],
    ['stalled (nothing answers)', (proxy) => proxy.stall()],
  ])(
    'MongoDB %s: the claim that finds it away is given up, then nothing waits for it; after the first window each process admits its share (limit / 2), the fleet the limit; back, the admissions made alone are counted',
    async (how, goAway) => {
      const key = `client-${how.split(' ')[0]}`;
      const { proxy, start, clock, counters, reader } = await fleet(key);
      // Both claim while MongoDB answers: each sees the other in the window's claimers.
      expect((await spread(counters, key, 100)).admitted).toEqual([50, 50]);

      await goAway(proxy);
      const first = await spread(counters, key, 2000);
      // What each holds, then its share of the window, its 50 earlier admissions included.
      expect(first.admitted).toEqual([limit / 2 - 50, limit / 2 - 50]);
      // The claim that found MongoDB away was given up at its deadline (its own timer: how long, the unit tests
      // time on a fake clock, block-quota.test.ts): both processes count alone.
      expect(counters.map((counter) => counter.countingAlone)).toEqual([true, true]);

      for (let window = 1; window <= 2; window++) {
        clock.t = start + window * windowMs;
        const later = await spread(counters, key, 2000);
        expect(later.admitted).toEqual([limit / 2, limit / 2]);
        // Counted alone at once: nothing waits for MongoDB any more.
        expect(later.waited).toBe(0);
      }

      await proxy.restore();
      clock.t = start + 3 * windowMs;
      const alone = (await spread(counters, key, 20)).admitted;
      // One claim of each process at a time tries MongoDB again, every retryMs; the first that gets
      // through reports what its process admitted alone. Until both processes are in the window's claimers.
      const window = { start: clock.t, end: clock.t + windowMs };
      // The clients reconnect in their own time (real drivers, a real network): asked again until both got through,
      // each time a retry later on the processes' clock, within the window.
      const stored = await eventually(
        'both processes among the claimers again',
        async () => {
          clock.t = Math.min(clock.t + retryMs, window.end - 1);
          await Promise.all(counters.map(async (counter) => counter.hit(key)));
          const found = await reader.findOne<{ claimed: number; claimers: string[] }>({ key: windowDocumentKey(key, window) });
          return found?.claimers.length === 2 && found;
        },
        { timeoutMs: 20_000, intervalMs: 50 },
      );
      expect(stored.claimed).toBeGreaterThanOrEqual(alone[0]! + alone[1]!);

      // The next window is counted on MongoDB again: the fleet admits the limit.
      clock.t = start + 4 * windowMs;
      const again = await spread(counters, key, 2 * limit);
      expect(again.admitted[0]! + again.admitted[1]!).toBe(limit);
    },
  );
});
