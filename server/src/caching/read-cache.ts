import type { LRUCache } from 'lru-cache';
import { boundedCache } from './bounded-cache';

/** How a process keeps reads of records that change rarely (API keys, sessions) for a moment. */
export interface ReadCacheSettings {
  /** How long a read is answered again, from when it was asked of the store. */
  ttlMs: number;
  /** Entries kept at most; the least recently used go first. */
  maxEntries: number;
}

export interface ReadCacheOptions<V> extends ReadCacheSettings {
  /**
   * How long this value may be kept, in milliseconds, when less than
   * `ttlMs` is not what it needs: a record that never changes may be kept
   * until it ends (a session until its expiry). Default: `ttlMs`.
   */
  ttlOf?: (value: V) => number;
  /** Told of every lookup: true when the cache answered it (no store call), false when the store was asked. */
  onLookup?: (hit: boolean) => void;
  /** Milliseconds of a monotonic clock, never 0 (tests; see `CacheBound`). */
  now?: () => number;
}

interface Entry<V> {
  value: V;
}

/**
 * A read-through cache of one store read per key. A miss asks the store;
 * misses of one key at the same time share one read; a read that fails is
 * not kept (the next lookup asks again). What the store answered, `null`
 * included, is answered again for `ttlMs` from when the read was asked (not
 * longer), so a change in the store shows here within that time. Values are deep-frozen:
 * every request that gets one shares it.
 */
export class ReadCache<V> {
  private readonly entries: LRUCache<string, Entry<V>>;
  private readonly now: () => number;

  constructor(
    private readonly read: (key: string) => Promise<V>,
    private readonly options: ReadCacheOptions<V>,
  ) {
    this.now = options.now ?? (() => performance.now());
    this.entries = boundedCache<string, Entry<V>>({ maxEntries: options.maxEntries, ttlMs: options.ttlMs, now: this.now }, {
      // A `set` (or an eviction) while a read of the key is under way would
      // otherwise abort that read and reject every lookup waiting for it; the
      // read goes on and answers them, and what was set stays kept.
      ignoreFetchAbort: true,
      fetchMethod: async (key, _stale, { options: fetchOptions }) => {
        const askedAt = this.now();
        const value = deepFreeze(await this.read(key));
        // The entry's age counts from the question, not the answer: a record
        // read at the start of a slow read is no fresher for the wait.
        fetchOptions.ttl = this.ttlFor(value, this.now() - askedAt);
        return { value };
      },
    });
  }

  async get(key: string): Promise<V> {
    const status: LRUCache.Status<string, Entry<V>> = {};
    const entry = await this.entries.fetch(key, { status });
    this.options.onLookup?.(status.fetch === 'hit' || status.fetch === 'inflight');
    // fetch resolves undefined only when the fetchMethod does, which it never does.
    return (entry as Entry<V>).value;
  }

  /** The value kept under `key` while fresh, without reading it (undefined: none), not counted as a lookup. */
  peek(key: string): V | undefined {
    return this.entries.get(key)?.value;
  }

  /** Keeps `value` under `key` as if just read (a read of something else answered it too). */
  set(key: string, value: V): void {
    const frozen = deepFreeze(value);
    this.entries.set(key, { value: frozen }, { ttl: this.ttlFor(frozen, 0) });
  }

  private ttlFor(value: V, elapsedMs: number): number {
    const kept = this.options.ttlOf ? this.options.ttlOf(value) : this.options.ttlMs;
    return Math.max(1, Math.floor(kept - elapsedMs));
  }

  /** Entries held now (tests of the bound). */
  get size(): number {
    return this.entries.size;
  }
}

/** Freezes `value` and everything it holds: a value shared by every request that gets it. */
export function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  Object.freeze(value);
  for (const child of Object.values(value)) deepFreeze(child);
  return value;
}
