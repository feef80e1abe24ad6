import type { SessionRecord } from '../../domain/model';
import { totalsOf, withChange } from '../../domain/wallet-totals';
import { describeStoreContract } from '../test-support/store.contract';
import { memberRecord, reservationRecord, sessionRecord, wallet } from '../test-support/records';
import { MemoryStore } from './memory-store';

describeStoreContract('MemoryStore', async () => {
  const store = new MemoryStore();
  return { store, cleanup: () => store.close() };
});

describe('MemoryStore specifics', () => {
  const session = (tokenHash: string, expiresAt: string): SessionRecord =>
    sessionRecord(tokenHash, { identifierType: 'CARD_NUMBER', expiresAt: new Date(expiresAt) });

  afterEach(() => {
    jest.useRealTimers();
  });

  it('judges expiry by the clock it is given, dropping expired sessions on lookup', async () => {
    let now = Date.parse('2026-01-01T12:00:00.000Z');
    const store = new MemoryStore({ clock: () => new Date(now), sessionSweepIntervalMs: 0 });
    await store.insertSession(session('h1', '2026-01-01T13:00:00.000Z'));
    expect(await store.findSession('h1')).not.toBeNull();
    now = Date.parse('2026-01-01T13:00:00.001Z');
    expect(await store.findSession('h1')).toBeNull();
    // Gone for good, even if the clock went back.
    now = Date.parse('2026-01-01T12:00:00.000Z');
    expect(await store.findSession('h1')).toBeNull();
    await store.close();
  });

  it('sweeps expired sessions periodically without keeping the process alive', async () => {
    jest.useFakeTimers({ now: Date.parse('2026-01-01T12:00:00.000Z') });
    const store = new MemoryStore({ sessionSweepIntervalMs: 60_000 });
    const sweep = jest.spyOn(store, 'sweepExpiredSessions');
    await store.insertSession(session('old', '2026-01-01T12:00:30.000Z'));
    await store.insertSession(session('new', '2026-01-01T14:00:00.000Z'));
    jest.advanceTimersByTime(60_000);
    expect(sweep).toHaveBeenCalledTimes(1);
    expect(sweep.mock.results[0]?.value).toBe(1);
    expect(store.sweepExpiredSessions()).toBe(0);
    await store.close();
    jest.advanceTimersByTime(120_000);
    expect(sweep).toHaveBeenCalledTimes(2); // only the direct call above: close stopped the timer
  });

  it('does not keep the event loop alive', () => {
    const setInterval = jest.spyOn(global, 'setInterval');
    const store = new MemoryStore();
    const timer = setInterval.mock.results[0]?.value as NodeJS.Timeout;
    expect(timer.hasRef()).toBe(false);
    setInterval.mockRestore();
    return store.close();
  });

  it('copies a session once, on the way in, and hands out the same frozen record with its context', async () => {
    const store = new MemoryStore({ sessionSweepIntervalMs: 0 });
    const given = session('h1', '2999-01-01T00:00:00.000Z');
    await store.insertSession(given);
    await store.upsertMembers([memberRecord('m-alice')]);
    const found = await store.findSession('h1');
    const context = await store.findSessionContext('h1');
    expect(found).not.toBe(given);
    expect(context?.session).toBe(found);
    expect(Object.isFrozen(found)).toBe(true);
    expect(Object.isFrozen(context?.member) && Object.isFrozen(context?.member?.privileges)).toBe(true);
    expect(() => context?.member?.privileges.push('ADMIN')).toThrow(TypeError);
    await store.close();
  });

  it('forgets everything on close', async () => {
    const store = new MemoryStore({ sessionSweepIntervalMs: 0 });
    await store.insertSession(session('h1', '2999-01-01T00:00:00.000Z'));
    await store.saveWallet(wallet('member:m', {}), 0);
    await store.close();
    expect(await store.findSession('h1')).toBeNull();
    expect(await store.loadWallet('member:m')).toBeNull();
  });
});

