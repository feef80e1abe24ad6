/**
 * Settles like `work`, or rejects with the signal's reason as soon as the
 * signal aborts. A `fetch` passed in by the caller may ignore its signal (test
 * doubles, older polyfills); this keeps timeouts and cancellation working
 * whatever the `fetch` does with it.
 */
export function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** Longest delay setTimeout supports; a longer one fires at once. */
export const MAX_TIMER_MS = 2_147_483_647;

/** Waits `ms` milliseconds; rejects early with the signal's reason if it aborts. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<void>((resolve, reject) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, Math.min(ms, MAX_TIMER_MS));
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
