import { boundedCache } from './bounded-cache';

/** A clock the test moves (never 0: see CacheBound.now). */
function testClock() {
  const clock = { t: 1_000, now: () => clock.t };
  return clock;
}

describe('boundedCache', () => {
  it('keeps at most maxEntries, the least recently used giving way', () => {
    const cache = boundedCache<string, number>({ maxEntries: 3 });
    for (const key of ['a', 'b', 'c']) cache.set(key, 1);
    cache.get('a');
    cache.set('d', 1);
    expect([...cache.keys()].sort()).toEqual(['a', 'c', 'd']);
    expect(cache.size).toBe(3);
  });

  it.each<[string, boolean, number, boolean]>([
    ['kept until ttlMs after it was set', false, 999, true],
    ['forgotten once ttlMs has passed since it was set, however often read', false, 1001, false],
    ['with ttlFromLastRead, kept while read within ttlMs', true, 1001, true],
  ])('an entry is %s', (_case, ttlFromLastRead, checkedAt, kept) => {
    const clock = testClock();
    const cache = boundedCache<string, number>({ maxEntries: 10, ttlMs: 1000, ttlFromLastRead, now: clock.now });
    cache.set('k', 1);
    clock.t += 600;
    expect(cache.get('k')).toBe(1);
    clock.t += checkedAt - 600;
    expect(cache.get('k')).toBe(kept ? 1 : undefined);
  });

  it('counts only live entries among its keys', () => {
    const clock = testClock();
    const cache = boundedCache<string, number>({ maxEntries: 10, ttlMs: 1000, now: clock.now });
    cache.set('old', 1);
    clock.t += 500;
    cache.set('new', 1);
    clock.t += 501;
    expect([...cache.keys()]).toEqual(['new']);
  });

  it.each([
    [{ maxEntries: 0 }],
    [{ maxEntries: 1.5 }],
    [{ maxEntries: 1, ttlMs: 0 }],
    [{ maxEntries: 1, ttlMs: Number.NaN }],
  ])('refuses a bound that bounds nothing: %j', (bound) => {
    expect(() => boundedCache(bound)).toThrow(RangeError);
  });
});
