import fc from 'fast-check';
import { BlockQuotaCounter, closeTimeoutMs, type Claim, type GiveBack } from './block-quota';
import type { WindowCount } from './counter';
import { windowOf } from './windows';
import { SharedCounts } from '../test-support/shared-counts';

/*
 * The block counting against an in-memory stand-in of the window documents
 * (test-support/shared-counts.ts), on a clock of the test's: the same
 * checks on MongoDB are in store/mongo/quota-claim.test.ts.
 */

const windowMs = 60_000;
const key = 'client-a';

/** A clock the test moves, starting at the beginning of `key`'s window. */
function testClock(): { now: () => number; t: number; start: number } {
  const start = windowOf(key, Date.UTC(2026, 0, 1), windowMs).start;
  const clock = { t: start, start, now: () => clock.t };
  return clock;
}

function processes(count: number, limit: number, counts: SharedCounts, now: () => number, timeoutMs = 1000): BlockQuotaCounter[] {
  return Array.from(
    { length: count },
    (_, i) => new BlockQuotaCounter({ limit, windowMs, claim: counts.claimOf(`p${i}`), giveBack: counts.giveBackOf(`p${i}`), timeoutMs, now }),
  );
}

const admits = (limit: number) => (count: WindowCount) => count.hits <= limit;

/** `total` requests of one key, round robin over the processes, `concurrency` at a time: which were admitted, per process. */
async function spread(fleet: BlockQuotaCounter[], limit: number, total: number, concurrency: number, tick = () => undefined as void): Promise<number[]> {
  const admitted = fleet.map(() => 0);
  for (let sent = 0; sent < total; sent += concurrency) {
    const batch = Array.from({ length: Math.min(concurrency, total - sent) }, async (_, i) => {
      const which = (sent + i) % fleet.length;
      tick();
      if (admits(limit)(await fleet[which]!.hit(key))) admitted[which]!++;
    });
    await Promise.all(batch);
  }
  return admitted;
}

const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);

describe('BlockQuotaCounter: the fleet-wide limit', () => {
  it.each([
    [5, 2],
    [300, 2],
    [300, 3],
    [6000, 2],
    [6000, 4],
  ])('limit %i on %i processes: requests spread over all of them, well past the limit, admit exactly the limit in one window', async (limit, count) => {
    const counts = new SharedCounts();
    const clock = testClock();
    const fleet = processes(count, limit, counts, clock.now);
    const admitted = await spread(fleet, limit, 2 * limit + 20 * count, 20);
    expect(sum(admitted)).toBe(limit);
  });

  it('never admits more than the limit in a window, whatever the interleaving, concurrency and fleet size', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 4 }), fc.integer({ min: 1, max: 400 }), fc.integer({ min: 1, max: 30 }), fc.integer({ min: 0, max: 3 }), async (count, limit, concurrency, extra) => {
        const counts = new SharedCounts();
        const clock = testClock();
        const fleet = processes(count, limit, counts, clock.now);
        const admitted = await spread(fleet, limit, limit * (1 + extra) + 1, concurrency);
        expect(sum(admitted)).toBeLessThanOrEqual(limit);
      }),
      { numRuns: 60 },
    );
  });

  it('a process that stops getting requests of the key holds at most a small block: the others still reach the limit, less that block', async () => {
    const limit = 6000;
    const counts = new SharedCounts();
    const clock = testClock();
    const [quiet, busy] = processes(2, limit, counts, clock.now);
    // Both serve the key for a while (10 ms apart), then only the busy one gets its requests.
    await spread([quiet!, busy!], limit, 2000, 1, () => void (clock.t += 10));
    const admitted = await spread([busy!], limit, 10_000, 1, () => void (clock.t += 1));
    const quietHeld = limit - 1000 - (1000 + admitted[0]!);
    // Its last block: at most 5 % of the limit (300), and about 6 s of its traffic.
    expect(quietHeld).toBeGreaterThanOrEqual(0);
    expect(quietHeld).toBeLessThanOrEqual(300);
  });
});

