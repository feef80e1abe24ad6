import { randomBytes } from 'node:crypto';
import type { Db } from 'mongodb';
import type { QuotaWindow, SharedQuotaStore } from '../port';
import { collectionNames } from './collections';
import { countWrites } from './concerns';
import { isDuplicateKey } from './errors';

/*
 * The rate limit's claim on MongoDB (the counting itself is the rate
 * limit's own, rate-limit/block-quota.ts): one document per key and window
 * in `rateLimits`, which every process of the fleet increments by the
 * blocks it claims (and decrements by the tokens it gives back unspent),
 * and which names the processes that claimed (their number sizes each
 * one's share while the database is away).
 */

/** A key's window as stored: what all processes claimed in it, and which processes did. */
interface WindowDocument {
  key: string;
  claimed: number;
  /** Bounded by the number of processes on the database. */
  claimers: string[];
  /** The TTL index removes the document a window after its window ended (a process whose clock runs behind still finds it). */
  expire: Date;
}

/**
 * The `key` of a window's document. Its own prefix: the documents the
 * previous counting wrote (`client:<key>`, one per key) are never matched
 * and expire by themselves.
 */
export function windowDocumentKey(key: string, window: QuotaWindow): string {
  return `w:${window.start}:${key}`;
}

/**
 * The claims of one process on the database `database()` gives (the
 * current client's: a claim follows a replaced client): each one atomic
 * increment of the window's document, which the first claim of the window
 * creates.
 */
export function quotaClaims(database: () => Db): SharedQuotaStore['claimQuota'] {
  /** Names this process in the windows' `claimers`. */
  const processId = randomBytes(6).toString('base64url');
  return async (claim) => {
    const windows = database().collection<WindowDocument>(collectionNames.rateLimits, countWrites);
    const { window } = claim;
    const increment = () =>
      windows.findOneAndUpdate(
        { key: windowDocumentKey(claim.key, window) },
        {
          $inc: { claimed: claim.want + claim.unreported },
          $addToSet: { claimers: processId },
          $setOnInsert: { expire: new Date(window.end + (window.end - window.start)) },
        },
        { upsert: true, returnDocument: 'after', projection: { _id: 0, claimed: 1, claimers: 1 } },
      );
    let stored: Pick<WindowDocument, 'claimed' | 'claimers'> | null;
    try {
      stored = await increment();
    } catch (error) {
      // Two first claims of a window raced to insert its document: the second increments the first's.
      if (!isDuplicateKey(error)) throw error;
      stored = await increment();
    }
    if (!stored) throw new Error(`no ${collectionNames.rateLimits} document after an upsert`);
    return { claimed: stored.claimed, claimers: stored.claimers.length };
  };
}

/**
 * The returns of one process on the database `database()` gives: each one
 * atomic decrement of the window's document (an `updateOne`, no upsert: a
 * window whose document expired has nothing to give back to).
 */
export function quotaReturns(database: () => Db): SharedQuotaStore['returnQuota'] {
  return async (returned) => {
    const windows = database().collection<WindowDocument>(collectionNames.rateLimits, countWrites);
    await windows.updateOne({ key: windowDocumentKey(returned.key, returned.window) }, { $inc: { claimed: -returned.tokens } });
  };
}
