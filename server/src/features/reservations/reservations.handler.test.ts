import { reservationError, type ReservationErrorMessage } from '../../domain/errors';
import { expectDocumentedBody } from '../../test-support/documented-response';
import { aliceSession, asAlice, reservationResult, startFakeApp, type FakeApp } from '../../test-support/fake-services';
import { type SendInit } from '../../test-support/api-client';

let app: FakeApp;
beforeAll(async () => {
  app = await startFakeApp({ bodyLimitBytes: 1024 });
});
afterAll(() => app.close());
beforeEach(() => jest.clearAllMocks());

const path = '/client/users/m-alice/reservations/rt-alice-1';
const update = (json: unknown, init: SendInit = asAlice) => app.send('PUT', path, { ...init, json });
const sendRaw = (rawBody: string, contentType: string, init: SendInit = asAlice) =>
  app.send('PUT', path, { ...init, rawBody, headers: { 'content-type': contentType } });

const pair = { redemptionId: 'rd-100', redeemerId: 'm-alice' };

/** Every 400 of Operation B must fit the spec's ReservationUpdateError (its message enum included). */
function expectOperationBError(response: { status: number; body: unknown }, message: ReservationErrorMessage): void {
  expect(response.status).toBe(400);
  expect(response.body).toMatchObject({ statusCode: 400, errorCode: 'INVALID_REQUEST', errorMessage: message });
  expectDocumentedBody('updateReservation', 400, response.body);
}

