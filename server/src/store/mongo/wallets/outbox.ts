import type { LRUCache } from 'lru-cache';
import type { AnyBulkWriteOperation, Collection, Document } from 'mongodb';
import { boundedCache } from '../../../caching/bounded-cache';
import { InFlight } from '../../../caching/in-flight';
import { withMemberIds } from '../../../domain/member-ids';
import type { AuditEntry } from '../../../domain/model';
import type { OutboxLifecycle, SweepObservers } from '../../port';
import { isDuplicateKey, refusedWrites } from '../errors';
import {
  auditDoc,
  deliveredLookup,
  isDelivered,
  outboxMemberIds,
  reservationDocBody,
  reservationDocId,
  reservationWriteDocs,
  reservationWritesFromDocs,
  walletFilter,
  type AuditDoc,
  type OutboxDoc,
  type ReservationDoc,
  type ReservationWrite,
  type WalletDoc,
  type WalletWithDelivery,
} from './documents';
import { defaultSweepOptions, OutboxSweep, type CommandComment, type OutboxSweepOptions } from './outbox-sweep';

/*
 * The outbox of a wallet change. A change is one compare-and-set of its
 * wallet document, which carries what the change writes elsewhere: the
 * reservation documents it changed and its audit entry (`WalletDoc.outbox`).
 * Delivering it writes those documents, after the answer: the reservations
 * first (each write idempotent, never over a newer one), the audit entry
 * last. So whether an outbox is delivered is a fact of the database, read
 * with the wallet (the audit entry is in the trail), not something a process
 * remembers:
 *
 * - the process that saved delivers right after its answer;
 * - any reader of the wallet that finds its outbox undelivered delivers it
 *   before going on (a process stopped between answer and delivery, a
 *   delivery that failed), and no writer replaces an undelivered outbox;
 * - the sweep (outbox-sweep.ts) delivers the outboxes left behind by
 *   wallets nobody changes again, and clears delivered ones, so that the
 *   `outbox.at` index holds only recent changes.
 *
 * An outbox without an audit entry (a fixture's whole save) cannot be told
 * delivered from the trail: whoever delivers it clears it.
 */

export interface OutboxCollections {
  wallets: Collection<WalletDoc>;
  reservations: Collection<ReservationDoc>;
  audit: Collection<AuditDoc>;
}

export interface OutboxDeps {
  collections: () => OutboxCollections;
  /** Runs one driver call, mapping "database unreachable" (StoreConnection.run). */
  run: <T>(operation: () => Promise<T>) => Promise<T>;
  now: () => Date;
  /** Default `maxDeliveriesUnderway`. */
  maxUnderway?: number;
  /** Default `maxRememberedWallets`. */
  maxRemembered?: number;
  /** How long deliveries after answers wait to go out together; default `batchDelayMs`. */
  batchDelayMs?: number;
  /** Milliseconds of a monotonic clock (tests). */
  clockMs?: () => number;
}

/** One outbox to deliver: the wallet version whose change it is. */
interface Delivery {
  walletId: string;
  version: number;
  outbox: OutboxDoc;
}

/** Deliveries after answers under way at once in a process; past it, the next reader or the sweep delivers. */
export const maxDeliveriesUnderway = 10_000;
/** Wallets whose delivered version a process remembers (saves it from checking again); forgetting costs one read. */
export const maxRememberedWallets = 10_000;
/**
 * Deliveries after answers go out together, in one write of their
 * reservations and one of their audit entries: at most `maxBatch`, with the
 * first answer given once the oldest has waited this long (right after it,
 * in the same turn of the event loop: a busy process wakes for no timer of
 * its own), or at twice this long when no answer comes. A reader that
 * needs one sends the batch at once.
 */
export const batchDelayMs = 100;
const maxBatch = 200;

