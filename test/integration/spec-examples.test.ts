import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { startTestApp, type TestApp } from '../../server/src/test-support/app-harness';
import type { ApiClient } from '../../server/src/test-support/api-client';

/**
 * The spec's examples are answers the server gives on the demo data that
 * `npm start` serves: a developer who tries one gets what the spec shows.
 * Each example names its request in the table below; an example without a
 * row fails, so a new example comes with its request.
 */
const root = path.join(__dirname, '../..');
const spec = parse(readFileSync(path.join(root, 'openapi/openapi.yaml'), 'utf8'));
const demo: unknown = JSON.parse(readFileSync(path.join(root, 'server/fixtures/demo.json'), 'utf8'));
const partner = 'demo_secret_partner_app_0001';
/** The demo's publishable key, and its page's origin (the web example's). */
const partnerPage = { apiKey: 'demo_publishable_partner_web_0001', origin: 'http://127.0.0.1:5173' };

type Call = (api: ApiClient) => Promise<{ status: number; body: unknown }>;
const session = (api: ApiClient, member: string, key = partner) => api.startSession(key, member);
const update = (member: string, token: string, body: unknown): Call => async (api) =>
  api.updateReservation(partner, await session(api, member), member, token, body);
const list = (query: string, key = partner): Call => async (api) =>
  api.call('GET', `/client/users/m-alice/voucher-definitions${query}`, { apiKey: key, token: await session(api, 'm-alice', key) });
const requestBody = (name: string): unknown => operation('put').requestBody.content['application/json'].examples[name].value;

/** Example (operation, status, name) → the request that answers it on the demo data. */
const requests: Record<string, Call> = {
  'updateReservation 200 lower': update('m-alice', 'rt-alice-1', requestBody('lower')),
  'updateReservation 200 household': update('m-hh-1', 'rt-hh-1', requestBody('household')),
  'updateReservation 200 itemLevel': update('m-alice', 'rt-alice-1', requestBody('itemLevel')),
  'updateReservation 200 offline': update('m-alice', 'rt-alice-2', requestBody('offline')),
  'updateReservation 400 amountRaised': update('m-alice', 'rt-alice-1', { reservationAmount: 10001 }),
  'updateReservation 400 invalidItems': update('m-alice', 'rt-alice-1', {
    reservationAmount: 4000,
    redemptionId: 'rd-100',
    redeemerId: 'm-alice',
    catalogueItems: [{ productCode: '9999999999', quantity: 1 }, { productCode: '0000000001', quantity: 0 }],
  }),
  'updateReservation 400 schemaBroken': update('m-alice', 'rt-alice-1', { reservationAmount: '7500' }),
  'listVoucherDefinitions 200 example': list(''),
  'listVoucherDefinitions 400 invalidBusinessUnit': list('?businessUnit=GAS'),
  'listVoucherDefinitions 400 businessUnitRequired': list('', 'demo_secret_nodefault_0004'),
  'listVoucherDefinitions 400 featureNotEnabled': list('', 'demo_secret_novouchers_0003'),
  'listVoucherDefinitions 400 unknownQueryParameter': list('?channel=CUX'),
  'startSession 400 identifierType': (api) => api.call('POST', '/client/users/m-alice/sessions', { apiKey: partner, headers: { 'x-identifier-type': 'PASSPORT' } }),
  'startSession 400 missingIdentifierType': (api) => api.call('POST', '/client/users/m-alice/sessions', { apiKey: partner }),
  'startSession 401 example': (api) => api.call('POST', '/client/users/m-alice/sessions', { apiKey: 'pk_unknown', headers: { 'x-identifier-type': 'EMAIL' } }),
  'startSession 404 example': (api) => api.call('POST', '/client/users/m-nobody/sessions', { apiKey: partner, headers: { 'x-identifier-type': 'EMAIL' } }),
  'listVoucherDefinitions 401 apiKey': (api) => api.call('GET', '/client/users/m-alice/voucher-definitions', { apiKey: 'pk_unknown', token: 'st_x' }),
  'listVoucherDefinitions 401 missingSession': (api) => api.call('GET', '/client/users/m-alice/voucher-definitions', { apiKey: partner }),
  'listVoucherDefinitions 401 invalidSession': (api) => api.call('GET', '/client/users/m-alice/voucher-definitions', { apiKey: partner, token: 'st_not_a_session_0123456789' }),
  'startSession 403 publishableKey': (api) =>
    api.call('POST', '/client/users/m-alice/sessions', { apiKey: partnerPage.apiKey, headers: { origin: partnerPage.origin, 'x-identifier-type': 'EMAIL' } }),
  'startSession 403 secretKeyFromPage': (api) =>
    api.call('POST', '/client/users/m-alice/sessions', { apiKey: partner, headers: { origin: partnerPage.origin, 'x-identifier-type': 'EMAIL' } }),
  'listVoucherDefinitions 403 publishableKeyOrigin': async (api) =>
    api.call('GET', '/client/users/m-alice/voucher-definitions', { apiKey: partnerPage.apiKey, token: await session(api, 'm-alice'), headers: { origin: 'https://elsewhere.example' } }),
  'endSession 400 example': async (api) =>
    api.call('DELETE', '/client/users/m-alice/sessions/current?all=true', { apiKey: partner, token: await session(api, 'm-alice') }),
  'listVoucherDefinitions 403 secretKeyFromPage': async (api) =>
    api.call('GET', '/client/users/m-alice/voucher-definitions', { apiKey: partner, token: await session(api, 'm-alice'), headers: { origin: partnerPage.origin } }),
};

