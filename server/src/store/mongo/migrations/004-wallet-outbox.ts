import type { Db, Filter } from 'mongodb';
import { collectionNames } from '../collections';
import type { Body } from '../documents';
import { sweepBucketOf, type AuditDoc, type ReservationDoc, type ReservationWrite, type WalletDoc } from '../wallets/documents';
import { dropIndexIfPresent } from './003-api-keys';
import { Outbox } from '../wallets/outbox';
import type { Migration } from './migration';
import { eachMatching } from './parallel';

/**
 * Layout 3 to 4, in two parts.
 *
 * Every wallet gets its sweep bucket (`bucket`, from its id: the first part
 * of the wallets' shard key, shard-plan.ts), and the reservations lose the
 * index by wallet (a wallet's reservations are read by a range of `_id`,
 * their shard key).
 *
 * A wallet's last change no longer waits in `pending` (its
 * reservation writes) and `pendingAudit` (its audit entry) for a process to
 * remember to write them out; layout 4 keeps them in `outbox`, delivered by
 * whoever reads the wallet, or the sweep (wallets/outbox.ts). Each layout 3 wallet
 * that still carries them gets them delivered now (the same idempotent
 * writes: reservations guarded by version, the entry inserted once), then
 * loses both fields, in that order, guarded by its version. So a run that
 * stopped half-way finishes the rest, and every entry reaches the trail once.
 */
type Layout3Wallet = Omit<WalletDoc, 'outbox' | 'bucket'> & { bucket?: number; pending?: ReservationWrite[]; pendingAudit?: Body<AuditDoc>[] };

const carriesAChange: Filter<Layout3Wallet> = { $or: [{ pending: { $exists: true } }, { pendingAudit: { $exists: true } }] };

export const toLayout4: Migration = {
  to: 4,
  name: 'wallet outboxes and sweep buckets',
  async run(db, progress, now) {
    const wallets = db.collection<Layout3Wallet>(collectionNames.wallets);
    await eachMatching(wallets, { bucket: { $exists: false } }, 'wallet sweep buckets', progress, (doc) =>
      wallets.updateOne({ _id: doc._id }, { $set: { bucket: sweepBucketOf(doc._id) } }).then(() => undefined),
    );
    await dropIndexIfPresent(db, collectionNames.reservations, { walletId: 1, _id: 1 });
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
  // Layout 3 named an entry by its wallet and version alone: the id it may already have in the trail.
  const entries = (doc.pendingAudit ?? []).map((entry): AuditDoc => ({ _id: `${entry.walletId}@${entry.walletVersion}`, ...entry }));
  // The reservations first; each entry after them, as a layout 4 outbox is delivered.
  await outbox.deliverNow(doc._id, doc.version, { at: now, reservations: doc.pending ?? [], audit: null });
  for (const entry of entries) await outbox.deliverNow(doc._id, doc.version, { at: now, reservations: [], audit: entry });
  await db
    .collection<Layout3Wallet>(collectionNames.wallets)
    .updateOne({ _id: doc._id, version: doc.version }, { $unset: { pending: '', pendingAudit: '' } });
}
