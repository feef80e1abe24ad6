import { hash } from 'node:crypto';
import type { Db } from 'mongodb';
import { collectionNames } from '../collections';
import type { ApiKeyDoc, ClientDoc, SessionDoc } from '../documents';
import { indexesOf } from '../indexes';
import type { Migration } from './migration';
import { eachMatching } from './parallel';

/**
 * Layout 2 to 3: a client's one key digest (`clients.apiKeyHash`) becomes
 * an API key document of its own, and each of the client's sessions records
 * it as the key that started it. Only then does the client lose the field
 * (and its unique index, which would refuse a second client without it).
 * Idempotent: the key's id comes from the client id, and every write is
 * made only where it is still missing.
 */
type Layout2Client = ClientDoc & { apiKeyHash?: string };

export const toLayout3: Migration = {
  to: 3,
  name: 'API keys of their own',
  async run(db, progress, now) {
    const clients = db.collection<Layout2Client>(collectionNames.clients);
    const filter = { apiKeyHash: { $exists: true } };
    await eachMatching(clients, filter, this.name, progress, (client) => moveKeyOut(db, client, now));
    await dropIndexIfPresent(db, collectionNames.clients, { apiKeyHash: 1 });
    await clients.updateMany(filter, { $unset: { apiKeyHash: '' } });
  },
};

/** The public id of a client's key as layout 2 held it: from the client id, never from the secret. */
export function migratedKeyId(clientId: string): string {
  return `key_mg${hash('sha256', clientId, 'hex').slice(0, 10)}`;
}

async function moveKeyOut(db: Db, client: Layout2Client, now: Date): Promise<void> {
  if (client.apiKeyHash === undefined) return;
  const keyId = migratedKeyId(client._id);
  await db.collection<ApiKeyDoc>(collectionNames.apiKeys).updateOne(
    { _id: keyId },
    { $setOnInsert: { clientId: client._id, digest: client.apiKeyHash, createdAt: now, expiresAt: null, revokedAt: null } },
    { upsert: true },
  );
  await db.collection<SessionDoc>(collectionNames.sessions).updateMany({ clientId: client._id, keyId: { $exists: false } }, { $set: { keyId } });
}

/** Drops the index on exactly these keys, if the collection has one. */
export async function dropIndexIfPresent(db: Db, collection: string, key: Record<string, 1 | -1>): Promise<void> {
  const indexes = await indexesOf(db, collection);
  const found = indexes.find((index) => JSON.stringify(index.key) === JSON.stringify(key));
  if (found) await db.collection(collection).dropIndex(String(found.name));
}
