import { wrapStore } from '../../server/src/store/store-wrapper';
import type { Store } from '../../server/src/store/port';
import { startTestApp, type TestApp } from '../../server/src/test-support/app-harness';
import type { ApiClient } from '../../server/src/test-support/api-client';
import { integrationFixture, keys, t0 } from '../support/fixture';

let server: TestApp;
let api: ApiClient;

// Every test starts from the fixture: alice has 50000 points and holds
// 10000 (rt-alice-1) + 1000 (rt-alice-email) + 500 (rt-alice-late), so 38500
// are available; rt-alice-expired (400) counts as not existing. Household hh-1:
// m-hh-1 30000, m-hh-2 20000, m-hh-3 1000; rt-hh-1 holds 6000 + 4000 and rt-odd
// 1 + 1 + 1, so 23999, 15999 and 999 are available (40997 in all, of 51000).
beforeEach(async () => {
  server = await startTestApp({ fixture: integrationFixture, startAt: t0 });
  api = server.api;
});
afterEach(() => server.close());

async function update(member: string, token: string, body: unknown, apiKey: string = keys.partner, identifierType = 'CARD_NUMBER') {
  const session = await api.session(apiKey, member, identifierType);
  const response = await api.updateReservation(apiKey, session.sessionToken, member, token, body);
  return { ...response, sessionId: session.sessionId };
}

async function contributionsOf(walletId: string, token: string) {
  const wallet = await server.store.loadWallet(walletId);
  return wallet?.reservations.find((r) => r.reservationToken === token)?.contributions;
}

describe('Operation B: lowering a reservation', () => {
  it('returns the difference to a member without household', async () => {
    const response = await update('m-alice', 'rt-alice-1', { reservationAmount: 7500 });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      reservationToken: 'rt-alice-1',
      reservationDuration: 900,
      availablePointBalance: 41000,
      pointBalance: 50000,
      sessionId: response.sessionId,
    });
  });

  it('counts reservationDuration in whole seconds until expiry', async () => {
    server.advance(100.5);
    const response = await update('m-alice', 'rt-alice-1', { reservationAmount: 10000 });
    expect(response.body.reservationDuration).toBe(799);
  });

  it('returns points to each household contributor in proportion', async () => {
    const response = await update('m-hh-1', 'rt-hh-1', { reservationAmount: 7500 });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      reservationToken: 'rt-hh-1',
      reservationDuration: 900,
      availablePointBalance: 25499,
      pointBalance: 30000,
      sessionId: response.sessionId,
      household: { pointsBalance: 51000, availablePointsBalance: 43497 },
    });
    expect(await contributionsOf('household:hh-1', 'rt-hh-1')).toEqual([
      { correlationId: 'm-hh-1', points: 4500 },
      { correlationId: 'm-hh-2', points: 3000 },
    ]);
  });

  it.each([
    ['one point back goes to the larger remainder', 'rt-hh-1', 9999, [['m-hh-1', 5999], ['m-hh-2', 4000]]],
    ['equal remainders and contributions: smaller ids first', 'rt-odd', 1, [['m-hh-3', 1]]],
    ['all back', 'rt-odd', 0, []],
  ])('rounds shares to whole points: %s', async (_name, token, amount, expected) => {
    const response = await update('m-hh-1', token, { reservationAmount: amount });
    expect(response.status).toBe(200);
    expect(await contributionsOf('household:hh-1', token)).toEqual(
      expected.map(([correlationId, points]) => ({ correlationId, points })),
    );
  });

  it('records the change and each share in the audit trail', async () => {
    const response = await update('m-hh-1', 'rt-hh-1', { reservationAmount: 7500 });
    await server.settled();
    const audit = await server.store.listAudit('rt-hh-1');
    expect(audit).toEqual([
      expect.objectContaining({
        action: 'UPDATE',
        clientId: 'partner-app',
        sessionId: response.sessionId,
        correlationId: 'm-hh-1',
        before: expect.objectContaining({ reservationAmount: 10000 }),
        after: expect.objectContaining({ reservationAmount: 7500 }),
        shares: [
          { correlationId: 'm-hh-1', points: 1500 },
          { correlationId: 'm-hh-2', points: 1000 },
        ],
      }),
    ]);
  });

  it('releases the whole reservation with 0, and repeating it is safe', async () => {
    const first = await update('m-alice', 'rt-alice-1', { reservationAmount: 0 });
    const second = await update('m-alice', 'rt-alice-1', { reservationAmount: 0 });
    expect(first.body.availablePointBalance).toBe(48500);
    expect(second.status).toBe(200);
    expect(second.body.availablePointBalance).toBe(48500);
    await server.settled();
    expect(await server.store.listAudit('rt-alice-1')).toHaveLength(1);
  });

  it('accepts an update that changes nothing', async () => {
    const response = await update('m-alice', 'rt-alice-1', { reservationAmount: 10000 });
    expect(response.status).toBe(200);
    expect(response.body.availablePointBalance).toBe(38500);
    expect(await server.store.listAudit('rt-alice-1')).toEqual([]);
  });
});

