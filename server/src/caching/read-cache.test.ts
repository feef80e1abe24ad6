import { ReadCache } from './read-cache';

/** A store read whose answers and calls the test controls, on a clock the test moves. */
function setUp(options: { ttlMs?: number; maxEntries?: number; maxAbsentEntries?: number } = {}) {
  let now = 1_000;
  const asked: string[] = [];
  const answers = new Map<string, { name: string } | null>();
  let failNext = false;
  let readMs = 0;
  const lookups: boolean[] = [];
  const cache = new ReadCache<{ name: string } | null>(
    async (key) => {
      asked.push(key);
      now += readMs;
      if (failNext) {
        failNext = false;
        throw new Error('store unavailable');
      }
      return answers.get(key) ?? null;
    },
    {
      ttlMs: options.ttlMs ?? 2000,
      maxEntries: options.maxEntries ?? 100,
      ...(options.maxAbsentEntries !== undefined && { maxAbsentEntries: options.maxAbsentEntries }),
      now: () => now,
      onLookup: (hit) => lookups.push(hit),
    },
  );
  return {
    cache,
    asked,
    answers,
    lookups,
    advance: (ms: number) => (now += ms),
    failNextRead: () => (failNext = true),
    readTakes: (ms: number) => (readMs = ms),
  };
}

