import { startTestApp, type TestApp } from '../../server/src/test-support/app-harness';
import type { ApiClient } from '../../server/src/test-support/api-client';
import { expectDocumentedBody } from '../../server/src/test-support/documented-response';
import { integrationFixture, keys, t0 } from '../support/fixture';

let server: TestApp;
let api: ApiClient;

beforeAll(async () => {
  server = await startTestApp({ fixture: integrationFixture, startAt: t0 });
  api = server.api;
});
afterAll(() => server.close());

const items = (entries: unknown[]) => ({ redemptionId: 'rd-100', redeemerId: 'm-alice', catalogueItems: entries });

interface Case {
  name: string;
  message: string;
  body: unknown;
  member?: string;
  token?: string;
  apiKey?: string;
  identifierType?: string;
  invalidCatalogueItems?: unknown[];
}

/** One row per documented message, and per way of reaching it. */
const cases: Case[] = [
  { name: 'a member that cannot redeem', message: 'Account is not eligible for redemption', member: 'm-blocked', body: { reservationAmount: 1 } },
  { name: 'a PHONE_NUMBER session', message: 'Account is not eligible for redemption', identifierType: 'PHONE_NUMBER', body: { reservationAmount: 1 } },
  { name: 'a PHONE_NUMBER session creating offline', message: 'Account is not eligible for redemption', identifierType: 'PHONE_NUMBER', token: 'rt-phone', body: { reservationAmount: 1, offline: true } },
  { name: 'an amount off the tiers', message: 'Invalid tier amount', apiKey: keys.tiered, member: 'm-tier', token: 'rt-tier', body: { reservationAmount: 3000 } },
  { name: 'an empty body', message: 'Either reservationAmount or catalogueItems is required', body: {} },
  { name: 'only flags', message: 'Either reservationAmount or catalogueItems is required', body: { extendedExpiry: true, offline: true } },
  { name: 'redemptionId alone', message: 'redemptionId and redeemerId, both are required', body: { reservationAmount: 1, redemptionId: 'rd-100' } },
  { name: 'redeemerId alone', message: 'redemptionId and redeemerId, both are required', body: { reservationAmount: 1, redeemerId: 'm-alice' } },
  { name: 'items without redemption ids', message: 'redemptionId and redeemerId, both are required', body: { catalogueItems: [{ productCode: '0000000001' }] } },
  {
    name: 'an unknown product code',
    message: 'Invalid catalogue item(s)',
    body: { reservationAmount: 10000, ...items([{ productCode: '9999999999', quantity: 1 }, { productCode: '0000000001' }, { productCode: '123' }]) },
    invalidCatalogueItems: [{ productCode: '9999999999', quantity: 1 }, { productCode: '123' }],
  },
  {
    name: 'quantities that are not positive numbers',
    message: 'Invalid catalogue item(s)',
    body: { reservationAmount: 10000, ...items([{ productCode: '0000000001', quantity: 0 }, { productCode: '0000000001', quantity: 1 }, { productCode: '0000000001', quantity: -2 }, { productCode: '0000000001', quantity: '2' }, { productCode: '0000000001', quantity: null }]) },
    invalidCatalogueItems: [
      { productCode: '0000000001', quantity: 0 },
      { productCode: '0000000001', quantity: -2 },
      { productCode: '0000000001', quantity: '2' },
      { productCode: '0000000001', quantity: null },
    ],
  },
  {
    name: 'a product code that is not a string',
    message: 'Invalid catalogue item(s)',
    body: { reservationAmount: 10000, ...items([{ productCode: 1, quantity: 1 }]) },
    invalidCatalogueItems: [{ productCode: 1, quantity: 1 }],
  },
  { name: 'an unknown token', message: 'Reservation Token is invalid', token: 'rt-nope', body: { reservationAmount: 1 } },
  { name: "another member's token", message: 'Reservation Token is invalid', token: 'rt-hh-1', body: { reservationAmount: 1 } },
  { name: "another client's token", message: 'Reservation Token is invalid', member: 'm-tier', token: 'rt-tier', body: { reservationAmount: 1 } },
  { name: 'an expired token', message: 'Reservation Token is invalid', token: 'rt-alice-expired', body: { reservationAmount: 1 } },
  { name: 'offline false', message: 'Reservation Token is invalid', token: 'rt-nope', body: { reservationAmount: 1, offline: false } },
  {
    name: 'items worth more than the amount',
    message: 'Total points for catalogue items should be less than or equal to the reservation amount',
    body: { reservationAmount: 5000, ...items([{ productCode: '0000000001', quantity: 3 }]) },
  },
  { name: 'a raised amount', message: 'New reservation amount cannot be greater than existing reservation amount', body: { reservationAmount: 10001 } },
  { name: 'an unknown redemption id', message: 'Invalid redemption identifier', body: { reservationAmount: 1, redemptionId: 'rd-999', redeemerId: 'm-alice' } },
  { name: 'a redeemer that does not own the redemption', message: 'Invalid Redeemer', body: { reservationAmount: 1, redemptionId: 'rd-100', redeemerId: 'm-hh-1' } },
  { name: 'a session of another identifier type', message: 'Reservation belongs to a different session', identifierType: 'EMAIL', body: { reservationAmount: 1 } },
  { name: 'a numeric channel', message: 'Channel should be a string value', body: { reservationAmount: 1, channel: 5 } },
  { name: 'an object channel', message: 'Channel should be a string value', body: { reservationAmount: 1, channel: { $gt: '' } } },
  { name: 'a null channel', message: 'Channel should be a string value', body: { reservationAmount: 1, channel: null } },
  { name: 'a string amount', message: 'Request does not match the API specification', body: { reservationAmount: '7500' } },
  { name: 'a negative amount', message: 'Request does not match the API specification', body: { reservationAmount: -1 } },
  { name: 'a fractional amount', message: 'Request does not match the API specification', body: { reservationAmount: 1.5 } },
  { name: 'an unknown field', message: 'Request does not match the API specification', body: { reservationAmount: 1, foo: 1 } },
  { name: 'a string flag', message: 'Request does not match the API specification', body: { reservationAmount: 1, offline: 'true' } },
  { name: 'an array body', message: 'Request does not match the API specification', body: [{ reservationAmount: 1 }] },
  { name: 'an operator object as amount', message: 'Request does not match the API specification', body: { reservationAmount: { $gt: 0 } } },
  // The documented order of checks (the spec's Operation B description):
  // each row breaks two rules and must get the earlier one's message.
  // Malformed entries and unknown product codes come back together, in
  // request order, whichever check meets the first of them.
  {
    name: 'a known item, an unknown code and a zero quantity',
    message: 'Invalid catalogue item(s)',
    body: { reservationAmount: 10000, ...items([{ productCode: '0000000001', quantity: 1 }, { productCode: 'NOPE', quantity: 1 }, { productCode: '0000000001', quantity: 0 }]) },
    invalidCatalogueItems: [{ productCode: 'NOPE', quantity: 1 }, { productCode: '0000000001', quantity: 0 }],
  },
  {
    name: 'an unknown code before a malformed entry',
    message: 'Invalid catalogue item(s)',
    body: { reservationAmount: 10000, ...items([{ productCode: '9999999999' }, { productCode: '0000000001', quantity: 0 }, { productCode: 7 }]) },
    invalidCatalogueItems: [{ productCode: '9999999999' }, { productCode: '0000000001', quantity: 0 }, { productCode: 7 }],
  },
  {
    name: 'order: malformed items before the token',
    message: 'Invalid catalogue item(s)',
    token: 'rt-nope',
    body: { reservationAmount: 1, ...items([{ productCode: 'NOPE' }, { productCode: '0000000001', quantity: 1.5 }]) },
    invalidCatalogueItems: [{ productCode: 'NOPE' }, { productCode: '0000000001', quantity: 1.5 }],
  },
  { name: 'order: token before redemption', message: 'Reservation Token is invalid', token: 'rt-nope', body: { reservationAmount: 1, redemptionId: 'rd-999', redeemerId: 'm-alice' } },
  { name: 'order: identifier type before redemption', message: 'Reservation belongs to a different session', identifierType: 'EMAIL', body: { reservationAmount: 1, redemptionId: 'rd-999', redeemerId: 'm-alice' } },
  { name: 'order: redeemer before items', message: 'Invalid Redeemer', body: { reservationAmount: 1, redemptionId: 'rd-100', redeemerId: 'm-hh-1', catalogueItems: [{ productCode: '9999999999' }] } },
  { name: 'order: items before tier', message: 'Invalid catalogue item(s)', apiKey: keys.tiered, member: 'm-tier', token: 'rt-tier', body: { reservationAmount: 3000, ...items([{ productCode: '9999999999' }]) } },
  { name: 'order: tier before amount', message: 'Invalid tier amount', apiKey: keys.tiered, member: 'm-tier', token: 'rt-tier', body: { reservationAmount: 6000 } },
  {
    name: 'order: amount before items total',
    message: 'New reservation amount cannot be greater than existing reservation amount',
    body: { reservationAmount: 10001, ...items([{ productCode: '0000000001', quantity: 6 }]) },
  },
  {
    name: 'order: items total before cap and balance',
    message: 'Total points for catalogue items should be less than or equal to the reservation amount',
    token: 'rt-new',
    body: { reservationAmount: 90000, offline: true, ...items([{ productCode: '0000000001', quantity: 50 }]) },
  },
];

