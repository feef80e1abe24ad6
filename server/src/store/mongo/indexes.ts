import type { Db, Document, IndexDescription } from 'mongodb';
import { collectionNames } from './collections';

/**
 * The indexes of every query of the current data layout, per collection.
 * Default index names, so an index an operator created by hand with the same
 * keys is recognised rather than conflicting.
 */
export const indexSpecs: ReadonlyArray<{ collection: string; indexes: IndexDescription[] }> = [
  // A key is found by its digest; a client's keys are listed oldest first; the publishable keys (only they) oldest first.
  {
    collection: collectionNames.apiKeys,
    indexes: [
      { key: { digest: 1 }, unique: true },
      { key: { clientId: 1, createdAt: 1 } },
      { key: { kind: 1, createdAt: 1 }, partialFilterExpression: { kind: 'publishable' } },
    ],
  },
  { collection: collectionNames.members, indexes: [{ key: { householdId: 1 } }] },
  // TTL: the server deletes a session once expiresAt has passed (checked about once a minute).
  { collection: collectionNames.sessions, indexes: [{ key: { expiresAt: 1 }, expireAfterSeconds: 0 }] },
  // TTL: a key goes once it opens no more tokens (a key with no end, null, never does).
  { collection: collectionNames.sessionKeys, indexes: [{ key: { verifiesUntil: 1 }, expireAfterSeconds: 0 }] },
  // Every process reads the sessions ended since its last read, in order; TTL: one goes once its token has expired.
  { collection: collectionNames.endedSessions, indexes: [{ key: { endedAt: 1, _id: 1 } }, { key: { expiresAt: 1 }, expireAfterSeconds: 0 }] },
  // Equality on unit and status, then ordered by id: the listing reads only its own entries, already sorted.
  { collection: collectionNames.voucherDefinitions, indexes: [{ key: { businessUnit: 1, status: 1, voucherDefinitionId: 1 } }] },
  { collection: collectionNames.audit, indexes: [{ key: { reservationToken: 1, at: 1, walletVersion: 1 } }] },
  // The outbox sweep's wallets, bucket by bucket: only wallets with an outbox (recent changes; the sweep clears delivered ones).
  { collection: collectionNames.wallets, indexes: [{ key: { bucket: 1, 'outbox.at': 1 }, partialFilterExpression: { 'outbox.at': { $exists: true } } }] },
  // A window's document is found by its `key` (the key and the window's start); TTL: removed at its `expire`.
  { collection: collectionNames.rateLimits, indexes: [{ key: { expire: -1 }, expireAfterSeconds: 0 }, { key: { key: 1 }, unique: true }] },
  {
    collection: collectionNames.reservations,
    indexes: [
      // Tombstones of removed reservations (the only documents with removedAt) go after a day.
      { key: { removedAt: 1 }, expireAfterSeconds: 86_400 },
    ],
  },
];

/** Idempotent: createIndexes with the same keys and options is a no-op. */
export async function ensureIndexes(db: Db): Promise<void> {
  await Promise.all(indexSpecs.map(({ collection, indexes }) => db.collection(collection).createIndexes(indexes)));
}

/** The indexes of `indexSpecs` the database lacks, as `collection {key...}` (same keys; options not compared). */
export async function missingIndexes(db: Db): Promise<string[]> {
  const missing: string[] = [];
  for (const { collection, indexes } of indexSpecs) {
    const present = await indexesOf(db, collection);
    const keysOf = (key: unknown): string => JSON.stringify(key);
    for (const index of indexes) {
      if (!present.some((p) => keysOf(p.key) === keysOf(index.key))) missing.push(`${collection} ${keysOf(index.key)}`);
    }
  }
  return missing;
}

/** The indexes `collection` has, as the server describes them; none when it does not exist. */
export async function indexesOf(db: Db, collection: string): Promise<Document[]> {
  const indexes: Document[] = await db
    .collection(collection)
    .listIndexes()
    .toArray()
    .catch(() => []);
  return indexes;
}
