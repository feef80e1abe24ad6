import type { Collection, Document } from 'mongodb';
import type { SweepObservers, SweepReport } from '../../port';
import { deliveredLookup, isDelivered, sweepBuckets, walletFilter, type WalletDoc, type WalletWithDelivery } from './documents';

/*
 * The outbox sweep: delivers what no process delivered (it stopped between
 * its answer and the delivery, or the delivery failed, and the wallet has
 * not changed since), and clears the outboxes known delivered. Every
 * process runs it; two sweeps of one wallet at once do the same idempotent
 * writes, and a clear names the wallet's version, so it never touches a
 * newer change.
 *
 * An outbox whose delivery fails is set aside (`retryAt` in the outbox,
 * guarded by the wallet's version): the sweep takes it again only then, a
 * back-off that doubles with each failure, and goes on with the others
 * meanwhile, so that no outbox that keeps failing stalls its bucket. Each
 * run also reports the backlog: the outboxes past the grace still there
 * when it is done, and the oldest of them.
 *
 * What a run costs: first one read of one index entry, whether any outbox
 * of any bucket is past the grace at all (on a sharded cluster the one
 * query of the run that goes to every shard). When none is, that is the
 * run: an idle process pays one command every 30 s, and nothing is
 * pending. Otherwise each bucket in turn: its batches of due outboxes (one
 * read each, then a write of the clears, and the deliveries' writes), and
 * one count of what is left. A bucket starts with its batch, not a count:
 * with traffic every bucket holds outboxes to clear (the requests deliver
 * their outboxes and leave the clearing here), so a count first would cost
 * each bucket a read and spare none; a bucket found empty in a run that
 * found outboxes elsewhere costs two reads (its empty batch, its count).
 *
 * Every command of the sweep, its reads and its writes through the outbox,
 * carries the comment `sweepComment`: MongoDB shows it in currentOp and the
 * profiler, and the metrics count the sweep's commands apart by it
 * (`loyalty_outbox_sweep_commands_total`, ../command-labels.ts).
 */

/** The driver's `comment` of every command the sweep sends. */
export const sweepComment = 'outbox sweep';

/** Options the sweep gives each command it has the outbox send: its comment (none on the request path). */
export interface CommandComment {
  comment?: string;
}

/** The options of the sweep's commands. */
const bySweep: Required<CommandComment> = { comment: sweepComment };

export interface OutboxSweepOptions {
  /** Between runs, on average; each wait is this ± a fifth, so a fleet's sweeps spread out. */
  intervalMs: number;
  /** An outbox younger than this is left to the process that saved it. */
  graceMs: number;
  /** Wallets read per batch. */
  batchSize: number;
  /** Batches per bucket and run at most (a backlog is worked off over several runs). */
  maxBatches: number;
  /** An outbox whose delivery failed is taken again this long after (default one minute), twice as long after each further failure... */
  retryMs?: number;
  /** ...up to this (default one hour). */
  maxRetryMs?: number;
}

/** An entry left behind is delivered within grace + interval + a fifth: 10 + 30 + 6 s. */
export const defaultSweepOptions: OutboxSweepOptions = { intervalMs: 30_000, graceMs: 10_000, batchSize: 200, maxBatches: 10 };

const defaultRetryMs = 60_000;
const defaultMaxRetryMs = 3_600_000;

/** The sweep buckets, 0 to 15: the probe's bounds on the bucket (all of them, each a point of the index). */
const everyBucket = Array.from({ length: sweepBuckets }, (_, bucket) => bucket);

/** Deliveries of one batch under way at once. */
const concurrency = 8;

/** The backlog is counted up to this many outboxes per bucket: the count stays a small read whatever the backlog. */
export const maxCountedPerBucket = 10_000;

/** What the sweep asks of the outbox (outbox.ts). */
export interface SweptOutbox {
  /** Delivers the outbox of the version `doc` was read at, unless it is delivered; its writes carry `options.comment`. */
  ensureDelivered(doc: WalletWithDelivery, options?: CommandComment): Promise<void>;
  /** Removes the outboxes of these wallet versions (delivered ones), in one write carrying `options.comment`. */
  clear(versions: ReadonlyArray<Pick<WalletDoc, '_id' | 'version'>>, options?: CommandComment): Promise<void>;
}

export interface OutboxSweepDeps extends SweepObservers {
  wallets: () => Collection<WalletDoc>;
  auditCollection: () => string;
  outbox: SweptOutbox;
  run: <T>(operation: () => Promise<T>) => Promise<T>;
  now: () => Date;
}

export class OutboxSweep {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<SweepReport> | null = null;
  private stopped = false;

  constructor(
    private readonly deps: OutboxSweepDeps,
    private readonly options: OutboxSweepOptions = defaultSweepOptions,
  ) {}

  /** Runs every `intervalMs` (± a fifth) until `stop`; never keeps the process alive. */
  start(): void {
    if (this.timer || this.stopped) return;
    this.schedule();
  }

  /** Stops the timer and waits for a run under way. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running?.catch(() => undefined);
  }

  /**
   * One run: nothing when no outbox is past the grace; else each sweep
   * bucket in turn (each query targets the shards of its bucket:
   * ../shard-plan.ts), batches of old outboxes that are due until none is
   * left, at most `maxBatches` per bucket; then what is left there.
   */
  async runOnce(): Promise<SweepReport> {
    const report: SweepReport = { delivered: 0, cleared: 0, failed: 0, pending: 0, oldestPendingAt: null };
    const now = this.deps.now();
    const cutoff = new Date(now.getTime() - this.options.graceMs);
    if (await this.anyPastGrace(cutoff)) {
      for (let bucket = 0; bucket < sweepBuckets && !this.stopped; bucket++) await this.sweepBucket(bucket, cutoff, now, report);
    }
    this.deps.onRun?.(report);
    return report;
  }