describe('BlockQuotaCounter: tokens that come back', () => {
  const limit = 6000;

  it("a key's traffic moving from ten processes to one mid-window: the fleet refuses it no earlier than 5 % below its limit", async () => {
    const counts = new SharedCounts();
    const clock = testClock();
    const fleet = processes(10, limit, counts, clock.now);
    // 150 requests a second all the window long: spread over the ten for 20 s, then all to p0.
    // Every process checks its blocks every half block's time, as the timer of `start` does.
    let admitted = 0;
    let refusedFirstAt: number | null = null;
    for (let ms = 0; ms < windowMs; ms += 20) {
      clock.t = clock.start + ms;
      if (ms % (fleet[0]!.blockMs / 2) === 0) await Promise.all(fleet.map((p) => p.returnIdle()));
      for (let i = 0; i < 3; i++) {
        const which = ms < 20_000 ? (ms / 20 + i) % fleet.length : 0;
        if (admits(limit)(await fleet[which]!.hit(key))) admitted++;
        else refusedFirstAt ??= admitted;
      }
    }
    expect(refusedFirstAt).not.toBeNull();
    expect(refusedFirstAt!).toBeGreaterThanOrEqual(0.95 * limit);
    expect(admitted).toBeLessThanOrEqual(limit);
    expect(counts.givenBack.length).toBeGreaterThanOrEqual(9);
  });

  it('keeps a block used within a block\'s time, and gives back one unused for that long', async () => {
    const counts = new SharedCounts();
    const clock = testClock();
    const [counter] = processes(1, limit, counts, clock.now);
    await counter!.hit(key);
    const claimed = counts.claimed(key, clock.start);
    clock.t += counter!.blockMs - 1;
    await counter!.returnIdle();
    expect(counts.givenBack).toEqual([]);
    clock.t += 1;
    await counter!.returnIdle();
    expect(counts.givenBack).toEqual([{ process: 'p0', key, tokens: claimed - 1 }]);
    expect(counts.claimed(key, clock.start)).toBe(1);
    // Nothing held any more: the next request claims again.
    await counter!.hit(key);
    expect(counts.claims).toHaveLength(2);
  });

  it('a process that stops (close) gives back all it holds: the others reach the limit, exactly', async () => {
    const counts = new SharedCounts();
    const clock = testClock();
    const [stopping, staying] = processes(2, limit, counts, clock.now);
    await spread([stopping!, staying!], limit, 2000, 1, () => void (clock.t += 5));
    await stopping!.close();
    const admitted = await spread([staying!], limit, 10_000, 1, () => void (clock.t += 1));
    expect(1000 + 1000 + admitted[0]!).toBe(limit);
  });

  it('gives nothing back while the count is away (it would not hear it), and keeps spending what it holds', async () => {
    const counts = new SharedCounts();
    const clock = testClock();
    const [counter] = processes(1, limit, counts, clock.now, 50);
    await counter!.hit(key);
    counts.behaviour = 'fail';
    clock.t += windowMs / 2;
    // A key whose block is spent: its claim fails, and the process counts alone.
    for (let i = 0; i < 400; i++) await counter!.hit(`${key}-other`);
    expect(counter!.countingAlone).toBe(true);
    await counter!.close();
    expect(counts.givenBack).toEqual([]);
    expect(admits(limit)(await counter!.hit(key))).toBe(true);
  });
});

describe('BlockQuotaCounter: close waits for its give-back at most closeTimeoutMs, and leaves no timer behind', () => {
  const limit = 6000;
  const refused = new Error('refused');
  const giveBacks: Array<[string, GiveBack, 'resolves' | 'rejects', number]> = [
    ['answers', async () => undefined, 'resolves', 0],
    ['never answers', () => new Promise<void>(() => undefined), 'resolves', closeTimeoutMs],
    [
      'fails at once (it throws)',
      () => {
        throw refused;
      },
      'rejects',
      0,
    ],
  ];

  afterEach(() => jest.useRealTimers());

  it.each(giveBacks)('a give-back that %s', async (_case, giveBack, outcome, waitMs) => {
    const counts = new SharedCounts();
    const clock = testClock();
    const counter = new BlockQuotaCounter({ limit, windowMs, claim: counts.claimOf('p0'), giveBack, now: clock.now });
    // Holds tokens: close has something to give back.
    await counter.hit(key);
    jest.useFakeTimers();
    const closing = counter.close();
    const settled = outcome === 'resolves' ? expect(closing).resolves.toBeUndefined() : expect(closing).rejects.toBe(refused);
    await jest.advanceTimersByTimeAsync(waitMs);
    await settled;
    expect(jest.getTimerCount()).toBe(0);
  });
});