/** The outbox of a change: its reservation writes and audit entry, saved at `at`. */
export function outboxDoc(reservations: readonly ReservationWrite[], audit: AuditEntry | null | undefined, at: Date): OutboxDoc {
  return { at, reservations: reservationWriteDocs(reservations), audit: audit ? auditDoc(audit) : null };
}

export class Outbox implements OutboxLifecycle {
  /** Deliveries under way in this process, by wallet: a reader of that version joins one instead of sending it again. */
  private readonly underway = new InFlight<{ version: number; promise: Promise<void> }>();
  /** Per wallet, the version this process saw delivered (read from the database, or delivered itself). */
  private readonly delivered: LRUCache<string, number>;
  /** Deliveries after answers waiting for the next batch, and when the oldest was queued. */
  private queued: Array<Delivery & { delivered: () => void; failed: (error: unknown) => void }> = [];
  private oldestQueuedAt = 0;
  /** The batch's send when no answer comes to take it. */
  private batchTimer: NodeJS.Timeout | null = null;
  /** The batch's send right after the current answer. */
  private batchSoon: NodeJS.Immediate | null = null;
  private readonly clockMs: () => number;
  private sweep: OutboxSweep | null = null;

  constructor(private readonly deps: OutboxDeps) {
    this.delivered = boundedCache({ maxEntries: deps.maxRemembered ?? maxRememberedWallets });
    this.clockMs = deps.clockMs ?? (() => performance.now());
  }

  /** The port's `start`; `options` set the sweep's pace (tests), and the running sweep is returned (tests run it at their own time). */
  start(observers: SweepObservers = {}, options: OutboxSweepOptions = defaultSweepOptions): OutboxSweep {
    this.sweep ??= new OutboxSweep(
      {
        wallets: () => this.collections.wallets,
        auditCollection: () => this.collections.audit.collectionName,
        outbox: this,
        run: this.deps.run,
        now: this.deps.now,
        ...observers,
      },
      options,
    );
    this.sweep.start();
    return this.sweep;
  }

  async close(): Promise<void> {
    await this.sweep?.stop();
    await this.settle();
  }

  async settle(): Promise<void> {
    this.sendBatch();
    await Promise.allSettled(this.underway.promises());
  }

  /** The collections of the store's current client. */
  private get collections(): OutboxCollections {
    return this.deps.collections();
  }

  /**
   * Starts delivering the outbox a save just wrote once the answer has gone
   * out (the next turn of the event loop), without waiting for it. When too
   * many are under way, it is left to the next reader of the wallet or the sweep.
   */
  deliverLater(walletId: string, version: number, outbox: OutboxDoc): void {
    if (this.underway.size >= (this.deps.maxUnderway ?? maxDeliveriesUnderway)) return;
    const queued = new Promise<void>((resolve, reject) => {
      this.queued.push({ walletId, version, outbox, delivered: resolve, failed: reject });
    });
    this.track(walletId, version, () => queued).catch(() => undefined);
    const delay = this.deps.batchDelayMs ?? batchDelayMs;
    if (this.queued.length >= maxBatch) this.sendBatch();
    else if (this.queued.length === 1) {
      this.oldestQueuedAt = this.clockMs();
      this.batchTimer = setTimeout(() => this.sendBatch(), 2 * delay);
    } else if (this.clockMs() - this.oldestQueuedAt >= delay) this.batchSoon ??= setImmediate(() => this.sendBatch());
  }

  /** Sends the deliveries waiting, as one batch. */
  private sendBatch(): void {
    if (this.batchTimer) clearTimeout(this.batchTimer);
    if (this.batchSoon) clearImmediate(this.batchSoon);
    this.batchTimer = null;
    this.batchSoon = null;
    const batch = this.queued.splice(0);
    if (batch.length === 0) return;
    this.write(batch).then(
      () => batch.forEach((d) => d.delivered()),
      (error: unknown) => batch.forEach((d) => d.failed(error)),
    );
  }

