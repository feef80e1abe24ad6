import type { Db, Document } from 'mongodb';
import { collectionNames } from './collections';
import { indexesOf } from './indexes';

/*
 * How long the audit trail keeps an entry: a TTL index on its time (`at`),
 * whose `expireAfterSeconds` is AUDIT_RETENTION_DAYS; no such index keeps
 * entries for ever. `loyalty-admin indexes` makes the database say what the
 * configuration says (servers never touch it: processes started with other
 * settings during a roll would undo each other); `indexes --verify` and
 * `check` report a difference.
 */

const retentionKey = { at: 1 } as const;
const secondsPerDay = 86_400;

export type RetentionChange = 'created' | 'changed' | 'dropped' | 'unchanged';

/** The retention the database applies now, in days (null: for ever). */
export async function auditRetentionOf(db: Db): Promise<number | null> {
  const index = await retentionIndex(db);
  return index ? Number(index.expireAfterSeconds) / secondsPerDay : null;
}

/** Makes the database keep entries `days` days (null: for ever). */
export async function applyAuditRetention(db: Db, days: number | null): Promise<RetentionChange> {
  const audit = db.collection(collectionNames.audit);
  const index = await retentionIndex(db);
  if (days === null) {
    if (!index) return 'unchanged';
    await audit.dropIndex(String(index.name));
    return 'dropped';
  }
  const expireAfterSeconds = days * secondsPerDay;
  if (!index) {
    await audit.createIndex(retentionKey, { expireAfterSeconds });
    return 'created';
  }
  if (Number(index.expireAfterSeconds) === expireAfterSeconds) return 'unchanged';
  try {
    await db.command({ collMod: collectionNames.audit, index: { keyPattern: retentionKey, expireAfterSeconds } });
  } catch {
    // A server without collMod of a TTL: the index made again, with the new time.
    await audit.dropIndex(String(index.name));
    await audit.createIndex(retentionKey, { expireAfterSeconds });
  }
  return 'changed';
}

/** What differs between the database and `days`, for people; null when they agree. */
export async function auditRetentionProblem(db: Db, days: number | null): Promise<string | null> {
  const applied = await auditRetentionOf(db);
  if (applied === days) return null;
  const said = (value: number | null) => (value === null ? 'for ever' : `${value} days`);
  return `the audit trail keeps entries ${said(applied)}, AUDIT_RETENTION_DAYS says ${said(days)}: run loyalty-admin indexes`;
}

async function retentionIndex(db: Db): Promise<Document | undefined> {
  const indexes = await indexesOf(db, collectionNames.audit);
  return indexes.find((index) => JSON.stringify(index.key) === JSON.stringify(retentionKey) && index.expireAfterSeconds !== undefined);
}
