import { PolledValue } from './polled-value';

describe('PolledValue', () => {
  function setUp() {
    let now = 1_000;
    let value = 1;
    let reads = 0;
    let fail = false;
    const polled = new PolledValue(
      async () => {
        reads++;
        if (fail) throw new Error('unavailable');
        return value;
      },
      1000,
      () => now,
    );
    return {
      polled,
      reads: () => reads,
      set: (next: number) => (value = next),
      failing: (next: boolean) => (fail = next),
      advance: (ms: number) => (now += ms),
    };
  }

  it('reads at most once per interval, answering the last value at once in between', async () => {
    const { polled, reads, set, advance } = setUp();
    expect(await polled.get()).toBe(1);
    set(2);
    advance(999);
    expect(polled.get()).toBe(1);
    advance(1);
    expect(await polled.get()).toBe(2);
    expect(reads()).toBe(2);
  });

  it('shares the read under way between callers', async () => {
    const { polled, reads } = setUp();
    expect(await Promise.all([polled.get(), polled.get(), polled.get()])).toEqual([1, 1, 1]);
    expect(reads()).toBe(1);
  });

  it('keeps no failed read, and reads again after forget()', async () => {
    const { polled, reads, set, failing } = setUp();
    failing(true);
    await expect(polled.get()).rejects.toThrow('unavailable');
    failing(false);
    expect(await polled.get()).toBe(1);
    set(5);
    polled.forget();
    expect(await polled.get()).toBe(5);
    expect(reads()).toBe(3);
  });
});
