import type { Collection } from 'mongodb';
import type { WalletDoc } from './documents';
import { deliveredLookup, isDelivered, type Outbox, type WalletWithDelivery } from './outbox';

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
  /** Batches per run at most (a backlog is worked off over several runs). */
  maxBatches: number;
}

/** An entry left behind is delivered within grace + interval + a fifth: 10 + 30 + 6 s. */
export const defaultSweepOptions: OutboxSweepOptions = { intervalMs: 30_000, graceMs: 10_000, batchSize: 200, maxBatches: 50 };

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

export interface OutboxSweepDeps {
  wallets: () => Collection<WalletDoc>;
  auditCollection: () => string;
  outbox: Outbox;
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

  /** One run: batches of old outboxes until none is left or `maxBatches`. */
  async runOnce(): Promise<SweepReport> {
    const report: SweepReport = { delivered: 0, cleared: 0, failed: 0 };
    const cutoff = new Date(this.deps.now().getTime() - this.options.graceMs);
    for (let batch = 0; batch < this.options.maxBatches && !this.stopped; batch++) {
      const found = await this.oldOutboxes(cutoff);
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
      // A full batch of which nothing could be cleared would only come back: the next run tries again.
      if (found.length < this.options.batchSize || clearable.length === 0) break;
    }
    return report;
  }

  private oldOutboxes(cutoff: Date): Promise<WalletWithDelivery[]> {
    return this.deps.run(() =>
      this.deps
        .wallets()
        .aggregate<WalletWithDelivery>([
          { $match: { 'outbox.at': { $lt: cutoff } } },
          { $limit: this.options.batchSize },
          { $project: { version: 1, outbox: 1 } },
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
