import type { ReservationChange, ReservationRecord, Wallet, WalletSlice } from '../../domain/model';
import { totalsOf, withChange } from '../../domain/wallet-totals';
import type { ReservationStore } from '../../store/port';
import { auditEntry, reservationRecord, wallet } from '../../store/test-support/records';
import { loadWalletState, saveChange } from './wallet-repository';

const now = new Date('2030-01-01T12:00:00Z');
const key = { clientId: 'app', correlationId: 'm-a', reservationToken: 'rt-1' };

const reservation = (token: string, expiresAt: string) =>
  reservationRecord(token, 'm-a', { 'm-a': 100 }, { clientId: 'app', expiresAt: new Date(expiresAt) });

const live = reservation('rt-1', '2030-01-01T13:00:00Z');
const expired = reservation('rt-1', '2030-01-01T11:59:59Z');
const other = reservation('rt-2', '2030-01-01T14:00:00Z');
const expiredOther = reservation('rt-3', '2030-01-01T11:00:00Z');

/** A store holding one wallet, read as a slice whose totals and reservation are given. */
function storeWith(slice: Pick<WalletSlice, 'totals' | 'reservation'>, whole: Wallet) {
  const calls: string[] = [];
  const store = {
    loadWalletSlice: async () => {
      calls.push('slice');
      return { walletId: whole.walletId, version: whole.version, balances: whole.balances, ...slice };
    },
    loadWallet: async () => {
      calls.push('whole');
      return whole;
    },
  } as unknown as ReservationStore;
  return { store, calls };
}

describe('loadWalletState', () => {
  it.each<[string, Pick<WalletSlice, 'totals' | 'reservation'>, ReservationRecord[], string[], ReservationRecord | null]>([
    ['totals not stale, the reservation live: the slice', { totals: totalsOf([live, other]), reservation: live }, [live, other], ['slice'], live],
    ['totals not stale, no reservation under the key: the slice', { totals: totalsOf([other]), reservation: null }, [other], ['slice'], null],
    ['stale totals: the whole wallet, what expired dropped', { totals: totalsOf([expired, other]), reservation: expired }, [expired, other], ['slice', 'whole'], null],
    // The totals cannot vouch for a reservation they do not include (a late
    // delivery that put it back after its tombstone was gone): it is checked on its own.
    ['totals not stale but the reservation expired: the whole wallet', { totals: totalsOf([other]), reservation: expired }, [expired, other], ['slice', 'whole'], null],
  ])('%s', async (_case, slice, stored, expectedCalls, expectedCurrent) => {
    const { store, calls } = storeWith(slice, wallet('member:m-a', { 'm-a': 1000 }, stored, { version: 3 }));
    const state = await loadWalletState(store, 'member:m-a', key, now);
    expect(calls).toEqual(expectedCalls);
    expect(state?.current).toBe(expectedCurrent);
    expect(state?.totals).toStrictEqual(totalsOf(stored.filter((r) => r.expiresAt > now)));
  });
});

describe('saveChange', () => {
  const lowered = { ...live, reservationAmount: 50, contributions: [{ correlationId: 'm-a', points: 50 }] };
  const audit = auditEntry('rt-1', '2030-01-01T12:00:00.000Z', 50, { walletId: 'member:m-a', walletVersion: 4, correlationId: 'm-a', clientId: 'app' });

  it.each<[string, Pick<WalletSlice, 'totals' | 'reservation'>, ReservationRecord[], ReservationRecord[] | undefined]>([
    ['read as a slice: the change alone', { totals: totalsOf([live, other]), reservation: live }, [live, other], undefined],
    ['read whole: the change, and what expired dropped with it', { totals: totalsOf([live, expiredOther, other]), reservation: live }, [live, expiredOther, other], [expiredOther]],
  ])('%s, in one call against the version read', async (_case, slice, stored, expectedExpired) => {
    const { store } = storeWith(slice, wallet('member:m-a', { 'm-a': 1000 }, stored, { version: 3 }));
    const changes: Array<[ReservationChange, number]> = [];
    store.saveReservationChange = async (change, version) => (changes.push([change, version]), true);
    const state = (await loadWalletState(store, 'member:m-a', key, now))!;
    const saved = await saveChange(store, state, live, lowered, audit, now);
    const totals = withChange(totalsOf(stored.filter((r) => r.expiresAt > now)), live, lowered);
    expect(changes).toStrictEqual([[{ walletId: 'member:m-a', reservation: lowered, totals, audit, ...(expectedExpired && { expired: expectedExpired }) }, 3]]);
    expect(saved).toMatchObject({ version: 4, totals, current: lowered, whole: null });
  });

  it('answers null when the wallet moved on since it was read', async () => {
    const { store } = storeWith({ totals: totalsOf([live]), reservation: live }, wallet('member:m-a', { 'm-a': 1000 }, [live], { version: 3 }));
    store.saveReservationChange = async () => false;
    const state = (await loadWalletState(store, 'member:m-a', key, now))!;
    expect(await saveChange(store, state, live, lowered, audit, now)).toBeNull();
  });
});
