import type { Db, Filter } from 'mongodb';
import { auditEntryId } from '../../../domain/model';
import { collectionNames } from '../collections';
import type { AuditDoc, Body, ReservationDoc, ReservationWrite, WalletDoc } from '../documents';
import { Outbox } from '../outbox';
import type { Migration } from './runner';
import { eachMatching } from './parallel';

/**
 * Layout 3 to 4: a wallet's last change no longer waits in `pending` (its
 * reservation writes) and `pendingAudit` (its audit entry) for a process to
 * remember to copy them; layout 4 keeps them in `outbox`, delivered by
 * whoever reads the wallet, or the sweep (outbox.ts). Each layout 3 wallet
 * that still carries them gets them delivered now (the same idempotent
 * writes: reservations guarded by version, the entry inserted once), then
 * loses both fields, in that order, guarded by its version. So a run that
 * stopped half-way finishes the rest, and every entry reaches the trail once.
 */
type Layout3Wallet = Omit<WalletDoc, 'outbox'> & { pending?: ReservationWrite[]; pendingAudit?: Body<AuditDoc>[] };

const carriesAChange: Filter<Layout3Wallet> = { $or: [{ pending: { $exists: true } }, { pendingAudit: { $exists: true } }] };

export const toLayout4: Migration = {
  to: 4,
  name: 'wallet outboxes',
  async run(db, progress, now) {
    const wallets = db.collection<Layout3Wallet>(collectionNames.wallets);
    const outbox = new Outbox({
      collections: () => ({
        wallets: db.collection<WalletDoc>(collectionNames.wallets),
        reservations: db.collection<ReservationDoc>(collectionNames.reservations),
        audit: db.collection<AuditDoc>(collectionNames.audit),
      }),
      run: (operation) => operation(),
      now: () => now,
    });
    await eachMatching(wallets, carriesAChange, this.name, progress, (doc) => deliverLastChange(db, outbox, doc, now));
  },
};

async function deliverLastChange(db: Db, outbox: Outbox, doc: Layout3Wallet, now: Date): Promise<void> {
  const entries = (doc.pendingAudit ?? []).map((entry): AuditDoc => ({ _id: auditEntryId(entry.walletId, entry.walletVersion), ...entry }));
  // The reservations first; each entry after them, as a layout 4 outbox is delivered.
  await outbox.deliver(doc._id, doc.version, { at: now, reservations: doc.pending ?? [], audit: null });
  for (const entry of entries) await outbox.deliver(doc._id, doc.version, { at: now, reservations: [], audit: entry });
  await db
    .collection<Layout3Wallet>(collectionNames.wallets)
    .updateOne({ _id: doc._id, version: doc.version }, { $unset: { pending: '', pendingAudit: '' } });
}
