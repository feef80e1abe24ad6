import type { Collection } from 'mongodb';
import { deliveredLookup, isDelivered, sweepBuckets, type WalletDoc, type WalletWithDelivery } from './documents';

/*
 * The outbox sweep: delivers what no process delivered (it stopped between
 * its answer and the delivery, or the delivery failed, and the wallet has
 * not changed since), and clears the outboxes known delivered. Every
 * process runs it; two sweeps of one wallet at once do the same idempotent
 * writes, and a clear names the wallet's version, so it never touches a
 * newer change.
 */

export interface OutboxSweepOptions {
  /** Between runs, on average; each wait is this ± a fifth, so a fleet's sweeps spread out. */
  intervalMs: number;
  /** An outbox younger than this is left to the process that saved it. */
  graceMs: number;
  /** Wallets read per batch. */
  batchSize: number;
  /** Batches per bucket and run at most (a backlog is worked off over several runs). */
  maxBatches: number;
}

/** An entry left behind is delivered within grace + interval + a fifth: 10 + 30 + 6 s. */
export const defaultSweepOptions: OutboxSweepOptions = { intervalMs: 30_000, graceMs: 10_000, batchSize: 200, maxBatches: 10 };

/** Deliveries of one batch under way at once. */
const concurrency = 8;

export interface SweepReport {
  /** Outboxes this run delivered. */
  delivered: number;
  /** Outboxes this run removed from their wallets (delivered before, or by it). */
  cleared: number;
  /** Deliveries that failed (left for the next run). */
  failed: number;
}

/** What the sweep asks of the outbox (outbox.ts). */
export interface SweptOutbox {
  /** Delivers the outbox of the version `doc` was read at, unless it is delivered. */
  ensureDelivered(doc: WalletWithDelivery): Promise<void>;
  /** Removes the outboxes of these wallet versions (delivered ones). */
  clear(versions: ReadonlyArray<Pick<WalletDoc, '_id' | 'version'>>): Promise<void>;
}

export interface OutboxSweepDeps {
  wallets: () => Collection<WalletDoc>;
  auditCollection: () => string;
  outbox: SweptOutbox;
  run: <T>(operation: () => Promise<T>) => Promise<T>;
  now: () => Date;
  /** Told of each run that failed (the database away); the next run tries again. */
  onError?: (error: unknown) => void;
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
   * One run: each sweep bucket in turn (each query targets the shards of
   * its bucket: ../shard-plan.ts), batches of old outboxes until none is left,
   * at most `maxBatches` per bucket.
   */
  async runOnce(): Promise<SweepReport> {
    const report: SweepReport = { delivered: 0, cleared: 0, failed: 0 };
    const cutoff = new Date(this.deps.now().getTime() - this.options.graceMs);
    for (let bucket = 0; bucket < sweepBuckets && !this.stopped; bucket++) {
      for (let batch = 0; batch < this.options.maxBatches && !this.stopped; batch++) {
        const found = await this.oldOutboxes(bucket, cutoff);
        const cleared = await this.sweepBatch(found, report);
        // A full batch of which nothing could be cleared would only come back: the next run tries again.
        if (found.length < this.options.batchSize || cleared === 0) break;
      }
    }
    return report;
  }

  /** Delivers what is undelivered in `found`, clears what is delivered; how many it cleared. */
  private async sweepBatch(found: WalletWithDelivery[], report: SweepReport): Promise<number> {
    const clearable: WalletWithDelivery[] = [];
    await inBatches(found, concurrency, async (doc) => {
      if (isDelivered(doc)) {
        clearable.push(doc);
        return;
      }
      try {
        await this.deps.outbox.ensureDelivered(doc);
        report.delivered++;
        // Delivering an outbox without an audit entry cleared it already.
        if (doc.outbox?.audit) clearable.push(doc);
      } catch {
        report.failed++;
      }
    });
    await this.deps.outbox.clear(clearable);
    report.cleared += clearable.length;
    return clearable.length;
  }

  private oldOutboxes(bucket: number, cutoff: Date): Promise<WalletWithDelivery[]> {
    return this.deps.run(() =>
      this.deps
        .wallets()
        .aggregate<WalletWithDelivery>([
          { $match: { bucket, 'outbox.at': { $lt: cutoff } } },
          { $limit: this.options.batchSize },
          { $project: { bucket: 1, version: 1, outbox: 1 } },
          ...deliveredLookup(this.deps.auditCollection()),
        ])
        .toArray(),
    );
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
