import type { Collection } from 'mongodb';
import { sameKey, type ReservationChange, type ReservationKey, type ReservationRecord, type Wallet, type WalletSlice } from '../../../domain/model';
import { totalsOf } from '../../../domain/wallet-totals';
import { StoreUnavailableError, type ReservationStore, type WholeWalletStore } from '../../port';
import { assertExpectedVersion } from '../../wallet-update';
import { isKey, requireKey } from '../collections';
import { memberFromDoc, type MemberDoc } from '../documents';
import { isDuplicateKey } from '../errors';
import {
  balanceFields,
  deliveredLookup,
  keyOfReservation,
  moveFields,
  movesOf,
  reservationDocId,
  reservationFields,
  reservationFromDoc,
  reservationIdsOf,
  reservationWritesFromDocs,
  totalsFields,
  walletFilter,
  type OutboxDoc,
  type ReservationDoc,
  type ReservationWrite,
  type WalletDoc,
  type WalletWithDelivery,
} from './documents';
import { outboxDoc, type Outbox, type OutboxCollections, type OutboxDeps } from './outbox';

/*
 * Wallets on MongoDB. A wallet document holds the balances, the running
 * totals of its reservations and the outbox of the change that made its
 * version; each reservation is a document of its own. Points stay safe
 * without transactions because one document decides:
 *
 * - every change is one compare-and-set on the wallet's `version`, which
 *   writes the new totals and, in `outbox`, the reservations the change
 *   wrote and its audit entry (outbox.ts);
 * - the reservation documents lag by at most that one change: a reader lays
 *   the outbox over them, and no writer replaces an outbox before it is
 *   delivered (each delivery is idempotent and never overwrites a newer
 *   write, see `ReservationDoc`).
 *
 * So a change reads the wallet, one reservation and whether the outbox is
 * delivered (one aggregate; the lookups run after the wallet is read) and
 * writes the wallet, whatever else the wallet holds; the delivery follows
 * the answer. Reading or saving a whole wallet (fixtures, a change that
 * drops expired reservations) reads all its reservation documents.
 */

/** The outbox's collections, and the members a slice read may bring. */
export interface WalletCollections extends OutboxCollections {
  members: Collection<MemberDoc>;
}

/** What the wallets use of the store's connection: the outbox's, with the members' collection too. */
export interface MongoWalletsDeps extends Pick<OutboxDeps, 'run' | 'now'> {
  /** The collections of the connection's current client. */
  collections: () => WalletCollections;
}

/** An outbox of more reservation writes than this (a whole save) is delivered at once and cleared, so that slice reads stay small. */
const smallOutbox = 8;
/** Whole reads retried when a change lands between their wallet and reservation reads. */
const wholeReadAttempts = 20;

/** The store's wallet methods (the port's `WholeWalletStore`, and the slice read and reservation change of `ReservationStore`), over the wallets' outbox. */
export class MongoWallets implements WholeWalletStore, Pick<ReservationStore, 'loadWalletSlice' | 'saveReservationChange'> {
  constructor(
    private readonly deps: MongoWalletsDeps,
    private readonly outbox: Outbox,
  ) {}

  async loadWallet(walletId: string): Promise<Wallet | null> {
    if (!isKey(walletId)) return null;
    const read = await this.readWhole(walletId);
    // A wallet changing under every read is busy, not broken: try again later
    // (503). Not named: a wallet's id may be a member's, which logs show only as LOG_MEMBER_IDS says.
    if (read === 'busy') throw new StoreUnavailableError(`a wallet changed during every one of ${wholeReadAttempts} reads`);
    return read ? read.wallet : null;
  }

  async saveWallet(wallet: Wallet, expectedVersion: number): Promise<boolean> {
    return this.save(wallet, requireKey(wallet.walletId, 'walletId'), expectedVersion);
  }

  async loadWalletSlice(walletId: string, key: ReservationKey, options: { withMember?: string } = {}): Promise<WalletSlice | null> {
    if (![walletId, key.clientId, key.correlationId, key.reservationToken].every(isKey)) return null;
    if (options.withMember !== undefined && !isKey(options.withMember)) return null;
    return this.loadSlice(walletId, key, options.withMember);
  }

  /**
   * Most changes write the wallet document alone (its outbox carries the
   * reservation). One that drops expired reservations saves the wallet
   * whole, as it is stored at that version: the outbox then carries their
   * removals too, and the totals are those of what it keeps.
   */
  async saveReservationChange(change: ReservationChange, expectedVersion: number): Promise<boolean> {
    requireKey(change.walletId, 'walletId');
    requireKey(change.reservation.clientId, 'clientId');
    requireKey(change.reservation.correlationId, 'correlationId');
    requireKey(change.reservation.reservationToken, 'reservationToken');
    return change.expired?.length ? this.saveWithoutExpired(change, expectedVersion) : this.saveSlice(change, expectedVersion);
  }