describe('PUT /client/users/{correlation_id}/reservations/{reservation_token}', () => {
  it('answers 200 with what the service returns', async () => {
    const response = await update({ reservationAmount: 7500 });
    expect(response.status).toBe(200);
    expect(response.body).toEqual(reservationResult);
  });

  it('hands the service its context and the body as sent', async () => {
    const body = { reservationAmount: 4000, ...pair, catalogueItems: [{ productCode: '0000000001', quantity: 2 }], channel: 'CUX' };
    await update(body);
    expect(app.services.reservations.updateReservation).toHaveBeenCalledWith(
      {
        client: expect.objectContaining({ clientId: 'client-partner' }),
        session: aliceSession,
        correlationId: 'm-alice',
        reservationToken: 'rt-alice-1',
      },
      body,
    );
  });

  it('answers an item-level result with its items', async () => {
    const itemLevel = {
      ...reservationResult,
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
          messages: { 'en-CA': { promptText: 'Redeem for a coffee?' } },
        },
      ],
      household: { pointsBalance: 50000, availablePointsBalance: 45000 },
    };
    app.services.reservations.updateReservation.mockResolvedValueOnce(itemLevel);
    const response = await update({ ...pair, catalogueItems: [{ productCode: '0000000001', quantity: 2 }] });
    expect(response.status).toBe(200);
    expect(response.body).toEqual(itemLevel);
  });

  describe("the documented messages win over the validator's wording", () => {
    it.each<[string, unknown, ReservationErrorMessage]>([
      ['a numeric channel with a bad amount', { reservationAmount: 'x', channel: 5 }, 'Channel should be a string value'],
      ['no amount and no items, with an unknown field', { foo: 1 }, 'Either reservationAmount or catalogueItems is required'],
      ['a lone redeemerId with a bad amount', { reservationAmount: -1, redeemerId: 'm-alice' }, 'redemptionId and redeemerId, both are required'],
      ['items without the ids, one of them malformed', { catalogueItems: [{ productCode: 1 }] }, 'redemptionId and redeemerId, both are required'],
      ['a zero quantity', { ...pair, catalogueItems: [{ productCode: 'p', quantity: 0 }] }, 'Invalid catalogue item(s)'],
    ])('%s', async (_case, body, message) => {
      expectOperationBError(await update(body), message);
      expect(app.services.reservations.updateReservation).not.toHaveBeenCalled();
    });

    // The service checks the redemption pair first (body-rules.test.ts); here it is a fake.
    it('a body the schema accepts goes to the service, the redemption pair unchecked', async () => {
      const body = { reservationAmount: 1, redeemerId: 'm-alice' };
      expect((await update(body)).status).toBe(200);
      expect(app.services.reservations.updateReservation).toHaveBeenCalledWith(expect.anything(), body);
    });

    it('lists the malformed items exactly as sent', async () => {
      const items = [{ productCode: 'ok' }, { productCode: '', quantity: 1 }, { productCode: 'p', quantity: '2' }];
      const response = await update({ ...pair, catalogueItems: items });
      expect(response.body).toEqual({
        statusCode: 400,
        errorCode: 'INVALID_REQUEST',
        errorMessage: 'Invalid catalogue item(s)',
        invalidCatalogueItems: [items[1], items[2]],
      });
      expectDocumentedBody('updateReservation', 400, response.body);
    });
  });

  describe('a body that breaks the schema: 400 with details', () => {
    it.each<[string, unknown, { path: string; message: string }]>([
      ['a string amount', { reservationAmount: '7500' }, { path: '/body/reservationAmount', message: 'must be integer' }],
      ['a fractional amount', { reservationAmount: 1.5 }, { path: '/body/reservationAmount', message: 'must be integer' }],
      ['a negative amount', { reservationAmount: -1 }, { path: '/body/reservationAmount', message: 'must be >= 0' }],
      ['a string flag', { reservationAmount: 1, offline: 'true' }, { path: '/body/offline', message: 'must be boolean' }],
      ['an unknown field', { reservationAmount: 1, foo: 1 }, { path: '/body/foo', message: 'must NOT have additional properties' }],
      ['an array body', [{ reservationAmount: 1 }], { path: '/body', message: 'must be object' }],
      ['an entry that is not an object', { ...pair, catalogueItems: ['p'] }, { path: '/body/catalogueItems/0', message: 'must be object' }],
    ])('%s', async (_case, body, detail) => {
      const response = await update(body);
      expectOperationBError(response, 'Request does not match the API specification');
      expect(response.body.details).toEqual([detail]);
    });

    it('a reservation token over 128 characters', async () => {
      const response = await app.send('PUT', `/client/users/m-alice/reservations/${'t'.repeat(129)}`, { ...asAlice, json: { reservationAmount: 1 } });
      expectOperationBError(response, 'Request does not match the API specification');
      expect(response.body.details).toEqual([{ path: '/params/reservation_token', message: 'must NOT have more than 128 characters' }]);
    });
  });

  describe('a body that is not JSON', () => {
    it('malformed JSON: 400 with its own message', async () => {
      const response = await sendRaw('{"reservationAmount": ', 'application/json');
      expect(response.body).toEqual({ statusCode: 400, errorCode: 'INVALID_REQUEST', errorMessage: 'Malformed JSON in request body' });
      expectOperationBError(response, 'Malformed JSON in request body');
    });

    it('no body at all: 400, the body must be an object', async () => {
      const response = await app.send('PUT', path, asAlice);
      expectOperationBError(response, 'Request does not match the API specification');
    });

    it.each([
      ['text/plain', 'text/plain', 'Content-Type must be application/json'],
      ['form data', 'application/x-www-form-urlencoded', 'Content-Type must be application/json'],
      ['JSON in another charset', 'application/json; charset=latin1', 'Content-Type must be application/json (UTF-8)'],
    ])('%s: 415 UNSUPPORTED_MEDIA_TYPE', async (_case, contentType, message) => {
      const response = await sendRaw('{"reservationAmount": 1}', contentType);
      expect(response.status).toBe(415);
      expect(response.body).toEqual({ statusCode: 415, errorCode: 'UNSUPPORTED_MEDIA_TYPE', errorMessage: message });
      expectDocumentedBody('updateReservation', 415, response.body);
    });

    it('a body over the limit: 413 PAYLOAD_TOO_LARGE', async () => {
      const response = await update({ reservationAmount: 1, channel: 'x'.repeat(2000) });
      expect(response.status).toBe(413);
      expect(response.body).toEqual({ statusCode: 413, errorCode: 'PAYLOAD_TOO_LARGE', errorMessage: 'Request body is too large' });
      expectDocumentedBody('updateReservation', 413, response.body);
    });
  });

  // Malformed JSON is found while the body is read, the same step that enforces its size.
  describe('order of checks: the session, then reading the body (type, size, JSON), then the body', () => {
    const noSession: SendInit = {};
    it.each<[string, () => ReturnType<typeof update>, number]>([
      ['the session before the content type', () => sendRaw('x', 'text/plain', noSession), 401],
      ['the session before the body size', () => update({ channel: 'x'.repeat(2000) }, noSession), 401],
      ['the session before parsing the JSON', () => sendRaw('{', 'application/json', noSession), 401],
      ['415 with a session', () => sendRaw('x', 'text/plain'), 415],
      ['413 with a session', () => update({ channel: 'x'.repeat(2000) }), 413],
      ['malformed JSON with a session', () => sendRaw('{', 'application/json'), 400],
      ['the session before the body rules', () => update({}, noSession), 401],
      ['the session before the schema', () => update({ reservationAmount: 'x' }, noSession), 401],
    ])('%s', async (_case, send, status) => {
      expect((await send()).status).toBe(status);
    });
  });

  it('passes the service errors through with their message', async () => {
    app.services.reservations.updateReservation.mockRejectedValueOnce(reservationError('Reservation Token is invalid'));
    const response = await update({ reservationAmount: 1 });
    expect(response.body).toEqual({ statusCode: 400, errorCode: 'INVALID_REQUEST', errorMessage: 'Reservation Token is invalid' });
  });
});
