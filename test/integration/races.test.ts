import { startTestApp, type TestApp } from '../../server/src/test-support/app-harness';
import type { ApiClient } from '../../server/src/test-support/api-client';
import type { Wallet } from '../../server/src/domain/model';
import { baseFixture, keys, t0 } from './fixture';

let server: TestApp;
let api: ApiClient;

beforeEach(async () => {
  server = await startTestApp({ fixture: baseFixture, startAt: t0 });
  api = server.api;
});
afterEach(() => server.close());

function shuffled<T>(values: T[]): T[] {
  return values
    .map((value, i) => ({ value, key: (i * 7919) % 101 }))
    .sort((a, b) => a.key - b.key)
    .map((e) => e.value);
}

/** Each member's balance equals what it has available plus what it holds, and nothing is negative. */
function expectConserved(wallet: Wallet, initialBalances: Record<string, number>) {
  for (const { correlationId, pointBalance } of wallet.balances) {
    expect(pointBalance).toBe(initialBalances[correlationId]);
    const held = wallet.reservations
      .filter((r) => r.expiresAt.getTime() > t0)
      .flatMap((r) => r.contributions)
      .filter((c) => c.correlationId === correlationId)
      .reduce((sum, c) => sum + c.points, 0);
    expect(held).toBeGreaterThanOrEqual(0);
    expect(held).toBeLessThanOrEqual(pointBalance);
  }
  for (const reservation of wallet.reservations) {
    expect(reservation.contributions.reduce((sum, c) => sum + c.points, 0)).toBe(reservation.reservationAmount);
    for (const c of reservation.contributions) expect(c.points).toBeGreaterThan(0);
  }
}

describe('racing updates conserve points', () => {
  it('50 concurrent lowerings of one household reservation', async () => {
    const tokens = await Promise.all(Array.from({ length: 5 }, () => api.startSession(keys.partner, 'm-hh-1')));
    const targets = shuffled(Array.from({ length: 50 }, (_, i) => 9999 - i));

    const responses = await Promise.all(
      targets.map((amount, i) =>
        api.updateReservation(keys.partner, tokens[i % 5]!, 'm-hh-1', 'rt-hh-1', { reservationAmount: amount }),
      ),
    );

    for (const r of responses) {
      if (r.status !== 200) {
        expect(r.body.errorMessage).toBe('New reservation amount cannot be greater than existing reservation amount');
      }
    }
    const wallet = (await server.store.loadWallet('household:hh-1'))!;
    const reservation = wallet.reservations.find((r) => r.reservationToken === 'rt-hh-1')!;
    expect(reservation.reservationAmount).toBe(9950);
    expectConserved(wallet, { 'm-hh-1': 30000, 'm-hh-2': 20000, 'm-hh-3': 1000 });

    // Every point that left the reservation went to exactly one contributor.
    await server.settled();
    const audit = await server.store.listAudit('rt-hh-1');
    const returned = audit.flatMap((a) => a.shares).reduce((sum, s) => sum + s.points, 0);
    expect(returned).toBe(50);
    const c = Object.fromEntries(reservation.contributions.map((x) => [x.correlationId, x.points]));
    expect((c['m-hh-1'] ?? 0) + (c['m-hh-2'] ?? 0)).toBe(9950);
  });

  it('50 concurrent offline creations never overdraw the household', async () => {
    const token = await api.startSession(keys.partner, 'm-hh-1');
    const responses = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        api.updateReservation(keys.partner, token, 'm-hh-1', `rt-race-${i}`, { reservationAmount: 1000, offline: true }),
      ),
    );
    // 40997 points are available in the household: exactly 40 reservations of 1000 fit.
    expect(responses.filter((r) => r.status === 200)).toHaveLength(40);
    for (const r of responses.filter((x) => x.status !== 200)) {
      expect(r.body.errorMessage).toBe('Insufficient points balance');
    }
    const wallet = (await server.store.loadWallet('household:hh-1'))!;
    expectConserved(wallet, { 'm-hh-1': 30000, 'm-hh-2': 20000, 'm-hh-3': 1000 });
  });

  it('concurrent creations never pass the daily cap', async () => {
    const token = await api.startSession(keys.tiered, 'm-tier');
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        api.updateReservation(keys.tiered, token, 'm-tier', `rt-cap-${i}`, { reservationAmount: 1000, offline: true }),
      ),
    );
    // 5000 already reserved today against a cap of 6000: one more 1000 fits.
    expect(responses.filter((r) => r.status === 200)).toHaveLength(1);
  });
});
