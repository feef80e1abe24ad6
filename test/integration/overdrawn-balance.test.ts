import { startTestApp, type TestApp } from '../../server/src/test-support/app-harness';
import type { ApiClient } from '../../server/src/test-support/api-client';
import { fixtureMember, fixtureReservation } from '../../server/src/test-support/fixture-entries';
import { integrationFixture, keys, t0 } from '../support/fixture';

/**
 * A balance can fall below what its member holds in live reservations: the
 * balance is set outside this service (here, by a fixture). The spec
 * promises `availablePointBalance` and the household sums are never
 * negative: nothing is available then.
 */
const fixture = {
  ...integrationFixture,
  members: [
    fixtureMember('m-low', 1000, { privileges: ['REDEEM'] }),
    fixtureMember('m-hl-1', 500, { householdId: 'hh-low', privileges: ['REDEEM'] }),
    fixtureMember('m-hl-2', 4000, { householdId: 'hh-low', privileges: ['REDEEM'] }),
  ],
  reservations: [fixtureReservation('rt-low', 'm-low', { 'm-low': 3000 }), fixtureReservation('rt-hl', 'm-hl-1', { 'm-hl-1': 2000, 'm-hl-2': 1000 })],
  redemptions: [],
};

let server: TestApp;
let api: ApiClient;
beforeAll(async () => {
  server = await startTestApp({ fixture, startAt: t0 });
  api = server.api;
});
afterAll(() => server.close());

describe('a balance below what the member holds', () => {
  it.each<[string, string, string, number, Record<string, unknown>]>([
    // 1000 - 2500 held: 0 available, not -1500.
    ['a member on its own', 'm-low', 'rt-low', 2500, { availablePointBalance: 0, pointBalance: 1000 }],
    // m-hl-1: 500 - 1600 held → 0; m-hl-2: 4000 - 800 → 3200. Sums: 4500 and 3200.
    ['a household member', 'm-hl-1', 'rt-hl', 2400, { availablePointBalance: 0, pointBalance: 500, household: { pointsBalance: 4500, availablePointsBalance: 3200 } }],
  ])('%s: available is 0, and the household sum counts it as 0', async (_case, member, token, amount, expected) => {
    const session = await api.startSession(keys.partner, member);
    const response = await api.updateReservation(keys.partner, session, member, token, { reservationAmount: amount });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject(expected);
  });

  it('still refuses a new reservation: nothing is available', async () => {
    const session = await api.startSession(keys.partner, 'm-low');
    const response = await api.updateReservation(keys.partner, session, 'm-low', 'rt-low-new', { reservationAmount: 1, offline: true });
    expect(response.body).toMatchObject({ statusCode: 400, errorMessage: 'Insufficient points balance' });
  });
});