  /** The batches of one bucket, then the count of what is left there past the grace (set aside, failed, or beyond `maxBatches`). */
  private async sweepBucket(bucket: number, cutoff: Date, now: Date, report: SweepReport): Promise<void> {
    for (let batch = 0; batch < this.options.maxBatches && !this.stopped; batch++) {
      const found = await this.dueOutboxes(bucket, cutoff, now);
      const swept = await this.sweepBatch(found, report, now);
      if (found.length < this.options.batchSize || swept === 0) break;
    }
    const left = await this.backlog(bucket, cutoff);
    report.pending += left.count;
    if (left.oldest && (!report.oldestPendingAt || left.oldest < report.oldestPendingAt)) report.oldestPendingAt = left.oldest;
  }

  /**
   * Delivers what is undelivered in `found`, clears what is delivered, sets
   * aside what failed; how many it cleared or set aside (a batch of which
   * it could do neither would only come back).
   */
  private async sweepBatch(found: WalletWithDelivery[], report: SweepReport, now: Date): Promise<number> {
    const clearable: WalletWithDelivery[] = [];
    let setAside = 0;
    await inBatches(found, concurrency, async (doc) => {
      if (isDelivered(doc)) {
        clearable.push(doc);
        return;
      }
      try {
        await this.deps.outbox.ensureDelivered(doc, bySweep);
        report.delivered++;
        // Delivering an outbox without an audit entry cleared it already.
        if (doc.outbox?.audit) clearable.push(doc);
      } catch (error) {
        report.failed++;
        if (await this.setAside(doc, error, now)) setAside++;
      }
    });
    await this.deps.outbox.clear(clearable, bySweep);
    report.cleared += clearable.length;
    return clearable.length + setAside;
  }

  /** Marks the outbox of the version read with its next try; false when the wallet moved on meanwhile (nothing to set aside). */
  private async setAside(doc: WalletWithDelivery, error: unknown, now: Date): Promise<boolean> {
    const outbox = doc.outbox;
    if (!outbox) return false;
    const failures = (outbox.failures ?? 0) + 1;
    const firstMs = this.options.retryMs ?? defaultRetryMs;
    const backoffMs = Math.min(this.options.maxRetryMs ?? defaultMaxRetryMs, firstMs * 2 ** Math.min(failures - 1, 30));
    const retryAt = new Date(now.getTime() + backoffMs);
    const filter = { ...walletFilter(doc._id), version: doc.version, 'outbox.at': outbox.at };
    const result = await this.deps.run(() => this.deps.wallets().updateOne(filter, { $set: { 'outbox.retryAt': retryAt, 'outbox.failures': failures } }, bySweep));
    if (result.matchedCount !== 1) return false;
    this.deps.onSetAside?.({ walletId: doc._id, failures, retryAt, error });
    return true;
  }

  /** Old outboxes of one bucket that are due: never set aside, or their retry has come. */
  private dueOutboxes(bucket: number, cutoff: Date, now: Date): Promise<WalletWithDelivery[]> {
    return this.deps.run(() =>
      this.deps
        .wallets()
        .aggregate<WalletWithDelivery>(
          [
            { $match: { bucket, 'outbox.at': { $lt: cutoff }, $or: [{ 'outbox.retryAt': { $exists: false } }, { 'outbox.retryAt': { $lte: now } }] } },
            { $limit: this.options.batchSize },
            { $project: { bucket: 1, version: 1, outbox: 1 } },
            ...deliveredLookup(this.deps.auditCollection()),
          ],
          bySweep,
        )
        .toArray(),
    );
  }

  /**
   * Whether any outbox of any bucket is past the grace: one index entry read
   * (the wallets' `{ bucket, outbox.at }` index, bounded on both: every
   * bucket, and before the cutoff), its wallet's id the only field returned.
   */
  private async anyPastGrace(cutoff: Date): Promise<boolean> {
    const found = await this.deps.run(() =>
      this.deps.wallets().findOne({ bucket: { $in: everyBucket }, 'outbox.at': { $lt: cutoff } }, { projection: { _id: 1 }, ...bySweep }),
    );
    return found !== null;
  }

  /** How many outboxes of one bucket are past the grace (up to `maxCountedPerBucket`), and when the oldest was saved. */
  private async backlog(bucket: number, cutoff: Date): Promise<{ count: number; oldest: Date | null }> {
    const [found] = await this.deps.run(() =>
      this.deps
        .wallets()
        .aggregate<Document>(
          [
            { $match: { bucket, 'outbox.at': { $lt: cutoff } } },
            { $sort: { 'outbox.at': 1 } },
            { $limit: maxCountedPerBucket },
            { $group: { _id: null, count: { $sum: 1 }, oldest: { $min: '$outbox.at' } } },
          ],
          bySweep,
        )
        .toArray(),
    );
    return found ? { count: found.count as number, oldest: found.oldest as Date } : { count: 0, oldest: null };
  }

  private schedule(): void {
    const jitter = 1 + (Math.random() * 2 - 1) / 5;
    this.timer = setTimeout(() => {
      this.running = this.runOnce();
      this.running
        .catch((error: unknown) => this.deps.onError?.(error))
        .finally(() => {
          this.running = null;
          if (!this.stopped) this.schedule();
        });
    }, this.options.intervalMs * jitter);
    this.timer.unref();
  }
}

async function inBatches<T>(items: T[], size: number, work: (item: T) => Promise<void>): Promise<void> {
  for (let i = 0; i < items.length; i += size) await Promise.all(items.slice(i, i + size).map(work));
}
