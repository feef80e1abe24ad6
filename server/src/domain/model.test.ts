import { reservationRecord } from '../store/test-support/records';
import { isLiveReservation, sameKey, type ReservationKey } from './model';

describe('isLiveReservation: a reservation exists until it expires', () => {
  const expiresAt = new Date('2030-01-01T01:00:00Z');
  const reservation = reservationRecord('rt-1', 'm-a', { 'm-a': 10 }, { expiresAt });

  it.each<[string, boolean, number]>([
    ['a millisecond before its expiry', true, -1],
    ['at its expiry', false, 0],
    ['after it', false, 1],
  ])('%s: live %s', (_when, live, offsetMs) => {
    expect(isLiveReservation(reservation, new Date(expiresAt.getTime() + offsetMs))).toBe(live);
  });
});

describe("sameKey: a token names a reservation only for the client that made it and on its member's path", () => {
  const key: ReservationKey = { clientId: 'app', correlationId: 'm-a', reservationToken: 'rt-1' };

  it.each<[string, boolean, Partial<ReservationKey>]>([
    ['the same three', true, {}],
    ['another token', false, { reservationToken: 'rt-2' }],
    ['another client', false, { clientId: 'other' }],
    ['another member', false, { correlationId: 'm-b' }],
  ])('%s: same %s', (_case, same, change) => {
    expect(sameKey(key, { ...key, ...change })).toBe(same);
  });

  it('takes a reservation record as its own key', () => {
    const record = reservationRecord('rt-1', 'm-a', { 'm-a': 10 }, { clientId: 'app' });
    expect(sameKey(record, key)).toBe(true);
  });
});
