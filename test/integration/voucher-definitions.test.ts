import { startTestApp, type TestApp } from '../../server/src/test-support/app-harness';
import { send, type ApiClient } from '../../server/src/test-support/api-client';
import { definitionRecord } from '../../server/src/store/test-support/records';
import { integrationFixture, keys, t0 } from '../support/fixture';

let server: TestApp;
let api: ApiClient;

beforeAll(async () => {
  server = await startTestApp({ fixture: integrationFixture, startAt: t0 });
  api = server.api;
});
afterAll(() => server.close());

async function list(apiKey: string, businessUnit?: string) {
  const token = await api.startSession(apiKey, 'm-alice');
  return api.listVouchers(apiKey, token, 'm-alice', businessUnit);
}

describe('Operation A: list voucher definitions', () => {
  it('lists published CUX-usable definitions of the default business unit, by id', async () => {
    const response = await list(keys.partner);
    expect(response.status).toBe(200);
    // vd-0002 DRAFT, vd-0005 POS only, vd-0006 SDM and vd-0007 ARCHIVED are left out silently;
    // vd-0003 (no usageChannels) and vd-0004 (empty) are usable everywhere.
    expect(response.body.map((d: { voucherDefinitionId: string }) => d.voucherDefinitionId)).toEqual([
      'vd-0000',
      'vd-0001',
      'vd-0003',
      'vd-0004',
    ]);
  });

  it('serves exactly the member-facing fields', async () => {
    const response = await list(keys.partner);
    expect(response.body[1]).toEqual({
      voucherDefinitionId: 'vd-0001',
      businessUnit: 'LCL',
      definitionName: 'Definition vd-0001',
      rewardType: 'DOLLAR_OFF',
      rewardValue: 5,
      rewardMetadata: { amount: 5, unit: 'FLAT' },
      scope: 'CART',
      expiryRule: { type: 'ROLLING', rollingDays: 30 },
      creative: { 'en-CA': { shortDescription1: '$5 off', smallImageURI: 'https://cdn.example.com/5.png' } },
      pointValue: 5000,
      redeemableValue: null,
    });
  });

  it('lists an explicit business unit, each item carrying it', async () => {
    const response = await list(keys.partner, 'SDM');
    expect(response.status).toBe(200);
    expect(response.body).toHaveLength(1);
    expect(response.body[0]).toMatchObject({ voucherDefinitionId: 'vd-0006', businessUnit: 'SDM' });
  });

  it('answers an empty array when nothing matches', async () => {
    const response = await list(keys.partner, 'GAS');
    expect(response.status).toBe(200);
    expect(response.body).toEqual([]);
  });

  it.each([
    ['INVALID_BUSINESS_UNIT', 'a business unit the client has not enabled', keys.partner, 'XYZ'],
    ['INVALID_BUSINESS_UNIT', 'a business unit enabled for another client only', keys.noDefault, 'SDM'],
    ['BUSINESS_UNIT_REQUIRED', 'no business unit and no default', keys.noDefault, undefined],
    ['FEATURE_NOT_ENABLED', 'vouchers switched off', keys.noVouchers, undefined],
    ['FEATURE_NOT_ENABLED', 'vouchers switched off, checked before the business unit', keys.noVouchers, 'XYZ'],
  ])('answers 400 %s for %s', async (errorCode, _name, apiKey, businessUnit) => {
    const response = await list(apiKey, businessUnit);
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ statusCode: 400, errorCode, errorMessage: expect.any(String) });
  });

  it('checks the session before the feature switch', async () => {
    const response = await api.listVouchers(keys.noVouchers, 'st_no_such_session_token_here', 'm-alice');
    expect(response.status).toBe(401);
  });

  it.each([
    ['an empty businessUnit', '?businessUnit='],
    ['a repeated businessUnit', '?businessUnit=LCL&businessUnit=SDM'],
  ])('answers 400 INVALID_REQUEST for %s', async (_name, query) => {
    const token = await api.startSession(keys.partner, 'm-alice');
    const response = await api.call('GET', `/client/users/m-alice/voucher-definitions${query}`, {
      apiKey: keys.partner,
      token,
    });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ statusCode: 400, errorCode: 'INVALID_REQUEST' });
  });
});

describe('Operation A: conditional requests, two processes on one store', () => {
  let fleet: TestApp;
  beforeAll(async () => {
    fleet = await startTestApp({ fixture: integrationFixture, startAt: t0, instances: 2 });
  });
  afterAll(() => fleet.close());

  /** Operation A on process `instance`, with a session of its own. */
  async function listOn(instance: number, apiKey: string, headers: Record<string, string> = {}) {
    const token = await fleet.api.startSession(apiKey, 'm-alice');
    return send(fleet.urls[instance]!, 'GET', '/client/users/m-alice/voucher-definitions', { apiKey, bearer: token, headers });
  }

  it('tags the list alike on every process and for every session, and answers 304 to that tag on either', async () => {
    const [first, second] = [await listOn(0, keys.partner), await listOn(1, keys.partner)];
    expect(first.headers.get('etag')).toBe(second.headers.get('etag'));
    for (const instance of [0, 1]) {
      const again = await listOn(instance, keys.partner, { 'if-none-match': first.headers.get('etag')! });
      expect([again.status, again.text]).toEqual([304, '']);
    }
  });

  it("gives another client's list of the same business unit another tag, which is no 304 here", async () => {
    const partner = await listOn(0, keys.partner);
    const tiered = await listOn(0, keys.tiered);
    expect(tiered.text).toBe(partner.text);
    expect(tiered.headers.get('etag')).not.toBe(partner.headers.get('etag'));
    expect((await listOn(0, keys.partner, { 'if-none-match': tiered.headers.get('etag')! })).status).toBe(200);
  });

  it('moves the tag when the list changes: the old tag gets the new list, the new one 304', async () => {
    const before = await listOn(1, keys.partner);
    await fleet.store.upsertVoucherDefinitions([definitionRecord('vd-0008', { usageChannels: ['CUX'] })]);
    const after = await listOn(1, keys.partner, { 'if-none-match': before.headers.get('etag')! });
    expect(after.status).toBe(200);
    expect(after.body).toContainEqual(expect.objectContaining({ voucherDefinitionId: 'vd-0008' }));
    expect(after.headers.get('etag')).not.toBe(before.headers.get('etag'));
    expect((await listOn(0, keys.partner, { 'if-none-match': after.headers.get('etag')! })).status).toBe(304);
  });
});