describe('MemoryStore wallets: frozen values, shared between versions', () => {
  const reservation = (token: string, amount: number) => reservationRecord(token, 'm-a', { 'm-a': amount });
  const input = () => wallet('member:m-a', { 'm-a': 500 }, [reservation('rt-1', 100), reservation('rt-2', 200)]);

  it('hands out a deep-frozen wallet, and copies what it is given', async () => {
    const store = new MemoryStore({ sessionSweepIntervalMs: 0 });
    const given = input();
    await store.saveWallet(given, 0);
    const loaded = (await store.loadWallet('member:m-a'))!;
    expect(loaded).not.toBe(given);
    expect(loaded.reservations[0]).not.toBe(given.reservations[0]);
    for (const part of [loaded, loaded.balances, loaded.balances[0], loaded.reservations, loaded.reservations[0], loaded.reservations[0]!.contributions]) {
      expect(Object.isFrozen(part)).toBe(true);
    }
    expect(() => {
      loaded.reservations[0]!.contributions[0]!.points = 1;
    }).toThrow(TypeError);
    await store.close();
  });

  it('keeps the unchanged parts of a saved wallet as they are, and copies the changed ones', async () => {
    const store = new MemoryStore({ sessionSweepIntervalMs: 0 });
    await store.saveWallet(input(), 0);
    const first = (await store.loadWallet('member:m-a'))!;
    const lowered = { ...first.reservations[1]!, reservationAmount: 150 };
    expect(await store.saveWallet({ ...first, reservations: [first.reservations[0]!, lowered] }, 1)).toBe(true);
    const second = (await store.loadWallet('member:m-a'))!;
    expect(second.version).toBe(2);
    expect(second.balances).toBe(first.balances);
    expect(second.reservations[0]).toBe(first.reservations[0]);
    expect(second.reservations[1]).not.toBe(lowered);
    expect(second.reservations[1]).toStrictEqual(lowered);
    expect(Object.isFrozen(second.reservations[1])).toBe(true);
    await store.close();
  });

  it('changes a wallet one reservation at a time in place, never under a caller holding the wallet from before', async () => {
    const store = new MemoryStore({ sessionSweepIntervalMs: 0 });
    await store.saveWallet(input(), 0);
    const before = (await store.loadWallet('member:m-a'))!;
    const key = { clientId: 'partner-app', correlationId: 'm-a', reservationToken: 'rt-1' };
    const afterFirst = withChange(totalsOf(before.reservations), before.reservations[0]!, reservation('rt-1', 90));
    const afterSecond = withChange(afterFirst, null, reservation('rt-3', 5));
    expect(await store.saveReservationChange({ walletId: 'member:m-a', reservation: reservation('rt-1', 90), totals: afterFirst, audit: null }, 1)).toBe(true);
    expect(await store.saveReservationChange({ walletId: 'member:m-a', reservation: reservation('rt-3', 5), totals: afterSecond, audit: null }, 2)).toBe(true);
    // What a caller holds stays as it was handed out.
    expect(before.version).toBe(1);
    expect(before.reservations.map((r) => [r.reservationToken, r.reservationAmount])).toEqual([['rt-1', 100], ['rt-2', 200]]);
    // The whole wallet now: replaced in place, added at the end, frozen, the same value until the next change.
    const after = (await store.loadWallet('member:m-a'))!;
    expect(after.version).toBe(3);
    expect(after.reservations.map((r) => [r.reservationToken, r.reservationAmount])).toEqual([['rt-1', 90], ['rt-2', 200], ['rt-3', 5]]);
    expect(after.reservations[1]).toBe(before.reservations[1]);
    expect(Object.isFrozen(after) && Object.isFrozen(after.reservations) && Object.isFrozen(after.reservations[0])).toBe(true);
    expect(await store.loadWallet('member:m-a')).toBe(after);
    const slice = await store.loadWalletSlice('member:m-a', key);
    expect(slice?.reservation).toBe(after.reservations[0]);
    expect(slice?.totals).toStrictEqual(totalsOf(after.reservations));
    await store.close();
  });
});
