/**
 * Operation B (`PUT /client/users/{correlation_id}/reservations/{reservation_token}`)
 * as the SDK's `updateReservation` calls it: plain lowering, household
 * return, item-level redemption, offline creation, each of the operation's
 * error messages, and every other documented status (the 401 and 429 every
 * operation shares: shared-answers.pact.test.ts).
 *
 * Some requests break the SDK's types on purpose (a string amount, a
 * numeric channel, a body with neither amount nor items): a partner app
 * built without the types, or with a cast, can send them, and the SDK must
 * still hand back the documented error. A double-encoded body and a body
 * that is not JSON go through the SDK's raw openapi-fetch client, the only
 * way the SDK can send them.
 */
import { MatchersV3 } from '@pact-foundation/pact';
import { sessionAuth, type ReservationUpdateErrorMessage, type ReservationUpdateRequest } from '@loyalty/sdk';
import { apiKeys, placeholderSessionToken, states } from '../shared/contract';
import {
  alice,
  aliceExists,
  aliceHolds,
  createPact,
  errorBody,
  exampleSessionId,
  expectError,
  forbidden,
  headersTooLarge,
  interaction,
  internalError,
  jsonContentType,
  memberHeaders,
  oversizedHeader,
  pageHeaders,
  pageSdk,
  regex,
  reservationPath,
  sdk,
  serviceUnavailable,
  settled,
  state,
  type StateSpec,
  successHeaders,
  uuidPattern,
} from './support';

const { eachLike, like, equal, integer, string } = MatchersV3;

const pact = createPact();

const coffeeRedemption = state(states.redemptionExists, {
  redemptionId: 'rd-100',
  redeemerId: alice,
  productCode: '0000000001',
  pointsAmount: 2000,
});

/** The fields of every successful update; the token is echoed from the path, so it is matched exactly. */
function updated(reservationToken: string, balances: { available: number; total: number }) {
  return {
    reservationToken: equal(reservationToken),
    reservationDuration: integer(900),
    availablePointBalance: integer(balances.available),
    pointBalance: integer(balances.total),
    sessionId: regex(uuidPattern, exampleSessionId),
  };
}

interface UpdateCall {
  correlationId?: string;
  reservationToken?: string;
  body: unknown;
  requestId: string;
  token?: string;
  apiKey?: string;
}

/** The SDK's updateReservation; `body` is cast where a case sends what the SDK's types refuse. */
function update(baseUrl: string, call: UpdateCall) {
  return sdk(baseUrl, call.apiKey).updateReservation({
    correlationId: call.correlationId ?? alice,
    reservationToken: call.reservationToken ?? 'rt-alice-1',
    sessionToken: call.token ?? placeholderSessionToken,
    body: call.body as ReservationUpdateRequest,
    requestId: call.requestId,
  });
}

