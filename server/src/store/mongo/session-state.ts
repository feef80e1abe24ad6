import { Binary, type Db } from 'mongodb';
import type { EndedSessionRecord, SessionKeyRecord } from '../../domain/model';
import type { SessionStateStore } from '../port';
import { collectionNames, isKey, requireKey } from './collections';
import { isDuplicateKey } from './errors';

/*
 * Session keys and ended sessions on MongoDB: two small collections every
 * process reads again now and then (one find each), which only grow by
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
  return {
    async listSessionKeys(now) {
      const docs = await keys()
        .find({ $or: [{ verifiesUntil: null }, { verifiesUntil: { $gt: now } }] })
        .sort({ signsFrom: 1, _id: 1 })
        .toArray();
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

    async listEndedSessions(since, now, limit) {
      const docs = await ended()
        .find({ endedAt: { $gte: since }, expiresAt: { $gt: now } })
        .sort({ endedAt: 1, _id: 1 })
        .limit(limit)
        .toArray();
      return docs.filter((doc) => isKey(doc._id)).map(endedOf);
    },
  };
}
