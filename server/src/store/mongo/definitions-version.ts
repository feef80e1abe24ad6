import type { Db } from 'mongodb';
import { collectionNames } from './collections';

/*
 * The voucher definitions version of a database: a counter in the `meta`
 * collection that every write of definitions bumps (fixture loads,
 * `loyalty-admin load`). Processes keep a listing until the counter moves,
 * and read it at most once a second, so a new definition shows on every
 * process within about a second, for one small read per second per process.
 */

const versionDocumentId = 'voucherDefinitions';

interface VersionDoc {
  _id: typeof versionDocumentId;
  version: number;
}

/** The counter; 0 for a database whose definitions were never written. */
export async function readDefinitionsVersion(db: Db): Promise<number> {
  const doc = await db.collection<VersionDoc>(collectionNames.meta).findOne({ _id: versionDocumentId }, { projection: { version: 1 } });
  return doc?.version ?? 0;
}

/** After a write of definitions: every process relists on its next check. */
export async function bumpDefinitionsVersion(db: Db): Promise<void> {
  await db.collection<VersionDoc>(collectionNames.meta).updateOne({ _id: versionDocumentId }, { $inc: { version: 1 } }, { upsert: true });
}