describe('updateReservation: 200', () => {
  it('lowers a reservation, the difference going back to the member', () => {
    const requestId = 'contract-update-200-lower';
    return interaction(pact, 'a request to lower a reservation', aliceHolds('rt-alice-1', 10000))
      .withRequest('PUT', reservationPath(alice, 'rt-alice-1'), (req) =>
        req.headers(memberHeaders(requestId)).jsonBody({ reservationAmount: 7500 }),
      )
      .willRespondWith(200, (res) =>
        res.headers(successHeaders(requestId)).jsonBody(updated('rt-alice-1', { available: 42500, total: 50000 })),
      )
      .executeTest(settled(async (mock) => {
        const result = await update(mock.url, { body: { reservationAmount: 7500 }, requestId });
        expect(result.response.status).toBe(200);
        expect(result.data).toEqual({
          reservationToken: 'rt-alice-1',
          reservationDuration: 900,
          availablePointBalance: 42500,
          pointBalance: 50000,
          sessionId: exampleSessionId,
        });
      }));
  });

  it("lowers a reservation from the partner's page, with its publishable key from its origin", () => {
    const requestId = 'contract-update-200-page';
    return interaction(pact, "a request from the partner's page to lower a reservation", aliceHolds('rt-alice-1', 10000))
      .withRequest('PUT', reservationPath(alice, 'rt-alice-1'), (req) => req.headers(pageHeaders(requestId)).jsonBody({ reservationAmount: 7500 }))
      .willRespondWith(200, (res) => res.headers(successHeaders(requestId)).jsonBody(updated('rt-alice-1', { available: 42500, total: 50000 })))
      .executeTest(settled(async (mock) => {
        // The session token the partner's server started with its secret key, handed to the page.
        const result = await pageSdk(mock.url).updateReservation({
          correlationId: alice,
          reservationToken: 'rt-alice-1',
          sessionToken: placeholderSessionToken,
          body: { reservationAmount: 7500 },
          requestId,
        });
        expect(result.response.status).toBe(200);
        expect(result.data).toMatchObject({ reservationToken: 'rt-alice-1', availablePointBalance: 42500 });
      }));
  });

  it('lowers a household reservation, with the household totals', () => {
    const requestId = 'contract-update-200-household';
    const path = reservationPath('m-hh-1', 'rt-hh-1');
    return interaction(
      pact,
      'a request to lower a household reservation',
      state(states.householdMemberHoldsReservation, {
        correlationId: 'm-hh-1',
        householdId: 'hh-1',
        reservationToken: 'rt-hh-1',
        contributions: [
          { correlationId: 'm-hh-1', points: 6000 },
          { correlationId: 'm-hh-2', points: 4000 },
        ],
      }),
    )
      .withRequest('PUT', path, (req) => req.headers(memberHeaders(requestId)).jsonBody({ reservationAmount: 7500 }))
      .willRespondWith(200, (res) =>
        res.headers(successHeaders(requestId)).jsonBody({
          ...updated('rt-hh-1', { available: 27000, total: 30000 }),
          household: { pointsBalance: integer(50000), availablePointsBalance: integer(45000) },
        }),
      )
      .executeTest(settled(async (mock) => {
        const result = await update(mock.url, { correlationId: 'm-hh-1', reservationToken: 'rt-hh-1', body: { reservationAmount: 7500 }, requestId });
        expect(result.response.status).toBe(200);
        expect(result.data?.household).toEqual({ pointsBalance: 50000, availablePointsBalance: 45000 });
      }));
  });

  it('redeems catalogue items, with the redemption name and the items resolved', () => {
    const requestId = 'contract-update-200-items';
    const body = {
      reservationAmount: 4000,
      redemptionId: 'rd-100',
      redeemerId: alice,
      catalogueItems: [{ productCode: '0000000001', quantity: 2 }],
    };
    return interaction(pact, 'a request to redeem catalogue items against a reservation', aliceHolds('rt-alice-1', 10000), coffeeRedemption)
      .withRequest('PUT', reservationPath(alice, 'rt-alice-1'), (req) => req.headers(memberHeaders(requestId)).jsonBody(body))
      .willRespondWith(200, (res) =>
        res.headers(successHeaders(requestId)).jsonBody({
          ...updated('rt-alice-1', { available: 46000, total: 50000 }),
          redemptionName: string('In-store coffee'),
          catalogueItemsData: eachLike({
            // Echoed from the request.
            productCode: equal('0000000001'),
            quantity: equal(2),
            catalogueItemId: string('ci-coffee'),
            catalogueItemName: string('Medium coffee'),
            redemptionType: string('TENDER'),
            pointsAmount: integer(2000),
            totalPointsAmount: integer(4000),
            messages: like({
              'en-CA': {
                promptText: 'Redeem for a coffee?',
                receiptTextLong: 'Coffee redeemed with points',
                receiptTextShort: 'Coffee',
              },
            }),
          }),
        }),
      )
      .executeTest(settled(async (mock) => {
        const result = await update(mock.url, { body, requestId });
        expect(result.response.status).toBe(200);
        expect(result.data?.redemptionName).toBe('In-store coffee');
        expect(result.data?.catalogueItemsData?.[0]).toMatchObject({ productCode: '0000000001', quantity: 2, totalPointsAmount: 4000 });
      }));
  });

  it('creates a reservation offline under an unknown token', () => {
    const requestId = 'contract-update-200-offline';
    const body = { reservationAmount: 3000, offline: true, isExcludedFromCap: false, channel: 'CUX' };
    return interaction(
      pact,
      'a request to create a reservation offline',
      aliceExists,
      state(states.noReservation, { correlationId: alice, reservationToken: 'rt-alice-offline' }),
    )
      .withRequest('PUT', reservationPath(alice, 'rt-alice-offline'), (req) => req.headers(memberHeaders(requestId)).jsonBody(body))
      .willRespondWith(200, (res) =>
        res.headers(successHeaders(requestId)).jsonBody(updated('rt-alice-offline', { available: 47000, total: 50000 })),
      )
      .executeTest(settled(async (mock) => {
        const result = await update(mock.url, { reservationToken: 'rt-alice-offline', body, requestId });
        expect(result.response.status).toBe(200);
        expect(result.data?.reservationToken).toBe('rt-alice-offline');
      }));
  });
});