describe('BlockQuotaCounter: counting writes', () => {
  const limit = 6000;

  it.each<[string, number, number]>([
    ['a flood (all at once)', 0, 50],
    ['100 requests a second over the fleet', 10, 1],
    ['20 requests a second over the fleet', 50, 1],
  ])('at the default limit, %s: at most one claim per 20 admitted requests, per process, over two windows', async (_load, msApart, concurrency) => {
    const counts = new SharedCounts();
    const clock = testClock();
    const fleet = processes(2, limit, counts, clock.now);
    const admitted = [0, 0];
    while (clock.t < clock.start + 2 * windowMs) {
      const round = await spread(fleet, limit, 1000, concurrency, () => void (clock.t += msApart));
      round.forEach((n, i) => (admitted[i]! += n));
      if (msApart === 0) clock.t += windowMs / 2;
    }
    for (const [i, accepted] of admitted.entries()) {
      expect(accepted).toBeGreaterThan(0);
      expect(counts.claimsBy(`p${i}`)).toBeLessThanOrEqual(accepted / 20);
    }
  });

  it('refuses a key past its limit in memory, with no claim, until its window ends; then counts again', async () => {
    const counts = new SharedCounts();
    const clock = testClock();
    const fleet = processes(2, limit, counts, clock.now);
    await spread(fleet, limit, limit + 1000, 50);
    const claims = counts.claims.length;
    for (let i = 0; i < 10_000; i++) {
      clock.t = clock.start + 30_000 + i;
      const count = fleet[i % 2]!.hit(key);
      // Answered at once: no promise, no claim.
      expect(count).not.toBeInstanceOf(Promise);
      expect(count).toEqual({ hits: limit + 1, msBeforeReset: windowMs - 30_000 - i });
    }
    expect(counts.claims.length).toBe(claims);
    clock.t = clock.start + windowMs;
    expect(admits(limit)(await fleet[0]!.hit(key))).toBe(true);
    expect(counts.claims.at(-1)?.window.start).toBe(clock.start + windowMs);
  });

  it('concurrent requests of one key share the claim under way: one claim at a time per key', async () => {
    const counts = new SharedCounts();
    const clock = testClock();
    const [counter] = processes(1, limit, counts, clock.now);
    const answers = await Promise.all(Array.from({ length: 200 }, async () => counter!.hit(key)));
    expect(answers.every(admits(limit))).toBe(true);
    expect(counts.maxUnderWay).toBe(1);
    // The first block, then one sized for all those waiting.
    expect(counts.claims.length).toBeLessThanOrEqual(2);
  });
});

describe('BlockQuotaCounter: the answer headers', () => {
  it("a process alone: the key's requests in the window, and the time left of it", async () => {
    const counts = new SharedCounts();
    const clock = testClock();
    const [counter] = processes(1, 100, counts, clock.now);
    const seen = [];
    for (let i = 0; i < 5; i++) {
      clock.t = clock.start + 1000 * i;
      seen.push(await counter!.hit(key));
    }
    expect(seen).toEqual([1, 2, 3, 4, 5].map((hits, i) => ({ hits, msBeforeReset: windowMs - 1000 * i })));
  });

  it("several processes: this one's best knowledge, never fewer hits than it admitted itself", async () => {
    const counts = new SharedCounts();
    const clock = testClock();
    const [a, b] = processes(2, 100, counts, clock.now);
    await spread([a!, b!], 100, 40, 1);
    const count = await a!.hit(key);
    expect(count.hits).toBeGreaterThanOrEqual(21);
    expect(count.hits).toBeLessThanOrEqual(100);
  });
});

