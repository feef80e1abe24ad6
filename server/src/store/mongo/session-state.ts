import { Binary, type Db } from 'mongodb';
import type { EndedSessionRecord, SessionKeyRecord } from '../../domain/model';
import type { SessionStateStore } from '../port';
import { collectionNames, isKey, requireKey } from './collections';
import { isDuplicateKey } from './errors';

/*
 * Session keys and ended sessions on MongoDB: two small collections every
 * process reads again now and then (both in one aggregate), which only grow by
 * what is added and shrink by their TTL indexes (indexes.ts) once their
 * entries have ended: a key once it no longer opens tokens, an ended
 * session once its token has expired. Writes wait for a majority, as every
 * write of the store: a sign-out acknowledged is never rolled back.
 */

/** A session key as stored; `verifiesUntil` is also its TTL. */
interface SessionKeyDoc {
  _id: string;
  secret: Binary;
  createdAt: Date;
  signsFrom: Date;
  verifiesUntil: Date | null;
}

/** An ended session as stored; `expiresAt` is also its TTL. */
interface EndedSessionDoc {
  _id: string;
  endedAt: Date;
  expiresAt: Date;
}

/**
 * The kid of the deployment's first key: fixed, so that processes starting
 * at once on an empty database store one first key, whoever comes first.
 * A kid is public (in clear in every token).
 */
export const firstSessionKeyId = 'k0';

const keyOf = (doc: SessionKeyDoc): SessionKeyRecord => ({
  kid: doc._id,
  secret: Uint8Array.from(doc.secret.buffer),
  createdAt: doc.createdAt,
  signsFrom: doc.signsFrom,
  verifiesUntil: doc.verifiesUntil ?? null,
});

const endedOf = (doc: EndedSessionDoc): EndedSessionRecord => ({ sessionId: doc._id, endedAt: doc.endedAt, expiresAt: doc.expiresAt });

/** The port's session-state methods on the database `database()` gives (the current client's). */
export function mongoSessionState(database: () => Db): SessionStateStore {
  const keys = () => database().collection<SessionKeyDoc>(collectionNames.sessionKeys);
  const ended = () => database().collection<EndedSessionDoc>(collectionNames.endedSessions);
  const listEnded = async (since: Date, now: Date, limit: number) => endedRecords(await ended().find(endedFilter(since, now)).sort(endedOrder).limit(limit).toArray());
  return {
    async listSessionKeys(now) {
      const docs = await keys().find(liveKeys(now)).sort(keyOrder).toArray();
      return docs.map(keyOf);
    },

    async ensureFirstSessionKey(candidate) {
      const made = { secret: new Binary(Buffer.from(candidate.secret)), createdAt: candidate.createdAt, signsFrom: candidate.signsFrom, verifiesUntil: null };
      let doc: SessionKeyDoc | null;
      try {
        doc = await keys().findOneAndUpdate({ _id: firstSessionKeyId }, { $setOnInsert: made }, { upsert: true, returnDocument: 'after' });
      } catch (error) {
        // Two first starts at once: the other one's insert won, and its key is the first key.
        if (!isDuplicateKey(error)) throw error;
        doc = await keys().findOne({ _id: firstSessionKeyId });
      }
      if (!doc) throw new Error('no first session key after its upsert');
      return keyOf(doc);
    },

    async addSessionKey(key, retireOthersAt) {
      requireKey(key.kid, 'kid');
      // The new key first: the others must never have an end while no key succeeds them.
      await keys().insertOne({ _id: key.kid, secret: new Binary(Buffer.from(key.secret)), createdAt: key.createdAt, signsFrom: key.signsFrom, verifiesUntil: null });
      await keys().updateMany({ _id: { $ne: key.kid }, verifiesUntil: null }, { $set: { verifiesUntil: retireOthersAt } });
    },

    async endSession(record) {
      requireKey(record.sessionId, 'sessionId');
      // Dated by the server as it applies the write ($currentDate): a reader of what ended since a time misses no sign-out whose write was slow.
      // An ended session matches no filter here: its upsert is a duplicate key, and nothing changes.
      const written = await ended().updateOne(
        { _id: record.sessionId, endedAt: { $exists: false } },
        { $setOnInsert: { expiresAt: record.expiresAt }, $currentDate: { endedAt: true } },
        { upsert: true },
      ).catch((error: unknown) => {
        // Ended already (or two sign-outs of one session at once: the other's insert won).
        if (isDuplicateKey(error)) return { upsertedCount: 0 };
        throw error;
      });
      return written.upsertedCount === 1;
    },

    listEndedSessions: listEnded,

    /*
     * One aggregate on the keys: the live keys grouped into one document,
     * which looks up the page of ended sessions (an uncorrelated $lookup,
     * both collections unsharded). A database without a live key (before the
     * fleet's first, in a rolling deploy) has no document to look up from:
     * the ended sessions are then read on their own.
     */
    async readSessionState(now, endedSince, endedLimit) {
      const [read] = await keys()
        .aggregate<{ keys: SessionKeyDoc[]; ended: EndedSessionDoc[] }>([
          { $match: liveKeys(now) },
          { $group: { _id: null, keys: { $push: '$$ROOT' } } },
          {
            $lookup: {
              from: collectionNames.endedSessions,
              pipeline: [{ $match: endedFilter(endedSince, now) }, { $sort: endedOrder }, { $limit: endedLimit }],
              as: 'ended',
            },
          },
        ])
        .toArray();
      if (!read) return { keys: [], ended: await listEnded(endedSince, now, endedLimit) };
      // $push keeps the order of its input only where the server promises it: the few keys are sorted here.
      return { keys: read.keys.sort(byKeyOrder).map(keyOf), ended: endedRecords(read.ended) };
    },
  };
}

const keyOrder = { signsFrom: 1, _id: 1 } as const;
const endedOrder = { endedAt: 1, _id: 1 } as const;

/** The keys that still open tokens at `now`. */
const liveKeys = (now: Date) => ({ $or: [{ verifiesUntil: null }, { verifiesUntil: { $gt: now } }] });

/** The sessions ended at or after `since` whose tokens have not expired at `now`. */
const endedFilter = (since: Date, now: Date) => ({ endedAt: { $gte: since }, expiresAt: { $gt: now } });

const byKeyOrder = (a: SessionKeyDoc, b: SessionKeyDoc): number => a.signsFrom.getTime() - b.signsFrom.getTime() || (a._id < b._id ? -1 : a._id > b._id ? 1 : 0);

const endedRecords = (docs: EndedSessionDoc[]): EndedSessionRecord[] => docs.filter((doc) => isKey(doc._id)).map(endedOf);
