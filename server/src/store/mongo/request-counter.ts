import { randomBytes } from 'node:crypto';
import type { Db, IndexDescription } from 'mongodb';
import type { RequestCounter, WindowCount } from '../port';
import { countWrites } from './concerns';
import { isDuplicateKey } from './errors';
import { BlockQuotaCounter, type ClaimAnswer, type ClaimRequest, type ReturnedTokens } from './quota-blocks';
import type { QuotaWindow } from './quota-windows';

/** The collection of the counters; one document per key and window. */
export const requestCounterCollection = 'rateLimits';

/** How long a claim may take before this process counts on its own (the database taken as away). */
export const counterTimeoutMs = 1000;
/** How long a stopping process waits, at most, for its unspent tokens to reach the database. */
const closeTimeoutMs = 2000;

/**
 * Its indexes: a window's document is found by its `key` (the key and the
 * window's start), and the server removes it a window after that window
 * ended (`expire`; a process whose clock runs behind still finds it).
 */
export const requestCounterIndexes: IndexDescription[] = [
  { key: { expire: -1 }, expireAfterSeconds: 0 },
  { key: { key: 1 }, unique: true },
];

/** A key's window as stored: what all processes claimed in it, and which processes did. */
interface WindowDocument {
  key: string;
  claimed: number;
  /** Bounded by the number of processes on the database. */
  claimers: string[];
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

export interface MongoRequestCounterOptions {
  /** See `counterTimeoutMs`. */
  timeoutMs?: number;
  now?: () => number;
  /** Keys whose state this process keeps at most (default `defaultMaxKeys`). */
  maxKeys?: number;
  /** While MongoDB is away, one claim tries it again this often (default `defaultRetryMs`). */
  retryMs?: number;
}

/**
 * Requests per key and window, counted for every process on the database
 * with one write per block of requests (quota-blocks.ts): a claim is one
 * `findOneAndUpdate` ($inc) on the window's document, giving tokens back one
 * `updateOne` (a negative $inc), for blocks left unused (checked every half
 * block's time) and on `close`.
 */
export class MongoRequestCounter implements RequestCounter {
  /** Names this process in the windows' `claimers`. */
  readonly processId = randomBytes(6).toString('base64url');
  private readonly blocks: BlockQuotaCounter;
  private readonly idleCheck: NodeJS.Timeout;

  constructor(
    limit: number,
    windowSeconds: number,
    /** The database of the current client: a claim follows a replaced client. */
    database: () => { db: Db; generation: number },
    options: MongoRequestCounterOptions = {},
  ) {
    const windowMs = windowSeconds * 1000;
    this.blocks = new BlockQuotaCounter({
      limit,
      windowMs,
      timeoutMs: options.timeoutMs ?? counterTimeoutMs,
      claim: (request) => claimBlock(database().db, request, this.processId, windowMs),
      giveBack: (returned) => giveBack(database().db, returned),
      ...(options.now && { now: options.now }),
      ...(options.maxKeys !== undefined && { maxKeys: options.maxKeys }),
      ...(options.retryMs !== undefined && { retryMs: options.retryMs }),
    });
    this.idleCheck = setInterval(() => void this.blocks.returnIdle(), this.blocks.blockMs / 2);
    // Housekeeping: it must never keep the process alive.
    this.idleCheck.unref();
  }

  hit(key: string): WindowCount | Promise<WindowCount> {
    return this.blocks.hit(key);
  }

  /** Whether this process counts on its own (MongoDB taken as away). */
  get countingAlone(): boolean {
    return this.blocks.countingAlone;
  }

  /** Gives back every unspent token (waiting at most `closeTimeoutMs`), and stops the idle check. */
  async close(): Promise<void> {
    clearInterval(this.idleCheck);
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<void>((resolve) => (timer = setTimeout(resolve, closeTimeoutMs)));
    await Promise.race([this.blocks.returnAll(), deadline]);
    clearTimeout(timer);
  }
}

/** Unspent tokens back to the window's count; nothing when the window's document is gone (expired). */
async function giveBack(db: Db, returned: ReturnedTokens): Promise<void> {
  const windows = db.collection<WindowDocument>(requestCounterCollection, countWrites);
  await windows.updateOne({ key: windowDocumentKey(returned.key, returned.window) }, { $inc: { claimed: -returned.tokens } });
}

/** One atomic increment of the window's document, made by the first claim of the window. */
async function claimBlock(db: Db, request: ClaimRequest, processId: string, windowMs: number): Promise<ClaimAnswer> {
  const windows = db.collection<WindowDocument>(requestCounterCollection, countWrites);
  const increment = () =>
    windows.findOneAndUpdate(
      { key: windowDocumentKey(request.key, request.window) },
      {
        $inc: { claimed: request.want + request.unreported },
        $addToSet: { claimers: processId },
        $setOnInsert: { expire: new Date(request.window.end + windowMs) },
      },
      { upsert: true, returnDocument: 'after', projection: { _id: 0, claimed: 1, claimers: 1 } },
    );
  let window: Pick<WindowDocument, 'claimed' | 'claimers'> | null;
  try {
    window = await increment();
  } catch (error) {
    // Two first claims of a window raced to insert its document: the second increments the first's.
    if (!isDuplicateKey(error)) throw error;
    window = await increment();
  }
  if (!window) throw new Error(`no ${requestCounterCollection} document after an upsert`);
  return { claimed: window.claimed, claimers: window.claimers.length };
}