// A bad quantity fails the schema, so the validator refuses the body; an
// unknown code only the catalogue knows. Operation B's body rules
// (features/reservations/body-rules.ts) ask it, and name both in one answer.
describe('a bad quantity and an unknown product code in one body: one answer names both, in request order', () => {
  const known = '0000000001';
  const unknown = { productCode: 'NOPE-1' };
  it.each<[string, unknown]>([
    ['a zero quantity', 0],
    ['a negative quantity', -1],
    ['a fractional quantity', 1.5],
    ['a string quantity', '2'],
    ['a null quantity', null],
    ['a quantity over 10000', 10001],
  ])('%s, before and after the unknown code', async (_name, quantity) => {
    const badQuantity = { productCode: known, quantity };
    const token = await api.startSession(keys.partner, 'm-alice');
    const before = await server.store.loadWallet('member:m-alice');
    for (const entries of [[badQuantity, { productCode: known }, unknown], [unknown, { productCode: known, quantity: 1 }, badQuantity]]) {
      const response = await api.updateReservation(keys.partner, token, 'm-alice', 'rt-alice-1', { reservationAmount: 10000, ...items(entries) });
      expect(response.status).toBe(400);
      expect(response.body).toEqual({
        statusCode: 400,
        errorCode: 'INVALID_REQUEST',
        errorMessage: 'Invalid catalogue item(s)',
        invalidCatalogueItems: entries.filter((entry) => entry !== entries[1]),
      });
      expectDocumentedBody('updateReservation', 400, response.body);
    }
    expect(await server.store.loadWallet('member:m-alice')).toEqual(before);
  });
});