describe('BlockQuotaCounter when the shared count is away', () => {
  const limit = 600;

  /** Two processes that have claimed together (each has seen the other), then the count fails. */
  async function fleetThenOutage(behaviour: 'fail' | 'hang') {
    const counts = new SharedCounts();
    const clock = testClock();
    const fleet = processes(2, limit, counts, clock.now, 50);
    await spread(fleet, limit, 100, 1);
    counts.behaviour = behaviour;
    return { counts, clock, fleet };
  }

  it.each(['fail', 'hang'] as const)(
    'when claims %s: the first waits for its deadline at most, the rest are answered at once; after the first window each process admits at most its share (limit / processes seen)',
    async (behaviour) => {
      const { clock, fleet } = await fleetThenOutage(behaviour);
      // The window of the outage: what each holds, then its share, its earlier admissions included.
      // Each had admitted 50 of its share (300) before the outage.
      const first = await spread(fleet, limit, 2000, 10);
      for (const n of first) expect(n).toBe(limit / 2 - 50);
      for (let window = 1; window <= 3; window++) {
        clock.t = clock.start + window * windowMs;
        const admitted = await spread(fleet, limit, 2000, 10);
        for (const n of admitted) expect(n).toBe(limit / 2);
      }
      // Answered at once: no request waits for the count while it is away.
      expect(fleet[0]!.hit(key)).not.toBeInstanceOf(Promise);
    },
  );

  it("once the count answers again, one claim tries it and the next add the process's own admissions to the window's count", async () => {
    const { counts, clock, fleet } = await fleetThenOutage('fail');
    clock.t = clock.start + windowMs;
    await spread(fleet, limit, 100, 1);
    counts.behaviour = 'answer';
    const claims = counts.claims.length;
    clock.t += 1000;
    // The probe goes out in the background; this request is counted alone.
    expect(fleet[0]!.hit(key)).not.toBeInstanceOf(Promise);
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    expect(counts.claims.length).toBe(claims + 1);
    expect(counts.claims.at(-1)).toMatchObject({ process: 'p0', unreported: 51 });
    expect(counts.claimed(key, clock.start + windowMs)).toBeGreaterThanOrEqual(51);
  });

  it('a claim that answers after its deadline still brings its tokens', async () => {
    let answer: (value: { claimed: number; claimers: number }) => void = () => undefined;
    const late: Claim = () => new Promise((resolve) => (answer = resolve));
    const clock = testClock();
    const counter = new BlockQuotaCounter({ limit: 6000, windowMs, claim: late, timeoutMs: 20, now: clock.now });
    // Counted alone once the deadline passed.
    expect(admits(6000)(await counter.hit(key))).toBe(true);
    answer({ claimed: 20, claimers: 1 });
    await new Promise((resolve) => setImmediate(resolve));
    for (let i = 0; i < 20; i++) expect(admits(6000)(counter.hit(key) as WindowCount)).toBe(true);
  });
});

describe('BlockQuotaCounter memory', () => {
  it('keeps the state of at most maxKeys keys, and forgets a key silent for a window', async () => {
    const counts = new SharedCounts();
    const clock = testClock();
    const counter = new BlockQuotaCounter({ limit: 6000, windowMs, claim: counts.claimOf('p0'), timeoutMs: 1000, now: clock.now, maxKeys: 3 });
    for (let i = 0; i < 10; i++) await counter.hit(`client-${i}`);
    expect(counter.keysHeld).toBe(3);
    // The newest keys stayed: their next request spends a token held, with no claim.
    const claims = counts.claims.length;
    expect(counter.hit('client-9')).not.toBeInstanceOf(Promise);
    expect(counts.claims.length).toBe(claims);
    // An evicted key is counted again from a claim.
    await counter.hit('client-0');
    expect(counts.claims.length).toBe(claims + 1);
    clock.t += windowMs + 1;
    await counter.hit('client-new');
    expect(counter.keysHeld).toBe(1);
  });
});
