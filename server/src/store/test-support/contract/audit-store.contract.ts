/**
 * `AuditStore` (store/port.ts): the audit trail of reservation changes,
 * which the saves of wallets carry to it.
 */
import type { AuditEntry } from '../../../domain/model';
import { auditEntry, wallet } from '../records';
import { saveChangesCarrying, tryToChange, type CurrentStore } from './contract-support';

export function describeAuditStoreContract(current: CurrentStore): void {
  describe('AuditStore', () => {
    it('stores an entry once, however many saves carry it', async () => {
      const entry = auditEntry('rt-1', '2030-01-01T00:00:01.000Z', 1);
      await saveChangesCarrying(current, [entry, entry]);
      expect(await current.store.listAudit('rt-1')).toStrictEqual([entry]);
    });

    it('keeps the entry in the trail, not with the wallet: a loaded wallet carries none', async () => {
      const entry = auditEntry('rt-1', '2030-01-01T00:00:01.000Z', 1);
      await current.store.saveWallet({ ...wallet('member:m-alice', { 'm-alice': 5 }), audit: entry }, 0);
      expect(await current.store.loadWallet('member:m-alice')).toStrictEqual({ ...wallet('member:m-alice', { 'm-alice': 5 }), version: 1 });
      await current.settle();
      expect(await current.store.listAudit('rt-1')).toStrictEqual([entry]);
    });

    it('lists the entries of one token oldest first; equal times in wallet version order', async () => {
      await saveChangesCarrying(current, [
        auditEntry('rt-1', '2030-01-01T00:00:03.000Z', 3),
        auditEntry('rt-1', '2030-01-01T00:00:01.000Z', 1),
        auditEntry('rt-2', '2030-01-01T00:00:00.000Z', 9),
        auditEntry('rt-1', '2030-01-01T00:00:02.000Z', 20),
        auditEntry('rt-1', '2030-01-01T00:00:02.000Z', 21),
      ]);
      const listed = await current.store.listAudit('rt-1');
      expect(listed.map((e) => e.after.reservationAmount)).toEqual([1, 20, 21, 3]);
      expect(listed[0]).toStrictEqual(auditEntry('rt-1', '2030-01-01T00:00:01.000Z', 1));
      expect(await current.store.listAudit('rt-none')).toEqual([]);
    });

    it('keeps a CREATE entry with no before state, as a copy', async () => {
      const entry: AuditEntry = { ...auditEntry('rt-1', '2030-01-01T00:00:00.000Z', 5), action: 'CREATE', before: null };
      await saveChangesCarrying(current, [entry]);
      entry.shares.push({ correlationId: 'm-x', points: 1 });
      const [listed] = await current.store.listAudit('rt-1');
      tryToChange(() => (listed!.after.reservationAmount = 0));
      expect(await current.store.listAudit('rt-1')).toStrictEqual([{ ...auditEntry('rt-1', '2030-01-01T00:00:00.000Z', 5), action: 'CREATE', before: null }]);
    });
  });
}
