import { MongoClient, type CommandStartedEvent, type Db } from 'mongodb';
import { BlockQuotaCounter } from '../../rate-limit/block-quota';
import type { RequestCounter, WindowCount } from '../../rate-limit/counter';
import { windowOf } from '../../rate-limit/windows';
import { collectionNames } from './collections';
import { quotaClaims, quotaReturns, windowDocumentKey } from './quota-claim';
import { systemError } from '../test-support/raw-errors';
import { describeOnMongoDB, uniqueDbName } from '../test-support/mongo-test-server';

/*
 * The rate limit's claims on MongoDB, under the block counting that makes
 * them (rate-limit/block-quota.ts, tested apart on an in-memory count).
 */

describe('the block counting on MongoDB claims, when MongoDB fails', () => {
  it("falls back to this process's own count instead of failing the request", async () => {
    const failing = { collection: () => ({ findOneAndUpdate: () => Promise.reject(systemError('ECONNREFUSED', 'connect ECONNREFUSED')) }) } as unknown as Db;
    const counter = new BlockQuotaCounter({ limit: 2, claim: quotaClaims(() => failing) });
    const hits = [];
    for (let i = 0; i < 3; i++) hits.push((await counter.hit('client-a')).hits);
    expect(hits).toEqual([1, 2, 3]);
    expect((await counter.hit('client-b')).hits).toBe(1);
  });

  it("answers with this process's own count when MongoDB does not answer in time", async () => {
    const silent = { collection: () => ({ findOneAndUpdate: () => new Promise(() => undefined) }) } as unknown as Db;
    const counter = new BlockQuotaCounter({ limit: 2, claim: quotaClaims(() => silent), timeoutMs: 50 });
    // Without the deadline the first hit would wait forever (the test's own timeout would fail it).
    const hits = [];
    for (let i = 0; i < 3; i++) hits.push((await counter.hit('client-a')).hits);
    expect(hits).toEqual([1, 2, 3]);
  });
});

describeOnMongoDB('The block counting on MongoDB claims', (uri) => {
  const dbName = uniqueDbName('quota-claim');
  const windowMs = 60_000;
  /** Two processes: a client each (commands counted), one database. */
  const clients: MongoClient[] = [];
  const commands = [0, 0];

  beforeAll(async () => {
    for (const i of [0, 1]) {
      const client = await new MongoClient(uri, { monitorCommands: true, serverSelectionTimeoutMS: 10_000 }).connect();
      client.on('commandStarted', (_event: CommandStartedEvent) => void commands[i]!++);
      clients.push(client);
    }
  }, 60_000);
  afterAll(async () => {
    await clients[0]?.db(dbName).dropDatabase();
    await Promise.all(clients.map((c) => c.close()));
  });

  /** Two counters, a process each (never `start`ed: no idle check), on a clock of the test's that starts when `key`'s window does. */
  function fleet(limit: number, key: string) {
    const start = windowOf(key, Date.now(), windowMs).start;
    const clock = { t: start, start, now: () => clock.t };
    const counters = clients.map(
      (client) => new BlockQuotaCounter({ limit, windowMs, claim: quotaClaims(() => client.db(dbName)), giveBack: quotaReturns(() => client.db(dbName)), now: clock.now }),
    );
    return { clock, counters };
  }

  /** `total` requests of `key`, alternating between the counters, `concurrency` at a time: those admitted, per counter. */
  async function spread(counters: RequestCounter[], key: string, limit: number, total: number, concurrency: number, tick = () => undefined as void) {
    const admitted = counters.map(() => 0);
    for (let sent = 0; sent < total; sent += concurrency) {
      const batch = Array.from({ length: Math.min(concurrency, total - sent) }, async (_, i) => {
        const which = (sent + i) % counters.length;
        tick();
        const count: WindowCount = await counters[which]!.hit(key);
        if (count.hits <= limit) admitted[which]!++;
      });
      await Promise.all(batch);
    }
    return admitted;
  }

  it('two processes admit exactly the limit of a key in a window (never more than the limit + 2 %), each key apart', async () => {
    const limit = 300;
    const { counters } = fleet(limit, 'client-shared');
    const admitted = await spread(counters, 'client-shared', limit, 2 * limit + 100, 20);
    expect(admitted[0]! + admitted[1]!).toBeLessThanOrEqual(Math.floor(limit * 1.02));
    expect(admitted[0]! + admitted[1]!).toBe(limit);
    expect((await counters[1]!.hit('client-other')).hits).toBe(1);
  });

  it('at the default limit, a process sends at most one counting command per 20 requests it admits', async () => {
    const limit = 6000;
    const { clock, counters } = fleet(limit, 'client-busy');
    commands.fill(0);
    // 100 requests a second over both, for a window and a half.
    const admitted = await spread(counters, 'client-busy', limit, 9000, 10, () => void (clock.t += 10));
    for (const i of [0, 1]) {
      expect(admitted[i]).toBeGreaterThan(4000);
      expect(commands[i]).toBeLessThanOrEqual(admitted[i]! / 20);
    }
  });

  it('refuses a flood of a key past its limit with no MongoDB command until its window ends, then counts again', async () => {
    const limit = 600;
    const { clock, counters } = fleet(limit, 'client-flood');
    await spread(counters, 'client-flood', limit, limit + 100, 20);
    commands.fill(0);
    clock.t += 1000;
    const refused = await spread(counters, 'client-flood', limit, 5000, 50);
    expect(refused).toEqual([0, 0]);
    expect(commands).toEqual([0, 0]);

    clock.t = clock.start + windowMs;
    const fresh = await counters[0]!.hit('client-flood');
    expect(fresh.hits).toBeLessThanOrEqual(limit);
    expect(fresh.msBeforeReset).toBe(windowMs);
    expect(commands[0]).toBe(1);
  });

  it("gives its unspent tokens back to the window's document when it closes, for another process to claim", async () => {
    const { clock, counters } = fleet(6000, 'client-back');
    const [closing, other] = counters;
    const window = { start: clock.start, end: clock.start + windowMs };
    const claimed = async () => (await clients[0]!.db(dbName).collection(collectionNames.rateLimits).findOne({ key: windowDocumentKey('client-back', window) }))?.claimed;
    for (let i = 0; i < 5; i++) await closing!.hit('client-back');
    // Its first block: 20 tokens claimed, 5 spent.
    expect(await claimed()).toBe(20);
    commands.fill(0);
    await closing!.close();
    // One command: the give-back.
    expect(commands).toEqual([1, 0]);
    expect(await claimed()).toBe(5);
    // Another process claims them again.
    await other!.hit('client-back');
    expect(await claimed()).toBe(25);
  });

  it('keeps one document per key and window, with an expiry (TTL index) one window after its end', async () => {
    const { clock, counters } = fleet(100, 'client-doc');
    await spread(counters, 'client-doc', 100, 10, 1);
    const window = { start: clock.start, end: clock.start + windowMs };
    const stored = await clients[0]!.db(dbName).collection(collectionNames.rateLimits).findOne({ key: windowDocumentKey('client-doc', window) });
    expect(stored).toMatchObject({ claimers: expect.arrayContaining([expect.any(String)]), expire: new Date(window.end + windowMs) });
    expect(stored?.claimers).toHaveLength(2);
    expect(stored?.claimed).toBeGreaterThanOrEqual(10);
  });
});
