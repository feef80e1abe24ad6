import { windowOf } from '../../server/src/rate-limit/windows';
import { wallClockFrom } from '../../server/src/test-support/time';

/*
 * A key's rate-limit windows are fixed (rate-limit/windows.ts): a test or a
 * script that counts a key's requests needs them all in one window.
 */

/**
 * In this process: its wall clock set to the start of `key`'s next window,
 * moving with real time from there, so the whole window lies ahead. Call it
 * before the processes' counters are made (they keep `Date.now`); undo with
 * `jest.useRealTimers()`.
 */
export function clockAtWindowStart(key: string, windowMs: number): void {
  wallClockFrom(windowOf(key, Date.now(), windowMs).end);
}

/**
 * For servers of their own (a script's processes, whose clocks are their
 * own): waits, if need be, for `key`'s window to start again, so that at
 * least `roomMs` of it is left. Resolves at once when there is room;
 * otherwise waits less than `roomMs`.
 */
export async function windowWithRoom(key: string, windowMs: number, roomMs: number): Promise<void> {
  const left = windowOf(key, Date.now(), windowMs).end - Date.now();
  if (left < roomMs) await new Promise((resolve) => setTimeout(resolve, left + 50));
}