  private get collections(): WalletCollections {
    return this.deps.collections();
  }

  /** With `memberId`, that member too, looked up by its `_id` in the same command. */
  private async loadSlice(walletId: string, key: ReservationKey, memberId?: string): Promise<WalletSlice | null> {
    const docId = reservationDocId(walletId, key);
    const { reservations, audit, members } = this.collections;
    const memberLookup =
      memberId === undefined
        ? []
        : [
            // $literal: a correlation id may start with `$`, which would read as a field path.
            { $addFields: { memberId: { $literal: memberId } } },
            { $lookup: { from: members.collectionName, localField: 'memberId', foreignField: '_id', as: 'member' } },
          ];
    // One command; the lookups read after the wallet, so the reservation is
    // at least as new as the wallet's version (see the module comment).
    const [found] = await this.deps.run(() =>
      this.collections.wallets
        .aggregate<WalletWithDelivery & { stored: ReservationDoc[]; member?: MemberDoc[] }>([
          { $match: walletFilter(walletId) },
          // The equality form of $lookup, on `_id`: every server answers it
          // from the `_id` index (a pipeline $lookup is not always planned
          // that way by MongoDB-compatible servers). The id starts with a
          // digit (a length), so it is a plain string, never a field path.
          { $addFields: { storedId: docId } },
          { $lookup: { from: reservations.collectionName, localField: 'storedId', foreignField: '_id', as: 'stored' } },
          ...deliveredLookup(audit.collectionName),
          ...memberLookup,
        ])
        .toArray(),
    );
    if (!found) return null;
    await undeliveredMeansUnavailable(this.outbox.ensureDelivered(found));
    const stored = found.stored[0];
    const written = reservationWritesFromDocs(found.outbox?.reservations).find((w) => sameKey(w.key, key));
    const reservation =
      written && (!stored || stored.walletVersion < found.version) ? written.reservation : stored ? reservationFromDoc(stored) : null;
    const slice: WalletSlice = {
      walletId,
      version: found.version,
      balances: found.balances.map(balanceFields),
      totals: totalsFields(found.totals),
      ...movesOf(found),
      reservation,
    };
    if (memberId !== undefined) slice.member = found.member?.[0] ? memberFromDoc(found.member[0]) : null;
    return slice;
  }

  private async saveSlice(change: ReservationChange, expectedVersion: number): Promise<boolean> {
    assertExpectedVersion(expectedVersion);
    if (expectedVersion === 0) return false;
    await undeliveredMeansUnavailable(this.outbox.ensureDeliveredBeforeSave(change.walletId, expectedVersion));
    const version = expectedVersion + 1;
    const outbox = outboxDoc([{ key: keyOfReservation(change.reservation), reservation: change.reservation }], change.audit, this.deps.now());
    const result = await this.deps.run(() =>
      this.collections.wallets.updateOne(
        { ...walletFilter(change.walletId), version: expectedVersion },
        { $set: { version, totals: totalsFields(change.totals), outbox } },
      ),
    );
    if (result.matchedCount !== 1) return false;
    this.outbox.deliverLater(change.walletId, version, outbox);
    return true;
  }

  private async save(wallet: Wallet, walletId: string, expectedVersion: number): Promise<boolean> {
    assertExpectedVersion(expectedVersion);
    const current = expectedVersion === 0 ? null : await this.readWhole(walletId);
    // Busy, or moved on: a conflict, which the caller retries.
    if (current === 'busy' || (expectedVersion !== 0 && current?.wallet.version !== expectedVersion)) return false;
    return this.writeWhole(wallet, walletId, current ? current.wallet.reservations : [], expectedVersion);
  }

  /** The wallet as stored at `expectedVersion`, with the change's reservation in place and the expired ones it names left out, saved whole. */
  private async saveWithoutExpired(change: ReservationChange, expectedVersion: number): Promise<boolean> {
    assertExpectedVersion(expectedVersion);
    if (expectedVersion === 0) return false;
    const current = await this.readWhole(change.walletId);
    if (current === 'busy' || current?.wallet.version !== expectedVersion) return false;
    const replaced = new Set([change.reservation, ...(change.expired ?? [])].map((key) => reservationDocId('', key)));
    const kept = current.wallet.reservations.filter((r) => !replaced.has(reservationDocId('', r)));
    const wallet: Wallet = { ...current.wallet, reservations: [...kept, change.reservation], ...(change.audit && { audit: change.audit }) };
    return this.writeWhole(wallet, change.walletId, current.wallet.reservations, expectedVersion);
  }

