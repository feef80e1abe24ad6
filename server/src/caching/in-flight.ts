/** What is kept of one piece of work under way: its promise, and what its callers need to know of it. */
export interface Underway {
  readonly promise: Promise<unknown>;
}

/**
 * Work under way, by key, so that a caller joins the work under way for its
 * key instead of doing it again (`ReadCache`'s reads, the outbox's
 * deliveries). An entry is forgotten as soon as its promise settles, either
 * way, unless another has taken its key since: the map holds only what is
 * under way, which its callers bound.
 */
export class InFlight<E extends Underway> {
  private readonly entries = new Map<string, E>();

  /** The entry under way for `key`, if any. */
  get(key: string): E | undefined {
    return this.entries.get(key);
  }

  /** Keeps `entry` under `key`, in place of any other, until its promise settles; returns that promise. */
  track(key: string, entry: E): E['promise'] {
    this.entries.set(key, entry);
    const forget = () => {
      if (this.entries.get(key) === entry) this.entries.delete(key);
    };
    entry.promise.then(forget, forget);
    return entry.promise;
  }

  /** The promises under way now (to wait for them all). */
  promises(): Array<E['promise']> {
    return [...this.entries.values()].map((entry) => entry.promise);
  }

  /** Entries under way now. */
  get size(): number {
    return this.entries.size;
  }
}