describe('Operation B: extended expiry', () => {
  it('extends the expiry to now + extendedDurationSeconds', async () => {
    const response = await update('m-alice', 'rt-alice-1', { reservationAmount: 10000, extendedExpiry: true });
    expect(response.body.reservationDuration).toBe(3600);
  });

  it('keeps a later expiry', async () => {
    const response = await update('m-alice', 'rt-alice-late', { reservationAmount: 500, extendedExpiry: true });
    expect(response.body.reservationDuration).toBe(7200);
  });

  it('extends a reservation created offline too', async () => {
    const response = await update('m-alice', 'rt-new', { reservationAmount: 1000, offline: true, extendedExpiry: true });
    expect(response.status).toBe(200);
    expect(response.body.reservationDuration).toBe(3600);
  });
});

describe('Operation B: one time per attempt', () => {
  // rt-alice-1 expires 900 s after t0. A lowering at t0 + 800 whose read of
  // the wallet takes so long that the clock passes the expiry meanwhile: the
  // attempt is judged at the time it started, as a whole. The reservation
  // was live then, and the answer counts from then.
  it('judges what is live, and the duration left, at the time the attempt started', async () => {
    let advanceDuringRead = 0;
    const slowRead = (store: Store, clock: { advance(seconds: number): void }): Store =>
      wrapStore(store, async (method, _args, call) => {
        const result = await call();
        if (method === 'loadWalletSlice') {
          clock.advance(advanceDuringRead);
          advanceDuringRead = 0;
        }
        return result;
      });
    const timed = await startTestApp({ fixture: integrationFixture, startAt: t0, wrapStore: slowRead });
    const timedApi = timed.api;
    try {
      timed.advance(800);
      const session = await timedApi.session(keys.partner, 'm-alice', 'CARD_NUMBER');
      const first = await timedApi.updateReservation(keys.partner, session.sessionToken, 'm-alice', 'rt-alice-1', { reservationAmount: 9000 });
      expect(first.status).toBe(200);

      advanceDuringRead = 200;
      const second = await timedApi.updateReservation(keys.partner, session.sessionToken, 'm-alice', 'rt-alice-1', { reservationAmount: 8000 });
      expect(second.status).toBe(200);
      expect(second.body.reservationDuration).toBe(100);
      expect(timed.now().getTime()).toBe(t0 + 1_000_000);
      const wallet = await timed.store.loadWallet('member:m-alice');
      expect(wallet?.reservations.find((r) => r.reservationToken === 'rt-alice-1')?.reservationAmount).toBe(8000);
    } finally {
      await timed.close();
    }
  });
});

