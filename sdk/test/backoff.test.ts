import { backoffDelay, parseRetryAfter, type RetryPolicy } from '../src/transport/backoff';

const policy = (random: () => number): RetryPolicy => ({
  limit: 5,
  baseDelayMs: 200,
  maxDelayMs: 5000,
  maxRetryAfterMs: 30_000,
  random,
  sleep: async () => undefined,
});

describe('backoffDelay', () => {
  it('has a ceiling of base * 2^(retry-1), capped at maxDelayMs', () => {
    const top = policy(() => 1);
    expect([1, 2, 3, 4, 5, 6, 7].map((n) => backoffDelay(n, top))).toEqual([200, 400, 800, 1600, 3200, 5000, 5000]);
  });

  it('draws uniformly below the ceiling (full jitter)', () => {
    expect(backoffDelay(3, policy(() => 0))).toBe(0);
    expect(backoffDelay(3, policy(() => 0.25))).toBe(200);
  });

  it('keeps a misbehaving jitter source inside [0, ceiling]', () => {
    expect(backoffDelay(1, policy(() => -3))).toBe(0);
    expect(backoffDelay(1, policy(() => 7))).toBe(200);
  });
});

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-11-21T20:00:00Z');

  it('reads delay-seconds', () => {
    expect(parseRetryAfter('0', now)).toBe(0);
    expect(parseRetryAfter(' 120 ', now)).toBe(120_000);
  });

  it('reads an HTTP-date relative to now, and a past date as 0', () => {
    expect(parseRetryAfter('Sat, 21 Nov 2026 20:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter('Sat, 21 Nov 2026 19:00:00 GMT', now)).toBe(0);
  });

  it('ignores what it cannot read', () => {
    expect(parseRetryAfter(null, now)).toBeUndefined();
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter('-5', now)).toBeUndefined();
    expect(parseRetryAfter('1.5', now)).toBeUndefined();
  });
});