describe('Operation B errors: 400 INVALID_REQUEST with the documented message, and nothing changes', () => {
  it.each(cases.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const member = c.member ?? 'm-alice';
    const apiKey = c.apiKey ?? keys.partner;
    const walletId = member.startsWith('m-hh') ? 'household:hh-1' : `member:${member}`;
    const before = await server.store.loadWallet(walletId);
    const token = await api.startSession(apiKey, member, c.identifierType ?? 'CARD_NUMBER');

    const response = await api.updateReservation(apiKey, token, member, c.token ?? 'rt-alice-1', c.body);

    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ statusCode: 400, errorCode: 'INVALID_REQUEST', errorMessage: c.message });
    if (c.invalidCatalogueItems) expect(response.body.invalidCatalogueItems).toEqual(c.invalidCatalogueItems);
    expect(JSON.stringify(response.body)).not.toMatch(/at .*\.(js|ts):\d+|Mongo|stack/);
    expect(await server.store.loadWallet(walletId)).toEqual(before);
  });

  it('answers malformed JSON with its own message', async () => {
    const token = await api.startSession(keys.partner, 'm-alice');
    const response = await api.call('PUT', '/client/users/m-alice/reservations/rt-alice-1', {
      apiKey: keys.partner,
      token,
      headers: { 'content-type': 'application/json' },
      rawBody: '{"reservationAmount": ',
    });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ statusCode: 400, errorCode: 'INVALID_REQUEST', errorMessage: 'Malformed JSON in request body' });
  });

  it('answers 415 for a body that is not JSON', async () => {
    const token = await api.startSession(keys.partner, 'm-alice');
    const response = await api.call('PUT', '/client/users/m-alice/reservations/rt-alice-1', {
      apiKey: keys.partner,
      token,
      headers: { 'content-type': 'text/plain' },
      rawBody: 'reservationAmount=1',
    });
    expect(response.status).toBe(415);
    expect(response.body).toMatchObject({ statusCode: 415, errorCode: 'UNSUPPORTED_MEDIA_TYPE' });
  });

  it('refuses a deeply nested body before anything walks it', async () => {
    const token = await api.startSession(keys.partner, 'm-alice');
    let nested: unknown = 'x';
    for (let i = 0; i < 2000; i++) nested = { a: nested }; // about 12 KiB: under the size limit
    const body = { reservationAmount: 10000, redemptionId: 'rd-100', redeemerId: 'm-alice', catalogueItems: [{ productCode: nested }] };
    const response = await api.updateReservation(keys.partner, token, 'm-alice', 'rt-alice-1', body);
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ errorCode: 'INVALID_REQUEST', errorMessage: 'Request does not match the API specification' });
  });

  it('answers 415 for a compressed body', async () => {
    const token = await api.startSession(keys.partner, 'm-alice');
    const response = await api.call('PUT', '/client/users/m-alice/reservations/rt-alice-1', {
      apiKey: keys.partner,
      token,
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      rawBody: 'not really gzip',
    });
    expect(response.status).toBe(415);
    expect(response.body).toMatchObject({ statusCode: 415, errorCode: 'UNSUPPORTED_MEDIA_TYPE' });
  });

  it('answers 413 for a body over the limit', async () => {
    const token = await api.startSession(keys.partner, 'm-alice');
    const response = await api.updateReservation(keys.partner, token, 'm-alice', 'rt-alice-1', {
      reservationAmount: 1,
      channel: 'x'.repeat(20000),
    });
    expect(response.status).toBe(413);
    expect(response.body).toMatchObject({ statusCode: 413, errorCode: 'PAYLOAD_TOO_LARGE' });
  });
});
