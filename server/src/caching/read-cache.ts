import type { LRUCache } from 'lru-cache';
import { boundedCache } from './bounded-cache';
import { InFlight } from './in-flight';

/** How a process keeps reads of records that change rarely (API keys, sessions) for a moment. */
export interface ReadCacheSettings {
  /** How long a read is answered again, from when it was asked of the store. */
  ttlMs: number;
  /** Entries kept at most; the least recently used go first. */
  maxEntries: number;
  /**
   * Answers of "none" (`null`: an unknown key or token) kept at most, apart
   * from the values: values nobody holds, however many, never push out the
   * records of real credentials. Default `maxEntries`.
   */
  maxAbsentEntries?: number;
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
  /** When the read that brought it was asked of the store (the `now` clock). */
  askedAt: number;
}

/**
 * Asked before a read of the store: throws to refuse it (the lookup then
 * rejects with what it threw, and nothing is read or kept).
 */
export type BeforeRead = () => void;

/**
 * A read-through cache of one store read per key. A miss asks the store;
 * misses of one key at the same time share one read; a read that fails is
 * not kept (the next lookup asks again). What the store answered, `null`
 * included, is answered again for `ttlMs` from when the read was asked (a
 * `null` among at most `maxAbsentEntries` of them, apart), and never later: an answer that took longer is not kept, and a lookup does
 * not join a read asked `ttlMs` or more ago (it asks again), so a change in
 * the store shows here within `ttlMs` whatever the store's latency. Values
 * are deep-frozen: every request that gets one shares it.
 */
export class ReadCache<V> {
  private readonly entries: LRUCache<string, Entry<V>>;
  /** The answers of `null`, bounded on their own (`maxAbsentEntries`). */
  private readonly absent: LRUCache<string, Entry<V>>;
  /** Reads under way, by key: as many as the lookups waiting for them. */
  private readonly reads = new InFlight<{ askedAt: number; promise: Promise<V> }>();
  private readonly now: () => number;

  constructor(
    /** Reads the value of `key`, for a lookup asked at `askedAt` (this cache's clock): what the read brings besides is dated from then. */
    private readonly read: (key: string, askedAt: number) => Promise<V>,
    private readonly options: ReadCacheOptions<V>,
  ) {
    this.now = options.now ?? (() => performance.now());
    this.entries = boundedCache<string, Entry<V>>({ maxEntries: options.maxEntries, ttlMs: options.ttlMs, now: this.now });
    this.absent = boundedCache<string, Entry<V>>({ maxEntries: options.maxAbsentEntries ?? options.maxEntries, ttlMs: options.ttlMs, now: this.now });
  }

  /**
   * The value of `key`: kept, joined to a read under way, or read.
   * `beforeRead` is asked only when the store would be read, and may refuse.
   */
  async get(key: string, beforeRead?: BeforeRead): Promise<V> {
    const kept = this.kept(key);
    if (kept) {
      this.options.onLookup?.(true);
      return kept.value;
    }
    const askedAt = this.now();
    const underway = this.reads.get(key);
    // Only a read whose answer may still be kept: an older one may answer with what changed since.
    if (underway && askedAt - underway.askedAt < this.options.ttlMs) {
      this.options.onLookup?.(true);
      return underway.promise;
    }
    beforeRead?.();
    this.options.onLookup?.(false);
    const answer = this.read(key, askedAt).then((value) => {
      const frozen = deepFreeze(value);
      this.set(key, frozen, askedAt);
      return frozen;
    });
    return this.reads.track(key, { askedAt, promise: answer });
  }

  /** The value kept under `key` while fresh, without reading it (undefined: none), not counted as a lookup. */
  peek(key: string): V | undefined {
    return this.kept(key)?.value;
  }

  private kept(key: string): Entry<V> | undefined {
    return this.entries.get(key) ?? this.absent.get(key);
  }

  /** Where `value` is kept: `null` (none) apart from the values. */
  private roomOf(value: V): LRUCache<string, Entry<V>> {
    return value === null ? this.absent : this.entries;
  }

  /**
   * Keeps `value` under `key` as read by a question asked at `askedAt` (a
   * read of something else that answered it too; default: now), for what
   * is left of its time from then: nothing once that has passed, and never
   * over a value asked for later.
   */
  set(key: string, value: V, askedAt: number = this.now()): void {
    const kept = this.kept(key);
    if (kept && kept.askedAt > askedAt) return;
    const ttl = Math.floor(this.keptFor(value) - (this.now() - askedAt));
    if (ttl <= 0) return;
    // One entry per key: a value replaces a `null`, and the other way round.
    if (kept) this.roomOf(kept.value).delete(key);
    this.roomOf(value).set(key, { value: deepFreeze(value), askedAt }, { ttl });
  }

  private keptFor(value: V): number {
    return this.options.ttlOf ? this.options.ttlOf(value) : this.options.ttlMs;
  }

  /** Entries held now, `null` answers included (tests of the bound). */
  get size(): number {
    return this.entries.size + this.absent.size;
  }
}

/** Freezes `value` and everything it holds: a value shared by every request that gets it. */
export function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  Object.freeze(value);
  for (const child of Object.values(value)) deepFreeze(child);
  return value;
}
