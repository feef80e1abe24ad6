import { frozenCopy } from '../copy';

/**
 * Records by their key, each copied and deep-frozen on the way in and
 * handed out as it is (see MemoryStore): the memory store's clients,
 * members, catalogue items and redemptions.
 */
export class FrozenRecords<R> {
  private readonly byKey = new Map<string, R>();

  constructor(private readonly keyOf: (record: R) => string) {}

  find(key: string): R | null {
    return this.byKey.get(key) ?? null;
  }

  /** Replaces or adds each record under its key: a key given twice ends with its last record. */
  upsert(records: readonly R[]): void {
    for (const record of records) this.byKey.set(this.keyOf(record), frozenCopy(record));
  }

  clear(): void {
    this.byKey.clear();
  }
}
