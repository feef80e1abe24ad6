import { AuthFailureLimiter, lookupPastBudgetMs } from './auth-failures';

const windowMs = 60_000;

/** A limiter of `perMinute` on a clock the test moves. */
function setUp(perMinute: number, maxAddresses?: number) {
  const clock = { t: 1_000_000 };
  const limiter = new AuthFailureLimiter({ perMinute, windowMs, now: () => clock.t, ...(maxAddresses !== undefined && { maxAddresses }) });
  return { clock, limiter };
}

const refuse = (limiter: AuthFailureLimiter, address: string, times: number) => {
  for (let i = 0; i < times; i++) limiter.refused(address);
};

describe('AuthFailureLimiter', () => {
  it.each<[string, number, boolean]>([
    ['an address never refused', 0, true],
    ['an address one refusal short of its budget', 2, true],
    ['an address at its budget (its first lookup past it)', 3, true],
  ])('lets %s look up an unknown credential', (_case, refusals, allowed) => {
    const { limiter } = setUp(3);
    refuse(limiter, '203.0.113.7', refusals);
    expect(limiter.lookUp('203.0.113.7').allowed).toBe(allowed);
  });

  it('past its budget, one lookup per second: the rest are refused until a second has passed', () => {
    const { clock, limiter } = setUp(3);
    refuse(limiter, '203.0.113.7', 3);
    const verdicts = [0, 1, 500, lookupPastBudgetMs - 1, lookupPastBudgetMs, lookupPastBudgetMs + 1, 2 * lookupPastBudgetMs].map((at) => {
      clock.t = 1_000_000 + at;
      return limiter.lookUp('203.0.113.7').allowed;
    });
    expect(verdicts).toEqual([true, false, false, false, true, false, true]);
  });

  it('counts each address on its own', () => {
    const { limiter } = setUp(3);
    refuse(limiter, '203.0.113.7', 3);
    limiter.lookUp('203.0.113.7');
    expect(limiter.lookUp('203.0.113.7').allowed).toBe(false);
    expect(limiter.lookUp('203.0.113.8').allowed).toBe(true);
  });

  it("starts an address again once the window of its first refusal has passed, and says when that is", () => {
    const { clock, limiter } = setUp(3);
    refuse(limiter, '203.0.113.7', 3);
    limiter.lookUp('203.0.113.7');
    clock.t += 40_000;
    expect(limiter.lookUp('203.0.113.7')).toEqual({ allowed: true, msBeforeReset: 20_000 });
    expect(limiter.lookUp('203.0.113.7')).toEqual({ allowed: false, msBeforeReset: 20_000 });
    clock.t += 20_000;
    expect(limiter.lookUp('203.0.113.7').allowed).toBe(true);
    refuse(limiter, '203.0.113.7', 2);
    expect(limiter.lookUp('203.0.113.7').allowed).toBe(true);
  });

  it('keeps at most maxAddresses: past it the address seen least recently starts again from nothing', () => {
    const { limiter } = setUp(2, 3);
    for (const address of ['a', 'b', 'c']) refuse(limiter, address, 2);
    limiter.lookUp('a');
    refuse(limiter, 'd', 1);
    expect(limiter.size).toBe(3);
    // Looking 'a' up made it recent: 'b', seen least recently, gave way to 'd'.
    expect(limiter.lookUp('b').allowed).toBe(true);
    expect(limiter.lookUp('b').allowed).toBe(true);
    limiter.lookUp('c');
    expect(limiter.lookUp('c').allowed).toBe(false);
  });

  it.each([0, -1, 1.5, Number.NaN])('refuses a budget of %p', (perMinute) => {
    expect(() => new AuthFailureLimiter({ perMinute })).toThrow(RangeError);
  });
});
