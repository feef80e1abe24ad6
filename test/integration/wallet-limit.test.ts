import { defaultWalletLimits } from '../../server/src/domain/limits';
import { startTestApp, type TestApp } from '../../server/src/test-support/app-harness';
import type { ApiClient } from '../../server/src/test-support/api-client';
import type { FixtureReservation } from '../../server/src/features/load/fixture-schema';
import { fixtureClient, fixtureMember, fixtureReservation } from '../../server/src/test-support/fixture-entries';
import { keys, t0 } from '../support/fixture';

/*
 * api-decisions.md: a wallet holds at most MAX_ACTIVE_RESERVATIONS_PER_WALLET
 * live reservations. An offline creation past it is `400 INVALID_REQUEST`
 * `Too many active reservations` and changes nothing; lowering (or extending)
 * one never is; an expired reservation does not count.
 */

const client = fixtureClient('partner-app', keys.partner, { defaultBusinessUnit: 'LCL', reservationDurationSeconds: 900, dailyRedemptionCap: 100000 });
const reservation = (token: string, points: number, overrides: Partial<FixtureReservation> = {}) => fixtureReservation(token, 'm-full', { 'm-full': points }, overrides);
const tooMany = { statusCode: 400, errorCode: 'INVALID_REQUEST', errorMessage: 'Too many active reservations' };

describe('a wallet at its limit of live reservations (limit 3 here)', () => {
  let server: TestApp;
  let api: ApiClient;
  let token: string;
  const update = (reservationToken: string, body: unknown) => api.updateReservation(keys.partner, token, 'm-full', reservationToken, body);

  beforeEach(async () => {
    server = await startTestApp({
      fixture: {
        clients: [client],
        members: [fixtureMember('m-full', 100000)],
        reservations: [
          reservation('rt-1', 1000),
          reservation('rt-2', 1000, { expiresAt: new Date(t0 + 60_000).toISOString() }),
          reservation('rt-gone', 1000, { expiresAt: new Date(t0 - 1000).toISOString() }),
        ],
      },
      startAt: t0,
      walletLimits: { maxActiveReservationsPerWallet: 3 },
    });
    api = server.api;
    token = await api.startSession(keys.partner, 'm-full');
  });
  afterEach(() => server.close());

  it('creates up to the limit (an expired reservation does not count), and refuses one more, changing nothing', async () => {
    expect((await update('rt-3', { reservationAmount: 500, offline: true })).status).toBe(200);
    const before = await server.store.loadWallet('member:m-full');

    const refused = await update('rt-4', { reservationAmount: 500, offline: true });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual(tooMany);
    expect(await server.store.loadWallet('member:m-full')).toEqual(before);
    expect(await server.store.listAudit('rt-4')).toEqual([]);
  });

  it('lowers, releases and extends reservations at the limit; a released one stays live until it expires', async () => {
    expect((await update('rt-3', { reservationAmount: 500, offline: true })).status).toBe(200);
    expect((await update('rt-1', { reservationAmount: 400 })).status).toBe(200);
    expect((await update('rt-1', { reservationAmount: 0, extendedExpiry: true })).status).toBe(200);
    expect((await update('rt-4', { reservationAmount: 1, offline: true })).body).toEqual(tooMany);
  });

  it('takes a new creation once a reservation has expired', async () => {
    expect((await update('rt-3', { reservationAmount: 500, offline: true })).status).toBe(200);
    server.advance(61);
    expect((await update('rt-4', { reservationAmount: 500, offline: true })).status).toBe(200);
  });

  it.each([
    ['the cap before the limit', { reservationAmount: 100000, offline: true }, 'Redemption cap exceeded'],
    ['the limit before the balance', { reservationAmount: 99000, offline: true, isExcludedFromCap: true }, 'Too many active reservations'],
  ])('checks %s (the documented order)', async (_case, body, message) => {
    expect((await update('rt-3', { reservationAmount: 500, offline: true })).status).toBe(200);
    const response = await update('rt-4', body);
    expect(response.status).toBe(400);
    expect(response.body.errorMessage).toBe(message);
  });
});

describe('the default limit', () => {
  const limit = defaultWalletLimits.maxActiveReservationsPerWallet;
  let server: TestApp;
  afterEach(() => server.close());

  it(`is ${limit}: a fixture fills a wallet with ${limit} live reservations, the next creation is refused`, async () => {
    expect(limit).toBe(1000);
    server = await startTestApp({
      fixture: {
        clients: [client],
        members: [fixtureMember('m-full', 10 * limit)],
        reservations: Array.from({ length: limit }, (_, i) => reservation(`rt-${i}`, 1)),
      },
      startAt: t0,
    });
    const api = server.api;
    const token = await api.startSession(keys.partner, 'm-full');
    expect((await api.updateReservation(keys.partner, token, 'm-full', 'rt-0', { reservationAmount: 0 })).status).toBe(200);
    const refused = await api.updateReservation(keys.partner, token, 'm-full', `rt-${limit}`, { reservationAmount: 1, offline: true });
    expect(refused.body).toEqual(tooMany);
  });
});
