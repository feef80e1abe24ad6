import { MongoBulkWriteError, type AnyBulkWriteOperation, type Collection } from 'mongodb';
import type { ReservationKey, ReservationRecord, Wallet, WalletSlice, WalletSliceChange } from '../../domain/model';
import { totalsOf } from '../../domain/wallet-totals';
import { StoreUnavailableError } from '../port';
import { assertExpectedVersion } from '../wallet-update';
import {
  balanceFields,
  keyOfReservation,
  pendingAuditDocs,
  pendingAuditFromDocs,
  pendingDocs,
  pendingFromDocs,
  reservationDocBody,
  reservationDocId,
  reservationFields,
  reservationFromDoc,
  totalsFields,
  type PendingWrite,
  type ReservationDoc,
  type WalletDoc,
} from './documents';
import { isDuplicateKey } from './errors';

/*
 * Wallets on MongoDB. A wallet document holds the balances, the running
 * totals of its reservations and the change that made its version; each
 * reservation is a document of its own. Points stay safe without
 * transactions because one document decides:
 *
 * - every change is one compare-and-set on the wallet's `version`, which
 *   writes the new totals and, in `pending`, the reservations the change
 *   wrote (and its audit entry, in `pendingAudit`);
 * - the reservation documents are a copy that lags by at most that one
 *   change: a reader lays `pending` over them, and no writer sets the next
 *   version before the current `pending` has been copied (each copy is
 *   idempotent and never overwrites a newer one, see `ReservationDoc`).
 *
 * So a change reads the wallet and one reservation (one aggregate, the
 * reservation read after the wallet) and writes the wallet, whatever else
 * the wallet holds; copying its `pending` happens after the answer. Reading
 * or saving a whole wallet (fixtures, a wallet whose totals hold an expired
 * reservation) reads all its reservation documents.
 */

export interface WalletCollections {
  wallets: Collection<WalletDoc>;
  reservations: Collection<ReservationDoc>;
}

export interface MongoWalletsDeps {
  collections: () => WalletCollections;
  /** Runs one driver call, mapping "database unreachable" (see MongoStore.run). */
  run: <T>(operation: () => Promise<T>) => Promise<T>;
  now?: () => Date;
}

/** A `pending` of more entries than this is cleared once copied (whole saves), so that slice reads stay small. */
const smallPending = 8;
/** Whole reads retried when a change lands between their wallet and reservation reads. */
const wholeReadAttempts = 20;
/** Wallets whose copied version this process remembers; forgetting one costs an idempotent copy. */
const rememberedWallets = 10_000;

export class MongoWallets {
  private readonly now: () => Date;
  /** Per wallet, the version whose `pending` this process knows is copied. */
  private readonly copied = new Map<string, number>();
  /** Copies under way, by wallet: a reader of that version waits for it instead of copying again. */
  private readonly copying = new Map<string, { version: number; done: Promise<void> }>();

  constructor(private readonly deps: MongoWalletsDeps) {
    this.now = deps.now ?? (() => new Date());
  }

  private get c(): WalletCollections {
    return this.deps.collections();
  }

  async loadSlice(walletId: string, key: ReservationKey): Promise<WalletSlice | null> {
    const docId = reservationDocId(walletId, key);
    // One command; the $lookup reads the reservation after the wallet, so it
    // is at least as new as the wallet's version (see the module comment).
    const [found] = await this.deps.run(() =>
      this.c.wallets
        .aggregate<WalletDoc & { stored: ReservationDoc[] }>([
          { $match: { _id: walletId } },
          // The equality form of $lookup, on `_id`: every server answers it
          // from the `_id` index (a pipeline $lookup is not always planned
          // that way by MongoDB-compatible servers). The id starts with a
          // digit (a length), so it is a plain string, never a field path.
          { $addFields: { storedId: docId } },
          { $lookup: { from: this.c.reservations.collectionName, localField: 'storedId', foreignField: '_id', as: 'stored' } },
        ])
        .toArray(),
    );
    if (!found) return null;
    await this.ensureCopied(found);
    const pending = pendingFromDocs(found.pending);
    const stored = found.stored[0];
    const fromPending = pending.find((w) => sameKey(w.key, key));
    const reservation =
      fromPending && (!stored || stored.walletVersion < found.version) ? fromPending.reservation : stored ? reservationFromDoc(stored) : null;
    const slice: WalletSlice = {
      walletId,
      version: found.version,
      balances: found.balances.map(balanceFields),
      totals: totalsFields(found.totals),
      reservation,
    };
    const pendingAudit = pendingAuditFromDocs(found.pendingAudit);
    if (pendingAudit) slice.pendingAudit = pendingAudit;
    return slice;
  }