function operation(method: string): any {
  return Object.values(spec.paths as Record<string, any>).find((item) => item[method] && item[method].requestBody)?.[method];
}

/** Every example of a 200/201/400/401/403/404 JSON body, by (operationId, status, name). */
function documentedExamples(): Array<[string, unknown]> {
  const resolve = (node: any): any => (node?.$ref ? resolve(node.$ref.slice(2).split('/').reduce((at: any, key: string) => at[key], spec)) : node);
  const out: Array<[string, unknown]> = [];
  for (const item of Object.values(spec.paths as Record<string, any>)) {
    for (const op of Object.values(item).filter((o: any) => o?.operationId) as any[]) {
      for (const [status, raw] of Object.entries(op.responses as Record<string, unknown>)) {
        if (!['200', '201', '400', '401', '403', '404'].includes(status)) continue;
        const media = resolve(raw).content?.['application/json'];
        if (!media) continue;
        if (media.example !== undefined) out.push([`${op.operationId} ${status} example`, media.example]);
        for (const [name, example] of Object.entries(media.examples ?? {})) out.push([`${op.operationId} ${status} ${name}`, resolve(example).value]);
      }
    }
  }
  return out;
}

// Start Session's 201 holds a random token, id and time: its shape is the pact's to check.
const examples = documentedExamples().filter(([key]) => key !== 'startSession 201 example');
// The 401s and 403s shared by the operations of a session are the same objects: checked through Operation A.
const checked = examples.filter(([key]) => !/^(updateReservation|endSession) 40[13]/.test(key));

describe('the spec examples are what the server answers on the demo data', () => {
  let server: TestApp;
  let api: ApiClient;
  // A fresh server per example: each starts from the demo data.
  beforeEach(async () => {
    server = await startTestApp({ fixture: demo, startAt: Date.parse('2026-11-24T12:00:00.000Z') });
    api = server.api;
  });
  afterEach(() => server.close());

  it('every example has its request here', () => {
    expect(checked.map(([key]) => key).filter((key) => !requests[key])).toEqual([]);
  });

  it.each(checked)('%s', async (key, example) => {
    const response = await requests[key]!(api);
    const body = response.body as Record<string, unknown>;
    // A session id is random: the example's stands for whichever the server made.
    const expected = typeof example === 'object' && example !== null && 'sessionId' in example ? { ...example, sessionId: body.sessionId } : example;
    expect(Number(key.split(' ')[1])).toBe(response.status);
    expect(body).toEqual(expected);
  });
});