  /** Writes `wallet` whole over `stored`, the reservations it holds at `expectedVersion` (none for a new wallet, at 0). */
  private async writeWhole(wallet: Wallet, walletId: string, stored: ReservationRecord[], expectedVersion: number): Promise<boolean> {
    const reservations = wallet.reservations.map(reservationFields);
    const writes = differences(stored, reservations);
    const version = expectedVersion + 1;
    const outbox = outboxDoc(writes, wallet.audit, this.deps.now());
    const moves = (wallet.moves ?? []).map(moveFields);
    const fields = { version, balances: wallet.balances.map(balanceFields), totals: totalsFields(totalsOf(reservations)), outbox };
    const update = moves.length > 0 ? { $set: { ...fields, moves } } : { $set: fields, $unset: { moves: '' as const } };
    const saved =
      expectedVersion === 0
        ? await this.insert({ ...walletFilter(walletId), ...fields, ...(moves.length > 0 && { moves }) })
        : (await this.deps.run(() => this.collections.wallets.updateOne({ ...walletFilter(walletId), version: expectedVersion }, update))).matchedCount === 1;
    if (saved) await this.afterSave(walletId, version, outbox);
    return saved;
  }

  /**
   * A small outbox with its audit entry (a change of Operation B) is
   * delivered after the answer, as a slice's; any other (a fixture, many
   * reservations) at once, and then cleared, so that slice reads stay small.
   */
  private afterSave(walletId: string, version: number, outbox: OutboxDoc): void | Promise<void> {
    if (outbox.audit && outbox.reservations.length <= smallOutbox) {
      this.outbox.deliverLater(walletId, version, outbox);
      return;
    }
    // Saved: a delivery that fails now is made by the next reader of this version, or the sweep.
    return this.outbox
      .deliverNow(walletId, version, outbox)
      .then(() => (outbox.audit ? this.outbox.clear([{ _id: walletId, version }]) : undefined))
      .catch(() => undefined);
  }

  private async insert(doc: WalletDoc): Promise<boolean> {
    try {
      await this.deps.run(() => this.collections.wallets.insertOne(doc));
      return true;
    } catch (error) {
      if (isDuplicateKey(error)) return false;
      throw error;
    }
  }

  /**
   * The wallet and all its reservations as of one version: its reservation
   * documents read between two reads of the same version, the outbox laid
   * over them (and delivered first when it is not yet).
   */
  private async readWhole(walletId: string): Promise<{ wallet: Wallet } | null | 'busy'> {
    const { wallets, reservations, audit } = this.collections;
    for (let attempt = 0; attempt < wholeReadAttempts; attempt++) {
      const [doc] = await this.deps.run(() =>
        wallets.aggregate<WalletWithDelivery>([{ $match: walletFilter(walletId) }, ...deliveredLookup(audit.collectionName)]).toArray(),
      );
      if (!doc) return null;
      await undeliveredMeansUnavailable(this.outbox.ensureDelivered(doc));
      const stored = await this.deps.run(() => reservations.find({ _id: reservationIdsOf(walletId), removedAt: { $exists: false } }).sort({ _id: 1 }).toArray());
      const again = await this.deps.run(() => wallets.findOne(walletFilter(walletId), { projection: { version: 1 } }));
      if (again?.version === doc.version) return { wallet: wholeOf(doc, stored) };
      // Let the writers pass (full jitter, a few milliseconds).
      await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(20, 2 ** attempt)));
    }
    return 'busy';
  }
}

/**
 * A change waits for its wallet's last outbox to be delivered (a save would
 * replace it). One the database keeps refusing (a poison outbox: the sweep
 * sets it aside and reports it) leaves the wallet unavailable until it is
 * delivered: its requests are told to come back (503), as when the
 * database is away, never answered as a fault of unknown kind.
 */
async function undeliveredMeansUnavailable(delivery: Promise<void>): Promise<void> {
  try {
    await delivery;
  } catch (error) {
    if (error instanceof StoreUnavailableError) throw error;
    throw new StoreUnavailableError("a wallet's last change could not be delivered", { cause: error });
  }
}

/** The logical wallet: its reservation documents, then the outbox's writes laid over them. */
function wholeOf(doc: WalletDoc, stored: ReservationDoc[]): Wallet {
  const byId = new Map<string, ReservationRecord>();
  for (const d of stored) {
    const r = reservationFromDoc(d);
    if (r) byId.set(d._id, r);
  }
  for (const w of reservationWritesFromDocs(doc.outbox?.reservations)) {
    const id = reservationDocId(doc._id, w.key);
    if (w.reservation) byId.set(id, w.reservation);
    else byId.delete(id);
  }
  return {
    walletId: doc._id,
    version: doc.version,
    balances: doc.balances.map(balanceFields),
    ...movesOf(doc),
    reservations: [...byId.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, r]) => r),
  };
}

/** The writes that turn `before` into `after`: changed or new reservations, and removals. */
function differences(before: ReservationRecord[], after: ReservationRecord[]): ReservationWrite[] {
  const old = new Map(before.map((r) => [reservationDocId('', r), r]));
  const writes: ReservationWrite[] = [];
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