  async saveSlice(change: WalletSliceChange, expectedVersion: number): Promise<boolean> {
    assertExpectedVersion(expectedVersion);
    if (expectedVersion === 0) return false;
    await this.ensureCopiedVersion(change.walletId, expectedVersion);
    const pending: PendingWrite[] = [{ key: keyOfReservation(change.reservation), reservation: change.reservation }];
    const result = await this.deps.run(() =>
      this.c.wallets.updateOne(
        { _id: change.walletId, version: expectedVersion },
        {
          $set: {
            version: expectedVersion + 1,
            totals: totalsFields(change.totals),
            pending: pendingDocs(pending),
            pendingAudit: pendingAuditDocs(change.pendingAudit),
          },
        },
      ),
    );
    if (result.matchedCount !== 1) return false;
    // Once the answer has gone out (the next turn of the event loop); the
    // next reader of this version waits for it, or copies it again.
    this.startCopy(change.walletId, expectedVersion + 1, pending, afterAnswer()).catch(() => undefined);
    return true;
  }

  async load(walletId: string): Promise<Wallet | null> {
    const read = await this.readWhole(walletId);
    // A wallet changing under every read is busy, not broken: try again later (503).
    if (read === 'busy') throw new StoreUnavailableError(`wallet ${walletId} changed during every one of ${wholeReadAttempts} reads`);
    return read ? read.wallet : null;
  }

  async save(wallet: Wallet, expectedVersion: number): Promise<boolean> {
    assertExpectedVersion(expectedVersion);
    const walletId = wallet.walletId;
    const current = expectedVersion === 0 ? null : await this.readWhole(walletId);
    // Busy, or moved on: a conflict, which the caller retries.
    if (current === 'busy' || (expectedVersion !== 0 && current?.wallet.version !== expectedVersion)) return false;
    if (current) await this.ensureCopied(current.doc);

    const reservations = wallet.reservations.map(reservationFields);
    const pending = differences(current ? current.wallet.reservations : [], reservations);
    const fields = {
      version: expectedVersion + 1,
      balances: wallet.balances.map(balanceFields),
      totals: totalsFields(totalsOf(reservations)),
      pending: pendingDocs(pending),
    };
    const audit = wallet.pendingAudit ? { pendingAudit: pendingAuditDocs(wallet.pendingAudit) } : {};
    const saved =
      expectedVersion === 0
        ? await this.insert({ _id: walletId, ...fields, ...audit })
        : (
            await this.deps.run(() =>
              this.c.wallets.updateOne(
                { _id: walletId, version: expectedVersion },
                wallet.pendingAudit ? { $set: { ...fields, ...audit } } : { $set: fields, $unset: { pendingAudit: '' } },
              ),
            )
          ).matchedCount === 1;
    // Saved: a copy that fails now is made by the next reader of this version.
    if (saved) await this.startCopy(walletId, expectedVersion + 1, pending).catch(() => undefined);
    return saved;
  }

  /** Waits for the copies under way (before the client closes). */
  async drain(): Promise<void> {
    await Promise.allSettled([...this.copying.values()].map((c) => c.done));
  }

  // --- copying `pending` ------------------------------------------------------

  private async insert(doc: WalletDoc): Promise<boolean> {
    try {
      await this.deps.run(() => this.c.wallets.insertOne(doc));
      return true;
    } catch (error) {
      if (isDuplicateKey(error)) return false;
      throw error;
    }
  }

