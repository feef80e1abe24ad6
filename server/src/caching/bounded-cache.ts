import { LRUCache } from 'lru-cache';

/** How much a bounded cache keeps, and for how long. */
export interface CacheBound {
  /** Entries kept at most; past it, the least recently used gives way. */
  maxEntries: number;
  /** An entry is forgotten this long after it was set (absent: kept until it gives way). */
  ttlMs?: number;
  /** Reading an entry starts its `ttlMs` again, so an entry is forgotten once unread for that long. Default false. */
  ttlFromLastRead?: boolean;
  /** Milliseconds of a monotonic clock, never 0 (lru-cache takes an entry set at 0 for one without a ttl). Default `performance.now`. */
  now?: () => number;
}

/**
 * The one way the server bounds what it keeps per key (credentials, the
 * listings, the rate limit's counts and headers, the outbox's knowledge):
 * an lru-cache of at most `maxEntries` entries, each forgotten after
 * `ttlMs` when it has one, every age read from the clock itself.
 *
 * The bound is a size of one per entry rather than lru-cache's `max`,
 * which allocates room for every entry up front (a few milliseconds and
 * megabytes for 100,000): so a cache grows with the keys it meets.
 */
export function boundedCache<K extends NonNullable<unknown>, V extends NonNullable<unknown>>(bound: CacheBound): LRUCache<K, V> {
  if (!Number.isSafeInteger(bound.maxEntries) || bound.maxEntries < 1) throw new RangeError(`maxEntries must be a positive integer, got ${bound.maxEntries}`);
  if (bound.ttlMs !== undefined && !(bound.ttlMs > 0)) throw new RangeError(`ttlMs must be positive, got ${bound.ttlMs}`);
  return new LRUCache<K, V>({
    maxSize: bound.maxEntries,
    sizeCalculation: () => 1,
    ...(bound.ttlMs !== undefined && { ttl: bound.ttlMs, updateAgeOnGet: bound.ttlFromLastRead ?? false }),
    // Every age from the clock itself (lru-cache otherwise reuses a reading for a millisecond).
    ttlResolution: 0,
    ...(bound.now && { perf: { now: bound.now } }),
  });
}