describe('ReadCache', () => {
  it('answers a key again without the store for ttlMs after it was read, then reads it again', async () => {
    const { cache, asked, answers, lookups, advance } = setUp();
    answers.set('k', { name: 'first' });
    expect(await cache.get('k')).toEqual({ name: 'first' });
    answers.set('k', { name: 'second' });
    advance(2000);
    expect(await cache.get('k')).toEqual({ name: 'first' });
    advance(1);
    expect(await cache.get('k')).toEqual({ name: 'second' });
    expect(asked).toEqual(['k', 'k']);
    expect(lookups).toEqual([false, true, false]);
  });

  it('counts an entry’s age from the question, not the answer: a slow read is kept for less', async () => {
    const { cache, asked, readTakes, advance } = setUp();
    readTakes(1500);
    await cache.get('k');
    advance(500);
    await cache.get('k');
    advance(1);
    await cache.get('k');
    expect(asked).toEqual(['k', 'k']);
  });

  it('does not join a read asked ttlMs or more before: it asks again, and the older answer, arriving last, does not replace the newer', async () => {
    let now = 1_000;
    const held: Array<(value: { name: string }) => void> = [];
    const cache = new ReadCache<{ name: string }>((_key) => new Promise((resolve) => held.push(resolve)), { ttlMs: 2000, maxEntries: 10, now: () => now });
    const first = cache.get('k');
    now += 1999;
    const joined = cache.get('k');
    now += 1;
    const again = cache.get('k');
    expect(held).toHaveLength(2);
    held[1]!({ name: 'newer' });
    expect(await again).toEqual({ name: 'newer' });
    held[0]!({ name: 'older' });
    expect(await first).toEqual({ name: 'older' });
    expect(await joined).toEqual({ name: 'older' });
    expect(await cache.get('k')).toEqual({ name: 'newer' });
    expect(held).toHaveLength(2);
  });

  it('keeps what another read brought (set) for what is left of its time from when that read was asked, and nothing past it', () => {
    let now = 10_000;
    const cache = new ReadCache<{ name: string }>(async () => ({ name: 'read' }), { ttlMs: 2000, maxEntries: 10, now: () => now });
    cache.set('late', { name: 'too old' }, now - 2000);
    cache.set('k', { name: 'brought' }, now - 1500);
    expect(cache.peek('late')).toBeUndefined();
    now += 500;
    expect(cache.peek('k')).toEqual({ name: 'brought' });
    now += 1;
    expect(cache.peek('k')).toBeUndefined();
  });

  it('keeps an unknown key (null) as it keeps a known one', async () => {
    const { cache, asked } = setUp();
    expect(await cache.get('unknown')).toBeNull();
    expect(await cache.get('unknown')).toBeNull();
    expect(asked).toEqual(['unknown']);
  });

  it('shares one read between lookups of a key made while it is under way', async () => {
    const { cache, asked, answers, lookups } = setUp();
    answers.set('k', { name: 'only' });
    const all = await Promise.all([cache.get('k'), cache.get('k'), cache.get('k')]);
    expect(all).toEqual([{ name: 'only' }, { name: 'only' }, { name: 'only' }]);
    expect(asked).toEqual(['k']);
    expect(lookups.filter((hit) => !hit)).toHaveLength(1);
  });

  it('keeps no failed read: the lookup fails, and the next one asks again', async () => {
    const { cache, asked, answers, failNextRead } = setUp();
    answers.set('k', { name: 'back' });
    failNextRead();
    await expect(cache.get('k')).rejects.toThrow('store unavailable');
    expect(await cache.get('k')).toEqual({ name: 'back' });
    expect(asked).toEqual(['k', 'k']);
  });

  it('holds at most maxEntries, the least recently used going first', async () => {
    const { cache, asked } = setUp({ maxEntries: 3 });
    for (const key of ['a', 'b', 'c']) await cache.get(key);
    await cache.get('a');
    await cache.get('d');
    expect(cache.size).toBe(3);
    asked.splice(0);
    await cache.get('a');
    await cache.get('b');
    expect(asked).toEqual(['b']);
  });

  it('hands out deep-frozen values, shared by every lookup', async () => {
    const { cache, answers } = setUp();
    answers.set('k', { name: 'shared' });
    const first = await cache.get('k');
    expect(Object.isFrozen(first)).toBe(true);
    expect(await cache.get('k')).toBe(first);
    expect(() => {
      (first as { name: string }).name = 'changed';
    }).toThrow(TypeError);
  });

  it.each([
    [{ ttlMs: 0, maxEntries: 1 }],
    [{ ttlMs: 1, maxEntries: 0 }],
    [{ ttlMs: Number.NaN, maxEntries: 1 }],
  ])('refuses settings without a bound: %j', (settings) => {
    expect(() => new ReadCache(async () => null, settings)).toThrow(RangeError);
  });
  it('a set while a read of the key is under way: the lookups waiting get what was read, and the set value, asked for later, is kept', async () => {
    let answer: (value: { name: string }) => void = () => undefined;
    let now = 1_000;
    const cache = new ReadCache<{ name: string }>(() => new Promise((resolve) => (answer = resolve)), { ttlMs: 2000, maxEntries: 10, now: () => now });
    const waiting = [cache.get('k'), cache.get('k')];
    now += 1;
    cache.set('k', { name: 'set' });
    answer({ name: 'read' });
    expect(await Promise.all(waiting)).toEqual([{ name: 'read' }, { name: 'read' }]);
    expect(cache.peek('k')).toEqual({ name: 'set' });
  });

  it('a read under way when its entry is evicted (the bound) still answers its lookups', async () => {
    let answer: (value: { name: string }) => void = () => undefined;
    const cache = new ReadCache<{ name: string }>(
      (key) => (key === 'slow' ? new Promise((resolve) => (answer = resolve)) : Promise.resolve({ name: key })),
      { ttlMs: 2000, maxEntries: 1, now: () => 1_000 },
    );
    const slow = cache.get('slow');
    expect(await cache.get('other')).toEqual({ name: 'other' });
    answer({ name: 'slow' });
    expect(await slow).toEqual({ name: 'slow' });
  });

  it('keeps the answers of "none" apart, within their own bound: unknown keys, however many, never push out a value', async () => {
    const { cache, asked, answers } = setUp({ maxEntries: 2, maxAbsentEntries: 3 });
    answers.set('real-1', { name: 'one' });
    answers.set('real-2', { name: 'two' });
    await cache.get('real-1');
    await cache.get('real-2');
    for (let i = 0; i < 50; i++) expect(await cache.get(`unknown-${i}`)).toBeNull();
    expect(cache.size).toBe(2 + 3);
    asked.length = 0;
    expect(await cache.get('real-1')).toEqual({ name: 'one' });
    expect(await cache.get('real-2')).toEqual({ name: 'two' });
    // The last three unknowns are still known to be none; older ones gave way.
    expect(await cache.get('unknown-49')).toBeNull();
    expect(await cache.get('unknown-0')).toBeNull();
    expect(asked).toEqual(['unknown-0']);
  });

  it('a value read after a "none" replaces it, in the values\' room', async () => {
    const { cache, answers, advance } = setUp({ maxEntries: 1, maxAbsentEntries: 1 });
    expect(await cache.get('k')).toBeNull();
    answers.set('k', { name: 'made meanwhile' });
    advance(2001);
    expect(await cache.get('k')).toEqual({ name: 'made meanwhile' });
    expect(cache.size).toBe(1);
  });

  it('asks beforeRead only when the store would be read; a refusal reads nothing, keeps nothing, and rejects with what it threw', async () => {
    const { cache, asked, answers } = setUp();
    answers.set('kept', { name: 'kept' });
    await cache.get('kept');
    const gate = jest.fn(() => {
      throw new Error('refused');
    });
    expect(await cache.get('kept', gate)).toEqual({ name: 'kept' });
    expect(gate).not.toHaveBeenCalled();
    await expect(cache.get('new', gate)).rejects.toThrow('refused');
    expect(gate).toHaveBeenCalledTimes(1);
    expect(asked).toEqual(['kept']);
    const open = jest.fn();
    expect(await cache.get('new', open)).toBeNull();
    expect(open).toHaveBeenCalledTimes(1);
  });

  it('a lookup joining a read under way passes no gate: it costs the store nothing more', async () => {
    let answer: (value: { name: string }) => void = () => undefined;
    const cache = new ReadCache<{ name: string }>(() => new Promise((resolve) => (answer = resolve)), { ttlMs: 2000, maxEntries: 10, now: () => 1_000 });
    const first = cache.get('k', () => undefined);
    const joined = cache.get('k', () => {
      throw new Error('not asked');
    });
    answer({ name: 'read' });
    expect(await Promise.all([first, joined])).toEqual([{ name: 'read' }, { name: 'read' }]);
  });
});
