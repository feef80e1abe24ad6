import fc from 'fast-check';
import { reservationRecord } from '../store/test-support/records';
import type { ReservationRecord } from './model';
import { heldOf, isStale, reservedOn, totalsOf, withChange, type WalletTotals } from './wallet-totals';

const at = (iso: string) => new Date(iso);

/** A reservation of `app` for its first contributor (m-a without one), made at midnight, expiring at 01:00. */
function reservation(token: string, contributions: Record<string, number>, overrides: Partial<ReservationRecord> = {}): ReservationRecord {
  const correlationId = Object.keys(contributions)[0] ?? 'm-a';
  return reservationRecord(token, correlationId, contributions, { clientId: 'app', expiresAt: at('2030-01-01T01:00:00Z'), ...overrides });
}

describe('totalsOf', () => {
  it('sums what each member holds, what each client reserved per member and day (cap-exempt aside), and counts', () => {
    const totals = totalsOf([
      reservation('rt-1', { 'm-a': 60, 'm-b': 40 }),
      reservation('rt-2', { 'm-b': 5 }, { excludedFromCap: true, expiresAt: at('2030-01-01T00:30:00Z') }),
      reservation('rt-3', { 'm-a': 0 }),
      reservation('rt-4', { 'm-a': 7 }, { clientId: 'other', createdAt: at('2029-12-31T23:59:59Z') }),
    ]);
    expect(totals).toStrictEqual({
      held: [
        { correlationId: 'm-a', points: 67 },
        { correlationId: 'm-b', points: 45 },
      ],
      daily: [
        { day: '2029-12-31', clientId: 'other', correlationId: 'm-a', points: 7 },
        { day: '2030-01-01', clientId: 'app', correlationId: 'm-a', points: 100 },
      ],
      count: 4,
      nextExpiry: at('2030-01-01T00:30:00Z'),
    });
    expect(heldOf(totals, 'm-b')).toBe(45);
    expect(heldOf(totals, 'm-z')).toBe(0);
    expect(reservedOn(totals, '2030-01-01', 'app', 'm-a')).toBe(100);
    expect(reservedOn(totals, '2030-01-01', 'other', 'm-a')).toBe(0);
  });

  it('has nothing and no expiry for no reservation', () => {
    expect(totalsOf([])).toStrictEqual({ held: [], daily: [], count: 0, nextExpiry: null });
  });
});

describe('isStale', () => {
  it.each([
    ['before the first expiry', '2030-01-01T00:59:59Z', false],
    ['at it', '2030-01-01T01:00:00Z', true],
    ['after it', '2030-01-02T00:00:00Z', true],
  ])('%s: %p', (_case, now, stale) => {
    expect(isStale(totalsOf([reservation('rt-1', { 'm-a': 1 })]), at(now))).toBe(stale);
  });

  it('never, for a wallet without reservations', () => {
    expect(isStale(totalsOf([]), at('2999-01-01T00:00:00Z'))).toBe(false);
  });
});

describe('withChange', () => {
  const base = [reservation('rt-1', { 'm-a': 60, 'm-b': 40 }), reservation('rt-2', { 'm-b': 5 }, { expiresAt: at('2030-01-01T00:30:00Z') })];

  it.each([
    ['a lowering', base[0]!, reservation('rt-1', { 'm-a': 30, 'm-b': 20 })],
    ['a release to 0 (members left with nothing drop out)', base[0]!, reservation('rt-1', {})],
    ['a creation', null, reservation('rt-9', { 'm-a': 3 }, { excludedFromCap: true })],
  ])('after %s, equals the totals of the reservations after it', (_case, before, after) => {
    const reservations = before ? base.map((r) => (r === before ? after : r)) : [...base, after];
    expect(withChange(totalsOf(base), before, after)).toStrictEqual(totalsOf(reservations));
  });

  it('keeps the next expiry as a lower bound when the first to expire is extended', () => {
    const extended = { ...base[1]!, expiresAt: at('2030-01-01T05:00:00Z') };
    const totals = withChange(totalsOf(base), base[1]!, extended);
    expect(totals.nextExpiry).toEqual(at('2030-01-01T00:30:00Z'));
    expect(totalsOf([base[0]!, extended]).nextExpiry).toEqual(at('2030-01-01T01:00:00Z'));
  });

  // Any sequence of changes and removals, applied one by one to the totals,
  // gives the totals of the reservations it leaves: held points, daily sums
  // and count exactly, and a next expiry no later than the first. The totals
  // are frozen between steps, as the memory store holds them: withChange
  // makes new entries, never changes the ones it is given.
  it('agrees with totalsOf over any sequence of changes', () => {
    const member = fc.constantFrom('m-a', 'm-b', 'm-c');
    const change = fc.record({
      token: fc.constantFrom('rt-1', 'rt-2', 'rt-3', 'rt-4'),
      contributions: fc.dictionary(member, fc.integer({ min: 0, max: 1000 }), { maxKeys: 3 }),
      clientId: fc.constantFrom('app', 'other'),
      excludedFromCap: fc.boolean(),
      createdHour: fc.integer({ min: 0, max: 47 }),
      expiresHour: fc.integer({ min: 1, max: 72 }),
      remove: fc.boolean(),
    });
    fc.assert(
      fc.property(fc.array(change, { maxLength: 30 }), (changes) => {
        let stored: ReservationRecord[] = [];
        let totals: WalletTotals = deepFrozen(totalsOf(stored));
        for (const c of changes) {
          const changed = reservation(c.token, c.contributions, {
            clientId: c.clientId,
            excludedFromCap: c.excludedFromCap,
            createdAt: new Date(Date.UTC(2030, 0, 1, c.createdHour)),
            expiresAt: new Date(Date.UTC(2030, 0, 1, c.expiresHour)),
          });
          const before = stored.find((r) => r.reservationToken === changed.reservationToken && r.clientId === changed.clientId) ?? null;
          const after = c.remove && before ? null : changed;
          totals = deepFrozen(withChange(totals, before, after));
          stored = stored.filter((r) => r !== before);
          if (after) stored.push(after);
        }
        const { nextExpiry, ...exact } = totalsOf(stored);
        const { nextExpiry: bound, ...incremental } = totals;
        expect(incremental).toStrictEqual(exact);
        if (nextExpiry) expect(bound!.getTime()).toBeLessThanOrEqual(nextExpiry.getTime());
      }),
    );
  });
});

function deepFrozen<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFrozen(child);
  }
  return value;
}