  /** Makes sure the `pending` of this wallet version is in the reservation documents. */
  private async ensureCopied(doc: Pick<WalletDoc, '_id' | 'version' | 'pending'>): Promise<void> {
    if (!doc.pending?.length || (this.copied.get(doc._id) ?? 0) >= doc.version) return;
    const underway = this.copying.get(doc._id);
    if (underway?.version === doc.version) {
      // A copy that failed is tried again below, as by any other reader.
      await underway.done.catch(() => undefined);
      if ((this.copied.get(doc._id) ?? 0) >= doc.version) return;
    }
    await this.startCopy(doc._id, doc.version, pendingFromDocs(doc.pending));
  }

  /** As `ensureCopied`, for a version whose `pending` this process may not have read. */
  private async ensureCopiedVersion(walletId: string, version: number): Promise<void> {
    if ((this.copied.get(walletId) ?? 0) >= version) return;
    const underway = this.copying.get(walletId);
    if (underway?.version === version) await underway.done.catch(() => undefined);
    if ((this.copied.get(walletId) ?? 0) >= version) return;
    const doc = await this.deps.run(() => this.c.wallets.findOne({ _id: walletId, version }, { projection: { version: 1, pending: 1 } }));
    if (doc) await this.ensureCopied(doc);
  }

  private startCopy(walletId: string, version: number, pending: PendingWrite[], after: Promise<void> = Promise.resolve()): Promise<void> {
    const done = after.then(() => this.copy(walletId, version, pending)).then(() => {
      if ((this.copied.get(walletId) ?? 0) < version) {
        if (this.copied.size >= rememberedWallets) this.copied.clear();
        this.copied.set(walletId, version);
      }
    });
    const entry = { version, done };
    this.copying.set(walletId, entry);
    const forget = () => {
      if (this.copying.get(walletId) === entry) this.copying.delete(walletId);
    };
    done.then(forget, forget);
    return done;
  }

  /**
   * Idempotent, in any order: each document is replaced only if it holds an
   * older version; a newer one makes the replacement a duplicate-key insert,
   * which is ignored. A reservation the change created is inserted instead,
   * which needs no guard (a document already under its key, a newer copy or
   * an old tombstone, makes it a duplicate, then replaced as above): an
   * insert is found by the unique `_id` alone, which keeps a fixture's load
   * linear on servers that plan nothing else (wire-protocol stand-ins).
   */
  private async copy(walletId: string, version: number, pending: PendingWrite[]): Promise<void> {
    if (pending.length === 0) return;
    const now = this.now();
    const guarded = (w: PendingWrite): AnyBulkWriteOperation<ReservationDoc> => ({
      replaceOne: {
        filter: { _id: reservationDocId(walletId, w.key), walletVersion: { $lt: version } },
        replacement: reservationDocBody(walletId, version, w.reservation, now) as ReservationDoc,
        upsert: true,
      },
    });
    const first = pending.map((w): AnyBulkWriteOperation<ReservationDoc> =>
      w.created
        ? { insertOne: { document: { _id: reservationDocId(walletId, w.key), ...reservationDocBody(walletId, version, w.reservation, now) } } }
        : guarded(w),
    );
    // Guarded again: a created one's key was taken; a guarded one met a newer copy (written again, it meets it again).
    const again = (await this.writeIgnoringDuplicates(first)).map((index) => guarded(pending[index]!));
    if (again.length > 0) await this.writeIgnoringDuplicates(again);
    if (pending.length > smallPending) {
      await this.deps.run(() => this.c.wallets.updateOne({ _id: walletId, version }, { $unset: { pending: '' } }));
    }
  }

  /** One unordered bulk write; the indexes of its operations that met a duplicate key (all, when the error does not say which). */
  private async writeIgnoringDuplicates(operations: AnyBulkWriteOperation<ReservationDoc>[]): Promise<number[]> {
    try {
      await this.deps.run(() => this.c.reservations.bulkWrite(operations, { ordered: false }));
      return [];
    } catch (error) {
      const duplicates = duplicateKeyIndexes(error, operations.length);
      if (duplicates === null) throw error;
      return duplicates;
    }
  }