describe('Operation B: item-level redemption', () => {
  const ids = { redemptionId: 'rd-100', redeemerId: 'm-alice' };

  it('returns the redemption name and the items resolved', async () => {
    const response = await update('m-alice', 'rt-alice-1', {
      reservationAmount: 4000,
      ...ids,
      catalogueItems: [{ productCode: '0000000001', quantity: 2 }],
    });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      reservationToken: 'rt-alice-1',
      reservationDuration: 900,
      availablePointBalance: 44500,
      pointBalance: 50000,
      sessionId: response.sessionId,
      redemptionName: 'In-store coffee',
      catalogueItemsData: [
        {
          productCode: '0000000001',
          quantity: 2,
          catalogueItemId: 'ci-coffee',
          catalogueItemName: 'Medium coffee',
          redemptionType: 'TENDER',
          pointsAmount: 2000,
          totalPointsAmount: 4000,
          messages: {
            'en-CA': {
              promptText: 'Redeem for a coffee?',
              receiptTextLong: 'Coffee redeemed with points',
              receiptTextShort: 'Coffee',
            },
          },
        },
      ],
    });
  });

  it('takes quantity 1 when it is omitted', async () => {
    const response = await update('m-alice', 'rt-alice-1', { ...ids, catalogueItems: [{ productCode: '0000000002' }] });
    expect(response.status).toBe(200);
    expect(response.body.catalogueItemsData[0]).toMatchObject({ quantity: 1, pointsAmount: 1500, totalPointsAmount: 1500 });
  });

  it('checks the items against the existing amount when no amount is sent', async () => {
    const fits = await update('m-alice', 'rt-alice-1', { ...ids, catalogueItems: [{ productCode: '0000000001', quantity: 5 }] });
    expect(fits.status).toBe(200);
    expect(fits.body.availablePointBalance).toBe(38500);
    const tooMuch = await update('m-alice', 'rt-alice-1', { ...ids, catalogueItems: [{ productCode: '0000000001', quantity: 6 }] });
    expect(tooMuch.body.errorMessage).toBe(
      'Total points for catalogue items should be less than or equal to the reservation amount',
    );
  });

  it('returns no item data for a redemption id without items', async () => {
    const response = await update('m-alice', 'rt-alice-1', { reservationAmount: 9000, ...ids });
    expect(response.status).toBe(200);
    expect(response.body).not.toHaveProperty('redemptionName');
    expect(response.body).not.toHaveProperty('catalogueItemsData');
  });
});

describe('Operation B: offline creation', () => {
  it('creates a reservation under an unknown token', async () => {
    const response = await update('m-alice', 'rt-new', { reservationAmount: 3000, offline: true });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ reservationToken: 'rt-new', reservationDuration: 900, availablePointBalance: 35500 });
    const again = await update('m-alice', 'rt-new', { reservationAmount: 3000, offline: true });
    expect(again.body.availablePointBalance).toBe(35500);
  });

  it('binds the new reservation to the identifier type of the session', async () => {
    await update('m-alice', 'rt-new', { reservationAmount: 3000, offline: true }, keys.partner, 'EMAIL');
    const fromCard = await update('m-alice', 'rt-new', { reservationAmount: 3000 });
    expect(fromCard.body.errorMessage).toBe('Reservation belongs to a different session');
    const fromEmail = await update('m-alice', 'rt-new', { reservationAmount: 2000 }, keys.partner, 'EMAIL');
    expect(fromEmail.status).toBe(200);
  });

  it("treats another member's token as unknown: creates the member's own, and leaves the other as it was", async () => {
    const response = await update('m-alice', 'rt-hh-1', { reservationAmount: 1000, offline: true });
    expect(response.status).toBe(200);
    expect(response.body.availablePointBalance).toBe(37500);
    expect(await contributionsOf('household:hh-1', 'rt-hh-1')).toEqual([
      { correlationId: 'm-hh-1', points: 6000 },
      { correlationId: 'm-hh-2', points: 4000 },
    ]);
    expect(await contributionsOf('member:m-alice', 'rt-hh-1')).toEqual([{ correlationId: 'm-alice', points: 1000 }]);
  });

  it('replaces an expired reservation under the same token', async () => {
    const response = await update('m-alice', 'rt-alice-expired', { reservationAmount: 400, offline: true });
    expect(response.status).toBe(200);
    expect(response.body.availablePointBalance).toBe(38100);
    // The expired one is gone, not kept beside the new one.
    const wallet = await server.store.loadWallet('member:m-alice');
    expect(wallet?.reservations.filter((r) => r.reservationToken === 'rt-alice-expired').map((r) => r.reservationAmount)).toEqual([400]);
  });

  it("keeps two members' reservations under one token in one household wallet apart", async () => {
    // m-hh-1 holds rt-hh-1 in the household wallet; m-hh-2, same wallet, makes its own under that token, then lowers it.
    expect((await update('m-hh-2', 'rt-hh-1', { reservationAmount: 1000, offline: true })).status).toBe(200);
    expect((await update('m-hh-2', 'rt-hh-1', { reservationAmount: 500 })).status).toBe(200);
    const wallet = await server.store.loadWallet('household:hh-1');
    const underToken = wallet?.reservations.filter((r) => r.reservationToken === 'rt-hh-1') ?? [];
    expect(underToken.map((r) => [r.correlationId, r.reservationAmount])).toEqual([
      ['m-hh-1', 10000],
      ['m-hh-2', 500],
    ]);
    expect(underToken[0]?.contributions).toEqual([
      { correlationId: 'm-hh-1', points: 6000 },
      { correlationId: 'm-hh-2', points: 4000 },
    ]);
  });

  it('takes the amount from the items when none is sent', async () => {
    const response = await update('m-alice', 'rt-items', {
      offline: true,
      redemptionId: 'rd-100',
      redeemerId: 'm-alice',
      catalogueItems: [{ productCode: '0000000001', quantity: 2 }],
    });
    expect(response.status).toBe(200);
    expect(response.body.availablePointBalance).toBe(34500);
  });

  it("draws on the member's own points, then the household's richest first", async () => {
    const response = await update('m-hh-1', 'rt-big', { reservationAmount: 40000, offline: true });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      availablePointBalance: 0,
      household: { pointsBalance: 51000, availablePointsBalance: 997 },
    });
    expect(await contributionsOf('household:hh-1', 'rt-big')).toEqual([
      { correlationId: 'm-hh-1', points: 23999 },
      { correlationId: 'm-hh-2', points: 15999 },
      { correlationId: 'm-hh-3', points: 2 },
    ]);
  });

  it('draws on own points only without the REDEEM privilege', async () => {
    const response = await update('m-hh-3', 'rt-hh3', { reservationAmount: 1000, offline: true });
    expect(response.body.errorMessage).toBe('Insufficient points balance');
    const fits = await update('m-hh-3', 'rt-hh3', { reservationAmount: 999, offline: true });
    expect(fits.status).toBe(200);
    expect(fits.body).not.toHaveProperty('household');
  });

  it('refuses more than the member has', async () => {
    const response = await update('m-solo', 'rt-solo', { reservationAmount: 101, offline: true });
    expect(response.status).toBe(400);
    expect(response.body.errorMessage).toBe('Insufficient points balance');
  });
});

