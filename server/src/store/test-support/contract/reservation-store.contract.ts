/**
 * `ReservationStore` (store/port.ts): what Operation B reads and writes
 * beside whole wallets: catalogue items, redemptions, and the slice of
 * one reservation change, read and compared-and-set.
 */
import type { AuditEntry, MemberMove, ReservationRecord } from '../../../domain/model';
import { totalsOf, withChange } from '../../../domain/wallet-totals';
import { deepCopy } from '../../copy';
import { auditEntry, catalogueItemRecord, memberRecord, redemptionRecord, reservationRecord, wallet } from '../records';
import { sorted, type CurrentStore } from './contract-support';

export function describeReservationStoreContract(current: CurrentStore): void {
  describe('ReservationStore', () => {
    describe('catalogue items and redemptions', () => {
      beforeEach(async () => {
        await current.store.upsertCatalogueItems([catalogueItemRecord('0001'), catalogueItemRecord('0002', { pointsAmount: 1500 }), catalogueItemRecord('0003')]);
      });

      it.each([
        { codes: ['0001'], found: ['0001'] },
        { codes: ['0002', '9999', '0001'], found: ['0001', '0002'] },
        { codes: ['0001', '0001'], found: ['0001'] },
        { codes: ['9999'], found: [] },
        { codes: [], found: [] },
      ])('finds the items of $codes, leaving unknown codes out', async ({ codes, found }) => {
        const items = await current.store.findCatalogueItems(codes);
        expect(items.map((i) => i.productCode).sort()).toEqual(found);
        for (const item of items) expect(item).toStrictEqual(catalogueItemRecord(item.productCode, { pointsAmount: item.productCode === '0002' ? 1500 : 2000 }));
      });

      it('replaces an item with the same product code', async () => {
        await current.store.upsertCatalogueItems([{ ...catalogueItemRecord('0001'), pointsAmount: 99 }]);
        expect((await current.store.findCatalogueItems(['0001']))[0]?.pointsAmount).toBe(99);
      });

      it('finds a redemption, or null; the same id replaces', async () => {
        await current.store.upsertRedemptions([redemptionRecord('rd-1', 'm-alice', { redemptionName: 'Coffee' })]);
        await current.store.upsertRedemptions([redemptionRecord('rd-1', 'm-bob', { redemptionName: 'Tea' })]);
        expect(await current.store.findRedemption('rd-1')).toStrictEqual(redemptionRecord('rd-1', 'm-bob', { redemptionName: 'Tea' }));
        expect(await current.store.findRedemption('rd-2')).toBeNull();
      });
    });

    describe('wallet slices', () => {
      const walletId = 'household:hh-1';
      const keyOf = (r: ReservationRecord) => ({ clientId: r.clientId, correlationId: r.correlationId, reservationToken: r.reservationToken });
      const stored = [
        reservationRecord('rt-1', 'm-a', { 'm-a': 60, 'm-b': 40 }),
        reservationRecord('rt-2', 'm-b', { 'm-b': 5 }, { clientId: 'other-app', createdAt: new Date('2029-12-31T23:00:00.000Z') }),
        reservationRecord('rt-gone', 'm-a', { 'm-a': 7 }, { expiresAt: new Date('2020-01-01T00:00:00.000Z') }),
      ];
      const saved = async (): Promise<void> => {
        expect(await current.store.saveWallet(wallet(walletId, { 'm-a': 500, 'm-b': 300 }, stored), 0)).toBe(true);
      };
      const audit = (version: number): AuditEntry =>
        auditEntry('rt-1', '2030-01-01T00:05:00.000Z', 50, { walletId, walletVersion: version, correlationId: 'm-a', before: null, shares: [] });

      it('reads null for an unknown wallet', async () => {
        expect(await current.store.loadWalletSlice('member:m-nobody', keyOf(stored[0]!))).toBeNull();
      });

      it('reads a member with the slice when asked, as stored now (null when there is none), whatever its wallet', async () => {
        await saved();
        await current.store.upsertMembers([memberRecord('m-a', { householdId: 'hh-1' }), memberRecord('m-elsewhere')]);
        expect((await current.store.loadWalletSlice(walletId, keyOf(stored[0]!), { withMember: 'm-a' }))?.member).toStrictEqual(memberRecord('m-a', { householdId: 'hh-1' }));
        expect((await current.store.loadWalletSlice(walletId, keyOf(stored[0]!), { withMember: 'm-elsewhere' }))?.member).toStrictEqual(memberRecord('m-elsewhere'));
        expect((await current.store.loadWalletSlice(walletId, keyOf(stored[0]!), { withMember: 'm-nobody' }))?.member).toBeNull();
        expect((await current.store.loadWalletSlice(walletId, keyOf(stored[0]!), { withMember: '$where' }))?.member).toBeNull();
        expect(await current.store.loadWalletSlice(walletId, keyOf(stored[0]!))).not.toHaveProperty('member');
      });

      it('reads the balances, the totals of every stored reservation (expired ones too) and the one under the key', async () => {
        await saved();
        const slice = await current.store.loadWalletSlice(walletId, keyOf(stored[0]!));
        expect(slice).toStrictEqual({
          walletId,
          version: 1,
          balances: [
            { correlationId: 'm-a', pointBalance: 500 },
            { correlationId: 'm-b', pointBalance: 300 },
          ],
          totals: totalsOf(stored),
          reservation: stored[0],
        });
        expect(slice?.totals?.nextExpiry).toEqual(new Date('2020-01-01T00:00:00.000Z'));
        expect((await current.store.loadWalletSlice(walletId, keyOf(stored[2]!)))?.reservation).toStrictEqual(stored[2]);
      });

      it("keeps a wallet's member moves through whole saves and reservation changes, and reads them with its slice; a whole save without them removes them", async () => {
        await saved();
        const moves: MemberMove[] = [
          { correlationId: 'm-b', state: 'leaving', walletId: 'household:hh-2', until: new Date('2030-01-01T00:01:00.000Z') },
          { correlationId: 'm-c', state: 'arriving', walletId: 'member:m-c' },
          { correlationId: 'm-d', state: 'left', walletId: 'member:m-d' },
        ];
        const whole = (await current.store.loadWallet(walletId))!;
        expect(whole).not.toHaveProperty('moves');
        expect(await current.store.saveWallet({ ...whole, moves }, 1)).toBe(true);
        expect((await current.store.loadWallet(walletId))?.moves).toStrictEqual(moves);
        const lowered = reservationRecord('rt-1', 'm-a', { 'm-a': 50, 'm-b': 30 });
        expect(await current.store.saveReservationChange({ walletId, reservation: lowered, totals: withChange(totalsOf(stored), stored[0]!, lowered), audit: audit(3) }, 2)).toBe(true);
        expect((await current.store.loadWalletSlice(walletId, keyOf(lowered)))?.moves).toStrictEqual(moves);
        expect((await current.store.loadWallet(walletId))?.moves).toStrictEqual(moves);
        const { moves: _dropped, ...without } = (await current.store.loadWallet(walletId))!;
        expect(await current.store.saveWallet(without, 3)).toBe(true);
        expect(await current.store.loadWallet(walletId)).not.toHaveProperty('moves');
        expect(await current.store.loadWalletSlice(walletId, keyOf(lowered))).not.toHaveProperty('moves');
      });

      it.each([
        ['another token', { reservationToken: 'rt-9' }],
        ['another client', { clientId: 'other-app' }],
        ['another member', { correlationId: 'm-b' }],
      ])('finds no reservation under %s', async (_case, change) => {
        await saved();
        expect((await current.store.loadWalletSlice(walletId, { ...keyOf(stored[0]!), ...change }))?.reservation).toBeNull();
      });

      it('replaces one reservation in place with the totals, leaving the rest as stored, its audit entry in the trail', async () => {
        await saved();
        const lowered = reservationRecord('rt-1', 'm-a', { 'm-a': 50, 'm-b': 30 });
        const totals = withChange(totalsOf(stored), stored[0]!, lowered);
        expect(await current.store.saveReservationChange({ walletId, reservation: lowered, totals, audit: audit(2) }, 1)).toBe(true);
        expect(sorted(await current.store.loadWallet(walletId))).toStrictEqual(
          sorted({ ...wallet(walletId, { 'm-a': 500, 'm-b': 300 }, [lowered, stored[1]!, stored[2]!]), version: 2 }),
        );
        const slice = await current.store.loadWalletSlice(walletId, keyOf(lowered));
        expect(slice?.totals).toStrictEqual(totals);
        await current.settle();
        expect(await current.store.listAudit('rt-1')).toStrictEqual([audit(2)]);
      });

      it('saves change after change of one wallet, each entry in the trail once', async () => {
        await saved();
        let latest = stored[0]!;
        let totals = totalsOf(stored);
        for (let version = 1; version <= 4; version++) {
          const next = reservationRecord('rt-1', 'm-a', { 'm-a': 60 - version, 'm-b': 40 });
          const after = withChange(totals, latest, next);
          // No read in between: the store itself keeps the previous change's entry from being replaced before it is in the trail.
          expect(await current.store.saveReservationChange({ walletId, reservation: next, totals: after, audit: audit(version + 1) }, version)).toBe(true);
          latest = next;
          totals = after;
        }
        await current.settle();
        expect((await current.store.listAudit('rt-1')).map((e) => e.walletVersion)).toEqual([2, 3, 4, 5]);
        expect((await current.store.loadWalletSlice(walletId, keyOf(latest)))?.reservation).toStrictEqual(latest);
      });

      it('adds a reservation under a new key', async () => {
        await saved();
        const added = reservationRecord('rt-new', 'm-b', { 'm-b': 9 }, { excludedFromCap: true });
        const totals = withChange(totalsOf(stored), null, added);
        expect(await current.store.saveReservationChange({ walletId, reservation: added, totals, audit: audit(2) }, 1)).toBe(true);
        const whole = await current.store.loadWallet(walletId);
        expect(sorted(whole)?.reservations).toStrictEqual(sorted(wallet(walletId, {}, [...stored, added])).reservations);
        expect(totals).toStrictEqual(totalsOf(whole!.reservations));
        expect((await current.store.loadWalletSlice(walletId, keyOf(added)))?.reservation).toStrictEqual(added);
      });

      it('drops the expired reservations the change names, with it: the others kept as stored, the totals those of what is left', async () => {
        await saved();
        const lowered = reservationRecord('rt-1', 'm-a', { 'm-a': 50, 'm-b': 30 });
        const totals = withChange(totalsOf([stored[0]!, stored[1]!]), stored[0]!, lowered);
        expect(await current.store.saveReservationChange({ walletId, reservation: lowered, totals, audit: audit(2), expired: [keyOf(stored[2]!)] }, 1)).toBe(true);
        expect(sorted(await current.store.loadWallet(walletId))).toStrictEqual(sorted({ ...wallet(walletId, { 'm-a': 500, 'm-b': 300 }, [lowered, stored[1]!]), version: 2 }));
        expect(await current.store.loadWalletSlice(walletId, keyOf(stored[2]!))).toMatchObject({ reservation: null, totals: totalsOf([lowered, stored[1]!]) });
        await current.settle();
        expect(await current.store.listAudit('rt-1')).toStrictEqual([audit(2)]);
      });

      it('puts a new reservation in place of an expired one under the same key', async () => {
        await saved();
        const renewed = reservationRecord('rt-gone', 'm-a', { 'm-a': 3 });
        const totals = withChange(totalsOf([stored[0]!, stored[1]!]), null, renewed);
        expect(await current.store.saveReservationChange({ walletId, reservation: renewed, totals, audit: null, expired: [keyOf(stored[2]!)] }, 1)).toBe(true);
        expect(sorted(await current.store.loadWallet(walletId))?.reservations).toStrictEqual(sorted(wallet(walletId, {}, [stored[0]!, stored[1]!, renewed])).reservations);
        expect((await current.store.loadWalletSlice(walletId, keyOf(renewed)))?.reservation).toStrictEqual(renewed);
      });

      it.each([
        ['a stale version', 0, false],
        ['a version from the future', 2, false],
        ['a stale version, dropping what expired', 0, true],
        ['a version from the future, dropping what expired', 2, true],
      ])('refuses %s and changes nothing', async (_case, version, dropping) => {
        await saved();
        const change = reservationRecord('rt-1', 'm-a', { 'm-a': 1 });
        const totals = withChange(totalsOf(stored), stored[0]!, change);
        const expired = dropping ? { expired: [keyOf(stored[2]!)] } : {};
        expect(await current.store.saveReservationChange({ walletId, reservation: change, totals, audit: null, ...expired }, version)).toBe(false);
        expect(sorted(await current.store.loadWallet(walletId))).toStrictEqual(sorted({ ...wallet(walletId, { 'm-a': 500, 'm-b': 300 }, stored), version: 1 }));
      });

      it('refuses a reservation change of a wallet that does not exist', async () => {
        const added = reservationRecord('rt-1', 'm-a', { 'm-a': 1 });
        expect(await current.store.saveReservationChange({ walletId, reservation: added, totals: totalsOf([added]), audit: null }, 0)).toBe(false);
        expect(await current.store.loadWallet(walletId)).toBeNull();
      });

      it('keeps the totals of a whole save equal to its reservations', async () => {
        await saved();
        const whole = deepCopy(await current.store.loadWallet(walletId))!;
        whole.reservations = [reservationRecord('rt-7', 'm-b', { 'm-b': 11 })];
        expect(await current.store.saveWallet(whole, 1)).toBe(true);
        expect((await current.store.loadWalletSlice(walletId, keyOf(stored[0]!)))?.totals).toStrictEqual(totalsOf(whole.reservations));
      });
    });

    describe('racing compare-and-set loops', () => {
      const walletId = 'household:hh-race';
      const racers = 50;

      it(
        `${racers} concurrent slice loops each lowering one reservation by 1 point end exact, with exact totals`,
        async () => {
          await current.store.saveWallet(wallet(walletId, { 'm-a': 1000, 'm-b': 500 }, [reservationRecord('rt-race', 'm-a', { 'm-a': 60, 'm-b': 40 }), reservationRecord('rt-other', 'm-b', { 'm-b': 7 })]), 0);
          const key = { clientId: 'partner-app', correlationId: 'm-a', reservationToken: 'rt-race' };
          let conflicts = 0;

          const lowerByOne = async (racer: number): Promise<void> => {
            for (let attempt = 0; attempt < 1000; attempt++) {
              const slice = await current.store.loadWalletSlice(walletId, key);
              if (!slice?.reservation || !slice.totals) throw new Error('race wallet vanished');
              const before = slice.reservation;
              const from = racer % 2;
              const after = {
                ...before,
                reservationAmount: before.reservationAmount - 1,
                contributions: before.contributions.map((c, i) => ({ ...c, points: c.points - (i === from ? 1 : 0) })),
              };
              const change = { walletId, reservation: after, totals: withChange(slice.totals, before, after), audit: null };
              if (await current.store.saveReservationChange(change, slice.version)) return;
              conflicts++;
            }
            throw new Error(`racer ${racer} never won`);
          };
          await Promise.all(Array.from({ length: racers }, (_, racer) => lowerByOne(racer)));

          const end = await current.store.loadWallet(walletId);
          expect(conflicts).toBeGreaterThan(0);
          expect(end?.version).toBe(1 + racers);
          expect(end?.reservations.find((r) => r.reservationToken === 'rt-race')?.contributions).toEqual([
            { correlationId: 'm-a', points: 60 - racers / 2 },
            { correlationId: 'm-b', points: 40 - racers / 2 },
          ]);
          expect((await current.store.loadWalletSlice(walletId, key))?.totals).toStrictEqual(totalsOf(end!.reservations));
        },
        60_000,
      );
    });
  });
}
