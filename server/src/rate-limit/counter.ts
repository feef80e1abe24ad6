import { boundedCache } from '../caching/bounded-cache';
import { rateLimitWindowMs } from './windows';

/** How many requests a key has made in its current window, and when that window ends. */
export interface WindowCount {
  hits: number;
  msBeforeReset: number;
}

/**
 * Counts requests per key and window. The fleet's count (block-quota.ts)
 * may have to ask the database; in-process counting needs no promise.
 */
export interface RequestCounter {
  hit(key: string): WindowCount | Promise<WindowCount>;
}

/** The count of this process alone: it never waits. */
export interface InProcessCounter extends RequestCounter {
  hit(key: string): WindowCount;
}

/** Keys whose count a process keeps at most (a few hundred bytes each); past it the least recently counted goes. */
export const maxCountedKeys = 100_000;

interface Window {
  hits: number;
  /** Epoch ms when the window ends and the count starts again. */
  resetAt: number;
}

/**
 * Hit counters per key in this process, the window starting at a key's
 * first request. A key's entry lives as long as its window (the cache's
 * TTL), so a key silent for a window is forgotten, and at most `maxKeys`
 * are kept: past that, the least recently counted key starts again from
 * nothing.
 */
export function inProcessCounter(windowMs = rateLimitWindowMs, now: () => number = Date.now, maxKeys = maxCountedKeys): InProcessCounter {
  const windows = boundedCache<string, Window>({ maxEntries: maxKeys, ttlMs: windowMs, now });
  return {
    hit(key) {
      const at = now();
      let window = windows.get(key);
      if (!window || window.resetAt <= at) {
        window = { hits: 0, resetAt: at + windowMs };
        windows.set(key, window);
      }
      window.hits++;
      return { hits: window.hits, msBeforeReset: window.resetAt - at };
    },
  };
}