// --- 400: one interaction per documented message ----------------------------

interface MessageCase {
  name: string;
  message: ReservationUpdateErrorMessage;
  given: StateSpec[];
  body: unknown;
  correlationId?: string;
  reservationToken?: string;
  extra?: Record<string, unknown>;
}

const items = (catalogueItems: unknown[]) => ({ redemptionId: 'rd-100', redeemerId: alice, catalogueItems });

const messageCases: MessageCase[] = [
  {
    name: 'a member that cannot redeem',
    message: 'Account is not eligible for redemption',
    correlationId: 'm-blocked',
    reservationToken: 'rt-blocked-1',
    given: [state(states.memberIsNotEligible, { correlationId: 'm-blocked', reservationToken: 'rt-blocked-1' })],
    body: { reservationAmount: 500 },
  },
  {
    name: 'a PHONE_NUMBER session',
    message: 'Account is not eligible for redemption',
    given: [aliceHolds('rt-alice-1', 10000), state(states.sessionIdentifierType, { identifierType: 'PHONE_NUMBER' })],
    body: { reservationAmount: 5000 },
  },
  {
    name: 'an amount off the client tiers',
    message: 'Invalid tier amount',
    given: [aliceHolds('rt-alice-1', 5000), state(states.clientTiers, { redemptionTiers: [1000, 2500, 5000] })],
    body: { reservationAmount: 3000 },
  },
  {
    name: 'neither an amount nor items',
    message: 'Either reservationAmount or catalogueItems is required',
    given: [aliceHolds('rt-alice-1', 10000)],
    body: { extendedExpiry: true },
  },
  {
    name: 'a redemption id without a redeemer id',
    message: 'redemptionId and redeemerId, both are required',
    given: [aliceHolds('rt-alice-1', 10000), coffeeRedemption],
    body: { reservationAmount: 4000, redemptionId: 'rd-100' },
  },
  {
    name: 'an unknown product code',
    message: 'Invalid catalogue item(s)',
    given: [aliceHolds('rt-alice-1', 10000), coffeeRedemption],
    body: { reservationAmount: 10000, ...items([{ productCode: '9999999999', quantity: 1 }, { productCode: '0000000001' }]) },
    // The offending entries exactly as sent, in request order: the contract.
    extra: { invalidCatalogueItems: [{ productCode: '9999999999', quantity: 1 }] },
  },
  {
    name: 'malformed entries and an unknown product code together',
    message: 'Invalid catalogue item(s)',
    given: [aliceHolds('rt-alice-1', 10000), coffeeRedemption],
    body: {
      reservationAmount: 10000,
      ...items([{ productCode: '0000000001', quantity: 1 }, { productCode: 'NOPE', quantity: 1 }, { productCode: '0000000001', quantity: 0 }, { productCode: 7 }]),
    },
    // Every offending entry in one answer, whichever check met the first of them.
    extra: { invalidCatalogueItems: [{ productCode: 'NOPE', quantity: 1 }, { productCode: '0000000001', quantity: 0 }, { productCode: 7 }] },
  },
  {
    name: 'an unknown reservation token',
    message: 'Reservation Token is invalid',
    reservationToken: 'rt-unknown',
    given: [
      aliceExists,
      state(states.noReservation, { correlationId: alice, reservationToken: 'rt-unknown' }),
    ],
    body: { reservationAmount: 1000 },
  },
  {
    name: 'items worth more than the amount',
    message: 'Total points for catalogue items should be less than or equal to the reservation amount',
    given: [aliceHolds('rt-alice-1', 10000), coffeeRedemption],
    body: { reservationAmount: 5000, ...items([{ productCode: '0000000001', quantity: 3 }]) },
  },
  {
    name: 'a raised amount',
    message: 'New reservation amount cannot be greater than existing reservation amount',
    given: [aliceHolds('rt-alice-1', 10000)],
    body: { reservationAmount: 10001 },
  },
  {
    name: 'an unknown redemption id',
    message: 'Invalid redemption identifier',
    given: [aliceHolds('rt-alice-1', 10000), coffeeRedemption],
    body: { reservationAmount: 4000, redemptionId: 'rd-999', redeemerId: alice },
  },
  {
    name: 'a redeemer that does not own the redemption',
    message: 'Invalid Redeemer',
    given: [aliceHolds('rt-alice-1', 10000), coffeeRedemption],
    body: { reservationAmount: 4000, redemptionId: 'rd-100', redeemerId: 'm-someone-else' },
  },
  {
    name: 'a session of another identifier type than the reservation',
    message: 'Reservation belongs to a different session',
    reservationToken: 'rt-alice-email',
    given: [aliceHolds('rt-alice-email', 1000, 'EMAIL')],
    body: { reservationAmount: 500 },
  },
  {
    name: 'a channel that is not a string',
    message: 'Channel should be a string value',
    given: [aliceHolds('rt-alice-1', 10000)],
    body: { reservationAmount: 7500, channel: 5 },
  },
  {
    name: 'a new reservation over the daily cap',
    message: 'Redemption cap exceeded',
    correlationId: 'm-capped',
    reservationToken: 'rt-capped-new',
    given: [
      state(states.memberExists, { correlationId: 'm-capped', pointBalance: 50000 }),
      state(states.noReservation, { correlationId: 'm-capped', reservationToken: 'rt-capped-new' }),
      state(states.clientDailyCap, { dailyRedemptionCap: 5000 }),
    ],
    body: { reservationAmount: 6000, offline: true },
  },
  {
    name: 'a new reservation over the available balance',
    message: 'Insufficient points balance',
    correlationId: 'm-solo',
    reservationToken: 'rt-solo-new',
    given: [
      state(states.memberExists, { correlationId: 'm-solo', pointBalance: 100 }),
      state(states.noReservation, { correlationId: 'm-solo', reservationToken: 'rt-solo-new' }),
    ],
    body: { reservationAmount: 101, offline: true },
  },
  {
    name: 'a new reservation in a wallet that holds as many live reservations as it may',
    message: 'Too many active reservations',
    correlationId: 'm-full',
    reservationToken: 'rt-full-new',
    given: [
      state(states.walletFull, { correlationId: 'm-full' }),
      state(states.noReservation, { correlationId: 'm-full', reservationToken: 'rt-full-new' }),
    ],
    body: { reservationAmount: 1, offline: true },
  },
  {
    name: 'an amount of the wrong type',
    message: 'Request does not match the API specification',
    given: [aliceHolds('rt-alice-1', 10000)],
    body: { reservationAmount: '7500' },
    extra: {
      details: eachLike({ path: string('/body/reservationAmount'), message: string('must be integer') }),
    },
  },
];