  // --- whole wallets ------------------------------------------------------------

  /**
   * The wallet and all its reservations as of one version: its reservation
   * documents read between two reads of the same version, `pending` laid over them.
   */
  private async readWhole(walletId: string): Promise<{ wallet: Wallet; doc: WalletDoc; stored: ReservationDoc[] } | null | 'busy'> {
    for (let attempt = 0; attempt < wholeReadAttempts; attempt++) {
      const doc = await this.deps.run(() => this.c.wallets.findOne({ _id: walletId }));
      if (!doc) return null;
      const stored = await this.deps.run(() =>
        this.c.reservations.find({ walletId, removedAt: { $exists: false } }).sort({ _id: 1 }).toArray(),
      );
      const again = await this.deps.run(() => this.c.wallets.findOne({ _id: walletId }, { projection: { version: 1 } }));
      if (again?.version === doc.version) return { wallet: wholeOf(doc, stored), doc, stored };
      // Let the writers pass (full jitter, a few milliseconds).
      await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(20, 2 ** attempt)));
    }
    return 'busy';
  }
}

/** The logical wallet: its reservation documents, then `pending` laid over them. */
function wholeOf(doc: WalletDoc, stored: ReservationDoc[]): Wallet {
  const byId = new Map<string, ReservationRecord>();
  for (const d of stored) {
    const r = reservationFromDoc(d);
    if (r) byId.set(d._id, r);
  }
  for (const w of pendingFromDocs(doc.pending)) {
    const id = reservationDocId(doc._id, w.key);
    if (w.reservation) byId.set(id, w.reservation);
    else byId.delete(id);
  }
  const wallet: Wallet = {
    walletId: doc._id,
    version: doc.version,
    balances: doc.balances.map(balanceFields),
    reservations: [...byId.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, r]) => r),
  };
  const pendingAudit = pendingAuditFromDocs(doc.pendingAudit);
  if (pendingAudit) wallet.pendingAudit = pendingAudit;
  return wallet;
}

/** The writes that turn `before` into `after`: changed or new reservations, and removals. */
function differences(before: ReservationRecord[], after: ReservationRecord[]): PendingWrite[] {
  const old = new Map(before.map((r) => [reservationDocId('', r), r]));
  const writes: PendingWrite[] = [];
  for (const r of after) {
    const id = reservationDocId('', r);
    const previous = old.get(id);
    old.delete(id);
    if (!previous) writes.push({ key: keyOfReservation(r), reservation: r, created: true });
    else if (!sameReservation(previous, r)) writes.push({ key: keyOfReservation(r), reservation: r });
  }
  for (const r of old.values()) writes.push({ key: keyOfReservation(r), reservation: null });
  return writes;
}

function sameReservation(a: ReservationRecord, b: ReservationRecord): boolean {
  return JSON.stringify(reservationFields(a)) === JSON.stringify(reservationFields(b));
}

/** Resolves on the next turn of the event loop, after what the current one writes (the answer). */
function afterAnswer(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

function sameKey(a: ReservationKey, b: ReservationKey): boolean {
  return a.clientId === b.clientId && a.correlationId === b.correlationId && a.reservationToken === b.reservationToken;
}

/**
 * The operations of a failed unordered bulk write that met a duplicate key,
 * when that is all that failed; null otherwise. A plain duplicate-key error
 * names none: then all of them, as writing any again guarded is harmless.
 */
function duplicateKeyIndexes(error: unknown, operations: number): number[] | null {
  if (error instanceof MongoBulkWriteError) {
    const errors = Array.isArray(error.writeErrors) ? error.writeErrors : [error.writeErrors];
    if (errors.length === 0 || errors.some((e) => e.code !== 11000)) return null;
    return errors.map((e) => e.index);
  }
  return isDuplicateKey(error) ? Array.from({ length: operations }, (_, index) => index) : null;
}