  /** Delivers an outbox at once (whole saves: fixtures, large outboxes; the layout 4 migration's). */
  deliverNow(walletId: string, version: number, outbox: OutboxDoc): Promise<void> {
    return this.track(walletId, version, () => this.write([{ walletId, version, outbox }]));
  }

  /**
   * Makes sure the outbox of the version `doc` was read at is delivered:
   * nothing to do when the database said so; else this process's delivery
   * under way is joined, or the outbox is delivered here, its writes
   * carrying `options` (the sweep's comment).
   */
  async ensureDelivered(doc: WalletWithDelivery, options: CommandComment = {}): Promise<void> {
    if (isDelivered(doc)) {
      this.remember(doc._id, doc.version);
      return;
    }
    const underway = this.underway.get(doc._id);
    if (underway?.version === doc.version) {
      this.sendBatch();
      // One that failed is tried again below, as by any other reader.
      await underway.promise.catch(() => undefined);
      if (this.knowsDelivered(doc._id, doc.version)) return;
    }
    await this.track(doc._id, doc.version, () => this.write([{ walletId: doc._id, version: doc.version, outbox: doc.outbox! }], options));
  }

  /**
   * Before a compare-and-set at `version`: its outbox must be delivered, or
   * the save would replace it. Known when this process read or delivered it
   * (a change reads before it saves); otherwise read from the database.
   */
  async ensureDeliveredBeforeSave(walletId: string, version: number): Promise<void> {
    const underway = this.underway.get(walletId);
    if (underway?.version === version) {
      this.sendBatch();
      await underway.promise.catch(() => undefined);
    }
    if (this.knowsDelivered(walletId, version)) return;
    const [doc] = await this.deps.run(() =>
      this.collections.wallets
        .aggregate<WalletWithDelivery>([
          { $match: { ...walletFilter(walletId), version } },
          { $project: { version: 1, outbox: 1 } },
          ...deliveredLookup(this.collections.audit.collectionName),
        ])
        .toArray(),
    );
    // Not at that version any more: the save will fail its compare-and-set, changing nothing.
    if (doc) await this.ensureDelivered(doc);
  }

  /** Deliveries under way now, and wallets remembered delivered (tests of the bounds). */
  get sizes(): { underway: number; remembered: number } {
    return { underway: this.underway.size, remembered: this.delivered.size };
  }

  /**
   * Writes what outboxes carry, several at once: one write of all their
   * reservations first, then one of all their audit entries (whose presence
   * in the trail then says an outbox is delivered); an outbox without an
   * entry is cleared instead. Every write is idempotent; fails whole, its
   * error marked with the members the outboxes name, whose ids its text may
   * quote: the log shows them only as LOG_MEMBER_IDS says (domain/member-ids.ts).
   */
  private async write(batch: Delivery[], options: CommandComment = {}): Promise<void> {
    try {
      await this.writeAll(batch, options);
    } catch (error) {
      throw withMemberIds(error, batch.flatMap((d) => outboxMemberIds(d.walletId, d.outbox)));
    }
  }

  private async writeAll(batch: Delivery[], options: CommandComment): Promise<void> {
    await this.writeReservations(
      batch.flatMap((d) => reservationWritesFromDocs(d.outbox.reservations).map((write) => ({ ...d, write }))),
      options,
    );
    const entries = batch.flatMap((d) => (d.outbox.audit ? [d.outbox.audit] : []));
    if (entries.length > 0) await this.insertIgnoringDuplicates(entries, options);
    const unaudited = batch.filter((d) => !d.outbox.audit);
    if (unaudited.length > 0) await this.clear(unaudited.map((d) => ({ _id: d.walletId, version: d.version })), options);
  }

  /** Removes the outboxes of these wallet versions (delivered ones), in one write carrying `options`; a wallet at another version is left alone. */
  async clear(versions: ReadonlyArray<Pick<WalletDoc, '_id' | 'version'>>, options: CommandComment = {}): Promise<void> {
    if (versions.length === 0) return;
    const operations = versions.map(
      ({ _id, version }): AnyBulkWriteOperation<WalletDoc> => ({ updateOne: { filter: { ...walletFilter(_id), version }, update: { $unset: { outbox: '' } } } }),
    );
    await this.deps.run(() => this.collections.wallets.bulkWrite(operations, { ordered: false, ...options }));
  }

