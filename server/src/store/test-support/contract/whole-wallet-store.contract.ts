/**
 * `WholeWalletStore` (store/port.ts): whole wallets, read and
 * compared-and-set.
 */
import type { Wallet } from '../../../domain/model';
import { deepCopy } from '../../copy';
import { reservationRecord, wallet } from '../records';
import { sorted, tryToChange, type CurrentStore } from './contract-support';

export function describeWholeWalletStoreContract(current: CurrentStore): void {
  describe('WholeWalletStore', () => {
    const aliceWallet = (): Wallet => wallet('member:m-alice', { 'm-alice': 50000 }, [reservationRecord('rt-1', 'm-alice', { 'm-alice': 10000 })]);

    it('loads null for an unknown wallet', async () => {
      expect(await current.store.loadWallet('member:m-nobody')).toBeNull();
    });

    it('inserts at version 0 and stores version 1, leaving the input untouched', async () => {
      const input = aliceWallet();
      expect(await current.store.saveWallet(input, 0)).toBe(true);
      expect(input.version).toBe(0);
      expect(await current.store.loadWallet('member:m-alice')).toStrictEqual({ ...aliceWallet(), version: 1 });
    });

    it('refuses version 0 when the wallet exists, and changes nothing', async () => {
      await current.store.saveWallet(aliceWallet(), 0);
      const other = wallet('member:m-alice', { 'm-alice': 1 });
      expect(await current.store.saveWallet(other, 0)).toBe(false);
      expect(await current.store.loadWallet('member:m-alice')).toStrictEqual({ ...aliceWallet(), version: 1 });
    });

    it('saves at the current version, then refuses the stale one and changes nothing', async () => {
      await current.store.saveWallet(aliceWallet(), 0);
      // Copies: a store may hand out its wallets frozen.
      const first = deepCopy(await current.store.loadWallet('member:m-alice'));
      const second = deepCopy(await current.store.loadWallet('member:m-alice'));
      if (!first || !second) throw new Error('wallet expected');
      first.reservations[0]!.reservationAmount = 9000;
      first.reservations[0]!.contributions[0]!.points = 9000;
      expect(await current.store.saveWallet(first, first.version)).toBe(true);
      second.balances[0]!.pointBalance = 0;
      expect(await current.store.saveWallet(second, second.version)).toBe(false);
      expect(await current.store.saveWallet(second, 7)).toBe(false);
      expect(await current.store.loadWallet('member:m-alice')).toStrictEqual({ ...first, version: 2 });
    });

    it.each([-1, 1.5, Number.NaN])('rejects expectedVersion %p', async (version) => {
      await expect(current.store.saveWallet(aliceWallet(), version)).rejects.toThrow(RangeError);
    });

    it('round-trips reservations exactly: dates, flags, contribution order', async () => {
      const full = wallet('household:hh-1', { 'm-a': 10, 'm-b': 20 }, [
        reservationRecord('rt-1', 'm-b', { 'm-b': 3, 'm-a': 4 }, { excludedFromCap: true, identifierType: 'EMAIL' }),
        reservationRecord('rt-2', 'm-a', { 'm-a': 0 }, { expiresAt: new Date('2031-05-06T07:08:09.123Z') }),
      ]);
      await current.store.saveWallet(full, 0);
      const loaded = await current.store.loadWallet('household:hh-1');
      expect(sorted(loaded)).toStrictEqual(sorted({ ...full, version: 1 }));
      expect(loaded?.reservations[1]?.expiresAt).toBeInstanceOf(Date);
    });

    it('keeps its own wallet: changing the input or a loaded wallet does not change the store', async () => {
      const input = aliceWallet();
      await current.store.saveWallet(input, 0);
      input.balances[0]!.pointBalance = 1;
      input.reservations[0]!.contributions[0]!.points = 1;
      const loaded = await current.store.loadWallet('member:m-alice');
      // A loaded wallet is either a copy or frozen (writing to it throws).
      tryToChange(
        () => loaded!.reservations.pop(),
        () => (loaded!.reservations[0]!.reservationAmount = 1),
        () => (loaded!.balances[0]!.pointBalance = 2),
      );
      expect(await current.store.loadWallet('member:m-alice')).toStrictEqual({ ...aliceWallet(), version: 1 });
    });

    describe('racing compare-and-set loops', () => {
      const walletId = 'household:hh-race';
      const racers = 50;

      it(
        `${racers} concurrent loops each lowering one reservation by 1 point end exact, points conserved`,
        async () => {
          const start = wallet(walletId, { 'm-a': 1000, 'm-b': 500 }, [
            reservationRecord('rt-race', 'm-a', { 'm-a': 60, 'm-b': 40 }),
            reservationRecord('rt-other', 'm-b', { 'm-b': 7 }),
          ]);
          await current.store.saveWallet(start, 0);
          let conflicts = 0;

          /** The loop every writer runs: load, modify, save against the version read, retry on conflict. */
          const lowerByOne = async (racer: number): Promise<void> => {
            for (let attempt = 0; attempt < 1000; attempt++) {
              const loaded = deepCopy(await current.store.loadWallet(walletId));
              const target = loaded?.reservations.find((r) => r.reservationToken === 'rt-race');
              if (!loaded || !target) throw new Error('race wallet vanished');
              // Alternate contributors so both members' shares move.
              const from = target.contributions[racer % 2];
              if (!from) throw new Error('contribution missing');
              target.reservationAmount -= 1;
              from.points -= 1;
              if (await current.store.saveWallet(loaded, loaded.version)) return;
              conflicts++;
            }
            throw new Error(`racer ${racer} never won`);
          };
          await Promise.all(Array.from({ length: racers }, (_, racer) => lowerByOne(racer)));

          const end = await current.store.loadWallet(walletId);
          const raced = end?.reservations.find((r) => r.reservationToken === 'rt-race');
          expect(conflicts).toBeGreaterThan(0);
          expect(end?.version).toBe(1 + racers);
          expect(raced?.reservationAmount).toBe(100 - racers);
          expect(raced?.contributions).toEqual([
            { correlationId: 'm-a', points: 60 - racers / 2 },
            { correlationId: 'm-b', points: 40 - racers / 2 },
          ]);
          // Balances never move when a reservation shrinks: the points come back as available balance.
          expect(end?.balances).toEqual(start.balances);
          const reserved = (end?.reservations ?? []).reduce((sum, r) => sum + r.reservationAmount, 0);
          const contributed = (end?.reservations ?? []).flatMap((r) => r.contributions).reduce((sum, c) => sum + c.points, 0);
          expect(contributed).toBe(reserved);
          expect(reserved).toBe(107 - racers);
        },
        60_000,
      );
    });
  });
}
