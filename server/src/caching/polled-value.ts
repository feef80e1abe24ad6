/**
 * A value read at most once per `intervalMs`: within it the last one is
 * answered at once; after it, the next caller reads it again, and callers
 * meanwhile share that read. A failed read is not kept.
 */
export class PolledValue<T> {
  private known: { value: T; askedAt: number } | null = null;
  private reading: Promise<T> | null = null;

  constructor(
    private readonly read: () => Promise<T>,
    private readonly intervalMs: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  get(): T | Promise<T> {
    if (this.known && this.now() - this.known.askedAt < this.intervalMs) return this.known.value;
    return (this.reading ??= this.readNow());
  }

  /** The next `get` reads again (after this process changed the value itself). */
  forget(): void {
    this.known = null;
  }

  private async readNow(): Promise<T> {
    const askedAt = this.now();
    try {
      const value = await this.read();
      this.known = { value, askedAt };
      return value;
    } finally {
      this.reading = null;
    }
  }
}