describe('updateReservation: 400 INVALID_REQUEST with each documented message', () => {
  it.each(messageCases.map((c) => [`${c.message} (${c.name})`, c] as const))('%s', (_title, c) => {
    const correlationId = c.correlationId ?? alice;
    const reservationToken = c.reservationToken ?? 'rt-alice-1';
    const requestId = `contract-update-400-${messageCases.indexOf(c) + 1}`;
    return interaction(pact, `a request to update a reservation with ${c.name}`, ...c.given)
      .withRequest('PUT', reservationPath(correlationId, reservationToken), (req) =>
        req.headers(memberHeaders(requestId)).jsonBody(c.body),
      )
      .willRespondWith(400, (res) => res.headers(jsonContentType).jsonBody({ ...errorBody(400, 'INVALID_REQUEST', c.message), ...c.extra }))
      .executeTest(settled(async (mock) => {
        const result = await update(mock.url, { correlationId, reservationToken, body: c.body, requestId });
        expect(result.response.status).toBe(400);
        expect(result.error).toMatchObject({ statusCode: 400, errorCode: 'INVALID_REQUEST', errorMessage: c.message });
      }));
  });

  /*
   * Pact's mock server parses every application/json body, so a body that is
   * not JSON at all cannot be written into a pact. What it can carry, and what
   * the server refuses with this message, is JSON that is not an object: a
   * body encoded twice, a classic partner-app bug (the server's parser is
   * strict, objects and arrays only).
   */
  it('Malformed JSON in request body (a double-encoded body, through the raw client)', () => {
    const requestId = 'contract-update-400-malformed-json';
    const doubleEncoded = JSON.stringify({ reservationAmount: 7500 });
    return interaction(pact, 'a request to update a reservation with a double-encoded JSON body', aliceHolds('rt-alice-1', 10000))
      .withRequest('PUT', reservationPath(alice, 'rt-alice-1'), (req) =>
        req.headers(memberHeaders(requestId)).body('application/json', Buffer.from(JSON.stringify(doubleEncoded))),
      )
      .willRespondWith(400, (res) =>
        res.headers(jsonContentType).jsonBody(errorBody(400, 'INVALID_REQUEST', 'Malformed JSON in request body')),
      )
      .executeTest(settled(async (mock) => {
        const result = await sdk(mock.url).raw.PUT('/client/users/{correlation_id}/reservations/{reservation_token}', {
          params: { path: { correlation_id: alice, reservation_token: 'rt-alice-1' } },
          body: { reservationAmount: 7500 },
          bodySerializer: (body) => JSON.stringify(JSON.stringify(body)),
          headers: { 'X-Request-Id': requestId },
          middleware: [sessionAuth(placeholderSessionToken)],
        });
        expect(result.response.status).toBe(400);
        expect(result.error).toMatchObject({ errorCode: 'INVALID_REQUEST', errorMessage: 'Malformed JSON in request body' });
      }));
  });
});

