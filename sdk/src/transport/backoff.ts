export interface RetryPolicy {
  /** Retries after the first attempt (0: never retry). */
  limit: number;
  /** Ceiling of the first retry's delay; it doubles on each retry... */
  baseDelayMs: number;
  /** ...up to this ceiling. */
  maxDelayMs: number;
  /** A `Retry-After` longer than this is not waited for: the answer is returned. */
  maxRetryAfterMs: number;
  /** Source of jitter in [0, 1). */
  random: () => number;
  /** Waits between attempts; must reject when the signal aborts. */
  sleep: (ms: number, signal: AbortSignal) => Promise<void>;
}

/**
 * Delay before retry number `retry` (1 for the first retry): exponential
 * backoff with "full jitter", a uniform pick in [0, min(max, base * 2^(n-1))].
 * Full jitter spreads clients that failed together (a 503 during a deploy)
 * instead of having them retry in lock-step.
 */
export function backoffDelay(retry: number, policy: RetryPolicy): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (retry - 1));
  const jitter = Math.min(Math.max(policy.random(), 0), 1);
  return Math.round(jitter * ceiling);
}

/**
 * `Retry-After` in milliseconds: delay-seconds (`120`) or an HTTP-date.
 * Undefined when absent or unreadable; a date in the past gives 0.
 */
export function parseRetryAfter(value: string | null, now: number): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // HTTP-dates (IMF-fixdate and the two obsolete forms) start with the day
  // name; checking that keeps Date.parse's leniency from reading "-5" as a year.
  if (!/^[A-Za-z]{3}/.test(text)) return undefined;
  const date = Date.parse(text);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}
