/**
 * Time in tests: never a sleep. A test moves a clock of its own (the
 * harness's `advance`, a `now` option, `fakeTimeouts` for the app's own
 * timers, `wallClockFrom` for `Date`), or waits for the event itself; where
 * only polling can see it, `eventually`.
 */
import { setTimeout as realDelay } from 'node:timers/promises';

export interface EventuallyOptions {
  /** How long to keep asking before failing; default 10 s. */
  timeoutMs?: number;
  /** How long between two probes; default 5 ms. */
  intervalMs?: number;
}

/**
 * Asks `probe` until it answers something other than `undefined` or
 * `false`, and returns that; throws, naming `what`, once `timeoutMs` have
 * passed without. Its pauses are real time, also under `fakeTimeouts`.
 */
export async function eventually<T>(what: string, probe: () => T | undefined | false | Promise<T | undefined | false>, options: EventuallyOptions = {}): Promise<T> {
  const { timeoutMs = 10_000, intervalMs = 5 } = options;
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const answer = await probe();
    if (answer !== undefined && answer !== false) return answer;
    if (performance.now() > deadline) throw new Error(`waited ${timeoutMs} ms for ${what}`);
    await realDelay(intervalMs);
  }
}

/**
 * Jest's fake `setTimeout` and `clearTimeout`, and nothing else: the app's
 * own delays and deadlines (a shutdown's, a readiness check's, an outbox's
 * batch) wait until the test advances them (`jest.advanceTimersByTimeAsync`),
 * while sockets, `setImmediate`, `Date` and `performance.now` run as they
 * do. Undo with `jest.useRealTimers()`.
 */
export function fakeTimeouts(): void {
  jest.useFakeTimers({
    doNotFake: ['Date', 'hrtime', 'nextTick', 'performance', 'queueMicrotask', 'setImmediate', 'clearImmediate', 'setInterval', 'clearInterval'],
  });
}

/**
 * The process's wall clock (`Date`) from `startMs` on, moving with real time
 * from there, or standing still; timers stay real. For what only the wall
 * clock decides (a rate-limit window, a command's timestamps) when the test
 * cannot pass a clock of its own: what keeps `Date.now` itself (a rate-limit
 * counter) must be made after this. Undo with `jest.useRealTimers()`.
 */
export function wallClockFrom(startMs: number, options: { standingStill?: boolean } = {}): void {
  jest.useFakeTimers({
    now: startMs,
    advanceTimers: options.standingStill ? false : 1,
    doNotFake: ['hrtime', 'nextTick', 'performance', 'queueMicrotask', 'setImmediate', 'clearImmediate', 'setInterval', 'clearInterval', 'setTimeout', 'clearTimeout'],
  });
}

/** One turn of the event loop: whatever is ready by now (answers, microtasks) has run. */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