describe('Operation B: tiers and the daily cap', () => {
  // tiered-app: tiers 1000, 2500, 5000; cap 6000 a day. m-tier has 10000 points and
  // holds 5000 in rt-tier, made today.
  const tiered = (token: string, body: unknown) => update('m-tier', token, body, keys.tiered);

  it.each([
    ['lowering to an amount off the tiers', 'rt-tier', { reservationAmount: 3000 }],
    ['creating an amount off the tiers', 'rt-t2', { reservationAmount: 3000, offline: true }],
  ])('refuses %s', async (_name, token, body) => {
    expect((await tiered(token, body)).body.errorMessage).toBe('Invalid tier amount');
  });

  it.each([
    ['lowering to a tier', 'rt-tier', { reservationAmount: 2500 }],
    ['lowering to 0', 'rt-tier', { reservationAmount: 0 }],
    ['creating 0', 'rt-t2', { reservationAmount: 0, offline: true }],
  ])('allows %s', async (_name, token, body) => {
    expect((await tiered(token, body)).status).toBe(200);
  });

  it('refuses a creation that passes the cap, unless excluded from it', async () => {
    expect((await tiered('rt-t2', { reservationAmount: 1000, offline: true })).status).toBe(200);
    const over = await tiered('rt-t3', { reservationAmount: 1000, offline: true });
    expect(over.body.errorMessage).toBe('Redemption cap exceeded');
    const excluded = await tiered('rt-t3', { reservationAmount: 1000, offline: true, isExcludedFromCap: true });
    expect(excluded.status).toBe(200);
    expect(excluded.body.availablePointBalance).toBe(3000);
  });

  it('never applies the cap to a lowering', async () => {
    await tiered('rt-t2', { reservationAmount: 1000, offline: true });
    expect((await tiered('rt-tier', { reservationAmount: 2500 })).status).toBe(200);
  });

  it('starts a new cap every UTC day', async () => {
    server.advance(12 * 3600); // t0 is 12:00 UTC
    const response = await tiered('rt-t4', { reservationAmount: 5000, offline: true });
    expect(response.status).toBe(200);
  });

  it('checks the cap before the balance', async () => {
    // partner-app's cap is 100000; alice reserved 11500 today and has 38500 available.
    const response = await update('m-alice', 'rt-huge', { reservationAmount: 90000, offline: true });
    expect(response.body.errorMessage).toBe('Redemption cap exceeded');
  });
});
