import { inProcessCounter } from './counter';

const windowMs = 60_000;

/** A counter on a clock the test moves. */
function setUp(maxKeys?: number) {
  const clock = { t: 1_000_000, now: () => clock.t };
  return { clock, counter: inProcessCounter(windowMs, clock.now, maxKeys) };
}

describe('inProcessCounter', () => {
  it.each<[string, number[], Array<[hits: number, msBeforeReset: number]>]>([
    ['counts a key within the window its first request started', [0, 1_000, 59_999], [[1, 60_000], [2, 59_000], [3, 1]]],
    ['starts again when the window has passed', [0, 30_000, 60_000, 60_500], [[1, 60_000], [2, 30_000], [1, 60_000], [2, 59_500]]],
  ])('%s', (_case, offsets, expected) => {
    const { clock, counter } = setUp();
    const start = clock.t;
    const counts = offsets.map((offset) => {
      clock.t = start + offset;
      const { hits, msBeforeReset } = counter.hit('client-a');
      return [hits, msBeforeReset];
    });
    expect(counts).toEqual(expected);
  });

  it('counts each key on its own', () => {
    const { counter } = setUp();
    counter.hit('client-a');
    counter.hit('client-a');
    expect(counter.hit('client-b')).toMatchObject({ hits: 1 });
  });

  it('keeps at most maxKeys keys: past it the least recently counted starts again from nothing', () => {
    const { counter } = setUp(2);
    for (const key of ['client-a', 'client-a', 'client-b', 'client-c']) counter.hit(key);
    expect(counter.hit('client-c')).toMatchObject({ hits: 2 });
    expect(counter.hit('client-a')).toMatchObject({ hits: 1 });
  });
});
