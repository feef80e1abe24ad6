import { createHash } from 'node:crypto';
import type { QuotaWindow } from '../store/port';

/** The rate limit's window: the limit is per key and minute. */
export const rateLimitWindowMs = 60_000;

/**
 * Where a key's windows begin, within the window's length: derived from the
 * key alone, so every process computes the same windows from its own clock
 * with no read, and keys renew at different moments of the minute rather
 * than all at once (which would send every process's first claims of every
 * key to the database in the same second).
 */
export function windowOffset(key: string, windowMs: number): number {
  return createHash('sha256').update(key).digest().readUInt32BE(0) % windowMs;
}

/** The window of a key (its offset from `windowOffset`) that holds the instant `now`. */
export function windowAt(now: number, windowMs: number, offset: number): QuotaWindow {
  const start = Math.floor((now - offset) / windowMs) * windowMs + offset;
  return { start, end: start + windowMs };
}

/** The window of `key` that holds `now` (for tests and scripts that must stay within one). */
export function windowOf(key: string, now: number, windowMs: number): QuotaWindow {
  return windowAt(now, windowMs, windowOffset(key, windowMs));
}
