import type { AnyBulkWriteOperation, Db, Filter } from 'mongodb';
import type { ReservationRecord } from '../../../domain/model';
import { totalsOf } from '../../../domain/wallet-totals';
import { collectionNames } from '../collections';
import {
  reservationDocBody,
  reservationDocId,
  reservationFields,
  reservationFromDoc,
  reservationIdsOf,
  reservationWritesFromDocs,
  totalsFields,
  type ReservationDoc,
  type ReservationWrite,
  type WalletDoc,
} from '../wallets/documents';
import type { Migration } from './migration';
import { eachMatching } from './parallel';

/**
 * Layout 1 to 2: a wallet that keeps its reservations inline
 * (`reservations`) or has no running totals gets each reservation as a
 * document of its own and its totals, in one compare-and-set of its version
 * (as a whole save of layout 2 would). Wallets already in layout 2 are left
 * as they are, so a run that stopped half-way finishes the rest.
 */
type Layout1Wallet = Omit<WalletDoc, 'totals' | 'outbox'> & {
  totals?: WalletDoc['totals'];
  reservations?: ReservationRecord[];
  /** The reservation writes of the wallet's last change, not yet written to their documents. */
  pending?: ReservationWrite[];
};

const layout1: Filter<Layout1Wallet> = { $or: [{ reservations: { $exists: true } }, { totals: { $exists: false } }] };

export const toLayout2: Migration = {
  to: 2,
  name: 'reservation documents and wallet totals',
  async run(db, progress, now) {
    await eachMatching(db.collection<Layout1Wallet>(collectionNames.wallets), layout1, this.name, progress, (doc) => moveOut(db, doc, now));
  },
};

/** The wallet's reservations as documents, then its totals; the inline list goes last. */
async function moveOut(db: Db, doc: Layout1Wallet, now: Date): Promise<void> {
  const reservations = db.collection<ReservationDoc>(collectionNames.reservations);
  const stored = await reservations.find({ _id: reservationIdsOf(doc._id), removedAt: { $exists: false } }).toArray();
  const whole = logicalReservations(doc, stored);
  const version = doc.version + 1;
  if (whole.length > 0) {
    const writes = whole.map(
      (r): AnyBulkWriteOperation<ReservationDoc> => ({
        replaceOne: { filter: { _id: reservationDocId(doc._id, r) }, replacement: reservationDocBody(doc._id, version, r, now), upsert: true },
      }),
    );
    await reservations.bulkWrite(writes, { ordered: false });
  }
  await db
    .collection<Layout1Wallet>(collectionNames.wallets)
    .updateOne({ _id: doc._id, version: doc.version }, { $set: { version, totals: totalsFields(totalsOf(whole)) }, $unset: { reservations: '', pending: '' } });
}

/**
 * Inline reservations, then the documents, then `pending`: how the last
 * server that read layout 1 read a wallet. A copy of that reader, kept here
 * on purpose: the current one (wallets/mongo-wallets.ts) knows the
 * current layout only and may change with it; this one must keep reading
 * what layout 1 left.
 */
function logicalReservations(doc: Layout1Wallet, stored: ReservationDoc[]): ReservationRecord[] {
  const byId = new Map<string, ReservationRecord>();
  for (const r of doc.reservations ?? []) byId.set(reservationDocId(doc._id, r), reservationFields(r));
  for (const d of stored) {
    const r = reservationFromDoc(d);
    if (r) byId.set(d._id, r);
  }
  for (const w of reservationWritesFromDocs(doc.pending)) {
    const id = reservationDocId(doc._id, w.key);
    if (w.reservation) byId.set(id, w.reservation);
    else byId.delete(id);
  }
  return [...byId.values()];
}
