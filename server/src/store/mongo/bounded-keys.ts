/** A value that remembers when its key was last used. */
export interface Touched {
  lastSeen: number;
}

/**
 * Per-key state with a bound: at most `maxKeys` keys; a key silent for
 * `idleMs` is dropped at the next sweep (at most one sweep per `idleMs`,
 * made when a key is added, so memory follows the keys in use). Should more
 * than `maxKeys` keys be in use at once, the oldest entry gives its place to
 * the new one.
 */
export class BoundedKeys<V extends Touched> {
  private readonly entries = new Map<string, V>();
  private nextSweep = Number.NEGATIVE_INFINITY;

  constructor(
    readonly maxKeys: number,
    private readonly idleMs: number,
  ) {
    if (!Number.isInteger(maxKeys) || maxKeys < 1) throw new RangeError(`maxKeys must be a positive integer, got ${maxKeys}`);
  }

  get size(): number {
    return this.entries.size;
  }

  get(key: string): V | undefined {
    return this.entries.get(key);
  }

  /** Every key held, with its value. */
  entriesHeld(): IterableIterator<[string, V]> {
    return this.entries.entries();
  }

  add(key: string, value: V, now: number): void {
    if (now >= this.nextSweep) this.sweep(now);
    if (this.entries.size >= this.maxKeys) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(key, value);
  }

  private sweep(now: number): void {
    for (const [key, value] of this.entries) if (now - value.lastSeen >= this.idleMs) this.entries.delete(key);
    this.nextSweep = now + this.idleMs;
  }
}