// --- other statuses ------------------------------------------------------------

describe('updateReservation: other statuses', () => {
  it('403: refuses the publishable key without Origin (not from a page), changing nothing', () => {
    const requestId = 'contract-update-403-no-origin';
    return interaction(pact, 'a request to update a reservation with the publishable key, without Origin', aliceHolds('rt-alice-1', 10000))
      .withRequest('PUT', reservationPath(alice, 'rt-alice-1'), (req) =>
        req.headers(memberHeaders(requestId, undefined, apiKeys.partnerPage)).jsonBody({ reservationAmount: 7500 }),
      )
      .willRespondWith(403, forbidden('A publishable key works only from a page on one of its origins'))
      .executeTest(settled(async (mock) => {
        const result = await update(mock.url, { body: { reservationAmount: 7500 }, apiKey: apiKeys.partnerPage, requestId });
        expectError(result, 403, 'FORBIDDEN');
      }));
  });

  it('413: refuses a body larger than the server accepts', () => {
    const requestId = 'contract-update-413';
    const body = { reservationAmount: 7500, channel: 'x'.repeat(20_000) };
    return interaction(pact, 'a request to update a reservation with a body that is too large', aliceHolds('rt-alice-1', 10000))
      .withRequest('PUT', reservationPath(alice, 'rt-alice-1'), (req) => req.headers(memberHeaders(requestId)).jsonBody(body))
      .willRespondWith(413, (res) =>
        res.headers(jsonContentType).jsonBody(errorBody(413, 'PAYLOAD_TOO_LARGE', { example: 'Request body is too large' })),
      )
      .executeTest(settled(async (mock) => {
        const result = await update(mock.url, { body, requestId });
        expectError(result, 413, 'PAYLOAD_TOO_LARGE');
      }));
  });

  it('415: refuses a body that is not JSON (through the raw client)', () => {
    const requestId = 'contract-update-415';
    return interaction(pact, 'a request to update a reservation with a body that is not JSON', aliceHolds('rt-alice-1', 10000))
      .withRequest('PUT', reservationPath(alice, 'rt-alice-1'), (req) =>
        req.headers(memberHeaders(requestId)).body('text/plain', Buffer.from('reservationAmount=7500')),
      )
      .willRespondWith(415, (res) =>
        res
          .headers(jsonContentType)
          .jsonBody(errorBody(415, 'UNSUPPORTED_MEDIA_TYPE', { example: 'Content-Type must be application/json' })),
      )
      .executeTest(settled(async (mock) => {
        const result = await sdk(mock.url).raw.PUT('/client/users/{correlation_id}/reservations/{reservation_token}', {
          params: { path: { correlation_id: alice, reservation_token: 'rt-alice-1' } },
          body: { reservationAmount: 7500 },
          bodySerializer: () => 'reservationAmount=7500',
          headers: { 'Content-Type': 'text/plain', 'X-Request-Id': requestId },
          middleware: [sessionAuth(placeholderSessionToken)],
        });
        expectError(result, 415, 'UNSUPPORTED_MEDIA_TYPE');
      }));
  });

  it('431: refuses headers over 16 KiB', () => {
    const requestId = 'contract-update-431';
    return interaction(pact, 'a request to update a reservation with headers over 16 KiB', aliceHolds('rt-alice-1', 10000))
      .withRequest('PUT', reservationPath(alice, 'rt-alice-1'), (req) =>
        req.headers({ ...memberHeaders(requestId), ...oversizedHeader }).jsonBody({ reservationAmount: 7500 }),
      )
      .willRespondWith(431, headersTooLarge)
      .executeTest(settled(async (mock) => {
        // The raw client: the SDK's own calls send no header of the app's.
        const result = await sdk(mock.url).raw.PUT('/client/users/{correlation_id}/reservations/{reservation_token}', {
          params: { path: { correlation_id: alice, reservation_token: 'rt-alice-1' } },
          body: { reservationAmount: 7500 },
          headers: { 'X-Request-Id': requestId, ...oversizedHeader },
          middleware: [sessionAuth(placeholderSessionToken)],
        });
        expectError(result, 431, 'REQUEST_HEADERS_TOO_LARGE');
      }));
  });

  it('500: answers INTERNAL_ERROR when the store fails unexpectedly', () => {
    const requestId = 'contract-update-500';
    return interaction(pact, 'a request to update a reservation while the store fails', aliceHolds('rt-alice-1', 10000), state(states.storeFails, {}))
      .withRequest('PUT', reservationPath(alice, 'rt-alice-1'), (req) =>
        req.headers(memberHeaders(requestId)).jsonBody({ reservationAmount: 7500 }),
      )
      .willRespondWith(500, internalError)
      .executeTest(settled(async (mock) => {
        const result = await update(mock.url, { body: { reservationAmount: 7500 }, requestId });
        expectError(result, 500, 'INTERNAL_ERROR');
      }));
  });

  it('503: answers SERVICE_UNAVAILABLE when the store is unavailable', () => {
    const requestId = 'contract-update-503';
    return interaction(
      pact,
      'a request to update a reservation while the store is unavailable',
      aliceHolds('rt-alice-1', 10000),
      state(states.storeUnavailable, {}),
    )
      .withRequest('PUT', reservationPath(alice, 'rt-alice-1'), (req) =>
        req.headers(memberHeaders(requestId)).jsonBody({ reservationAmount: 7500 }),
      )
      .willRespondWith(503, serviceUnavailable)
      .executeTest(settled(async (mock) => {
        const result = await update(mock.url, { body: { reservationAmount: 7500 }, requestId });
        expectError(result, 503, 'SERVICE_UNAVAILABLE');
      }));
  });
});