  /** Runs `deliver`, known as the delivery under way of that wallet version until it ends. */
  private track(walletId: string, version: number, deliver: () => Promise<void>): Promise<void> {
    const done = deliver().then(() => this.remember(walletId, version));
    return this.underway.track(walletId, { version, promise: done });
  }

  private knowsDelivered(walletId: string, version: number): boolean {
    return (this.delivered.get(walletId) ?? 0) >= version;
  }

  private remember(walletId: string, version: number): void {
    if (!this.knowsDelivered(walletId, version)) this.delivered.set(walletId, version);
  }

  /**
   * Each document is replaced only if it holds an older version; a newer
   * one makes the replacement a duplicate-key insert, which is ignored (the
   * newer write stands). A reservation the change created is inserted
   * instead, which needs no guard and is found by the unique `_id` alone
   * (a fixture's load stays linear on servers that plan nothing else); if
   * its key was taken (a tombstone, a newer write), it is written guarded.
   */
  private async writeReservations(writes: Array<Delivery & { write: ReservationWrite }>, options: CommandComment): Promise<void> {
    if (writes.length === 0) return;
    const now = this.deps.now();
    const guarded = ({ walletId, version, write }: (typeof writes)[number]): AnyBulkWriteOperation<ReservationDoc> => ({
      replaceOne: {
        filter: { _id: reservationDocId(walletId, write.key), walletVersion: { $lt: version } },
        replacement: reservationDocBody(walletId, version, write.reservation, now),
        upsert: true,
      },
    });
    const first = writes.map((w): AnyBulkWriteOperation<ReservationDoc> =>
      w.write.created
        ? { insertOne: { document: { _id: reservationDocId(w.walletId, w.write.key), ...reservationDocBody(w.walletId, w.version, w.write.reservation, now) } } }
        : guarded(w),
    );
    const met = await this.writeIgnoringDuplicates(this.collections.reservations, first, options);
    const again = met.filter((index) => writes[index]!.write.created).map((index) => guarded(writes[index]!));
    if (again.length > 0) await this.writeIgnoringDuplicates(this.collections.reservations, again, options);
  }

  /** One unordered bulk write carrying `options`; the indexes of its operations that met a duplicate key (all, when the error does not say which). */
  private async writeIgnoringDuplicates<T extends Document>(collection: Collection<T>, operations: AnyBulkWriteOperation<T>[], options: CommandComment): Promise<number[]> {
    try {
      await this.deps.run(() => collection.bulkWrite(operations, { ordered: false, ...options }));
      return [];
    } catch (error) {
      const duplicates = duplicateKeyIndexes(error, operations.length);
      if (duplicates === null) throw error;
      return duplicates;
    }
  }

  /** Keyed by the entry's id: an entry delivered twice is stored once, never rewritten. */
  private async insertIgnoringDuplicates(entries: AuditDoc[], options: CommandComment): Promise<void> {
    await this.writeIgnoringDuplicates(this.collections.audit, entries.map((document): AnyBulkWriteOperation<AuditDoc> => ({ insertOne: { document } })), options);
  }
}

/**
 * The operations of a failed unordered bulk write that met a duplicate key,
 * when that is all that failed; null otherwise. A plain duplicate-key error
 * names none: then all of them, as writing any again guarded is harmless.
 */
function duplicateKeyIndexes(error: unknown, operations: number): number[] | null {
  const errors = refusedWrites(error);
  if (errors !== null) {
    if (errors.length === 0 || errors.some((e) => e.code !== 11000)) return null;
    return errors.map((e) => e.index);
  }
  return isDuplicateKey(error) ? Array.from({ length: operations }, (_, index) => index) : null;
}
