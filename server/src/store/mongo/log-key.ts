import { Binary, type Db } from 'mongodb';
import { newLogKey } from '../../domain/secrets';
import { collectionNames } from './collections';
import { isDuplicateKey } from './errors';

/*
 * The deployment's log key (`memberIdHash`), kept in the `meta` collection:
 * made by the first process (or `loyalty-admin log-hash`) that asks, then
 * read by every other, so that one member has one hash on every process of
 * the fleet and across restarts, and an operator can compute it. It never
 * leaves the database but as hashes.
 */

const logKeyDocumentId = 'logKey';

interface LogKeyDoc {
  _id: typeof logKeyDocumentId;
  key: Binary;
  createdAt: Date;
}

export async function readOrCreateLogKey(db: Db): Promise<Buffer> {
  const meta = db.collection<LogKeyDoc>(collectionNames.meta);
  const made = { key: new Binary(newLogKey()), createdAt: new Date() };
  let doc: LogKeyDoc | null;
  try {
    doc = await meta.findOneAndUpdate({ _id: logKeyDocumentId }, { $setOnInsert: made }, { upsert: true, returnDocument: 'after' });
  } catch (error) {
    // Two first starts at once: the other one's insert won, and its key is the key.
    if (!isDuplicateKey(error)) throw error;
    doc = await meta.findOne({ _id: logKeyDocumentId });
  }
  if (!doc) throw new Error('no log key after its upsert');
  return Buffer.from(doc.key.buffer);
}
