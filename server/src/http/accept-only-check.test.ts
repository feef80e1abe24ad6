import { get, request } from 'node:http';
import Ajv from 'ajv';
import { buildAcceptOnlyCheck } from './accept-only-check';
import { operationIds, specRoutes } from './routes';
import { loadApiSpec } from './spec';
import { aliceToken, apiKeys, asAlice, startFakeApp, type FakeApp } from '../test-support/fake-services';

/*
 * The accept-only request check (request-validation.ts) must answer exactly
 * as express-openapi-validator does. The test app validates responses, which
 * turns on the cross-check: every request the accept-only check accepts also goes
 * through the validator, and a disagreement is a 500 naming it. So each case
 * here asserts its documented status, and no case may be a 500.
 */

let app: FakeApp;
beforeAll(async () => {
  app = await startFakeApp();
});
afterAll(() => app.close());

it.each(operationIds)('%s gets the accept-only check (its schemas use plain JSON Schema only)', async (operation) => {
  const spec = await loadApiSpec();
  expect(buildAcceptOnlyCheck(new Ajv({ strict: false }), spec.dereferenced, specRoutes[operation])).not.toBeNull();
});

describe('Operation A requests, plain and not', () => {
  it.each<[string, string, number]>([
    ['no query', '/client/users/m-alice/voucher-definitions', 200],
    ['a plain business unit', '/client/users/m-alice/voucher-definitions?businessUnit=LCL', 200],
    ['a percent-encoded business unit', '/client/users/m-alice/voucher-definitions?businessUnit=L%26C', 200],
    ['an encoded space', '/client/users/m-alice/voucher-definitions?businessUnit=L%20C', 200],
    ['a percent-encoded path', '/client/users/m%2Dalice/voucher-definitions', 200],
    ['an empty pair before the parameter', '/client/users/m-alice/voucher-definitions?&businessUnit=LCL', 200],
    ['a bare question mark', '/client/users/m-alice/voucher-definitions?', 200],
    ['an empty business unit', '/client/users/m-alice/voucher-definitions?businessUnit=', 400],
    ['a repeated business unit', '/client/users/m-alice/voucher-definitions?businessUnit=LCL&businessUnit=SDM', 400],
    ['an unknown parameter', '/client/users/m-alice/voucher-definitions?channel=CUX', 400],
    ['a reserved character', '/client/users/m-alice/voucher-definitions?businessUnit=a+b', 400],
    ['a business unit over 64 characters', `/client/users/m-alice/voucher-definitions?businessUnit=${'B'.repeat(65)}`, 400],
  ])('%s: %s answers %i', async (_case, path, status) => {
    const response = await app.send('GET', path, asAlice);
    expect({ status: response.status, body: response.status === 500 ? response.text : undefined }).toEqual({ status, body: undefined });
  });

  // node:http, not fetch: fetch adds Cache-Control: no-cache to a conditional request, which Express never calls fresh.
  it('a GET saying If-None-Match: * gets the listing, never an undocumented 304', async () => {
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const headers = { 'x-api-key': apiKeys.partner, authorization: `Bearer ${aliceToken}`, 'if-none-match': '*' };
      get(`${app.baseUrl}/client/users/m-alice/voucher-definitions?businessUnit=LCL`, { headers }, (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      }).on('error', reject);
    });
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toEqual(expect.any(Array));
  });

  // The same rule as the body parser's (json-body.ts): a length of 00 is no body. The cross-check makes the validator agree.
  it('a GET saying Content-Length: 00 is a plain listing: 200', async () => {
    const status = await new Promise<number>((resolve, reject) => {
      const headers = { 'x-api-key': apiKeys.partner, authorization: `Bearer ${aliceToken}`, 'content-length': '00' };
      request(`${app.baseUrl}/client/users/m-alice/voucher-definitions?businessUnit=LCL`, { method: 'GET', headers }, (res) => {
        res.resume().on('end', () => resolve(res.statusCode ?? 0));
      })
        .on('error', reject)
        .end();
    });
    expect(status).toBe(200);
  });

  it('HEAD on the listing: 200, the headers of GET and no body', async () => {
    const url = `${app.baseUrl}/client/users/m-alice/voucher-definitions?businessUnit=LCL`;
    const headers = { 'x-api-key': apiKeys.partner, authorization: `Bearer ${aliceToken}` };
    const [head, get] = [await fetch(url, { method: 'HEAD', headers }), await fetch(url, { headers })];
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    expect(head.headers.get('content-type')).toBe(get.headers.get('content-type'));
    expect(head.headers.get('content-length')).toBe(String(Buffer.byteLength(await get.text())));
  });
});

describe('Operation B bodies, plain and not', () => {
  const path = '/client/users/m-alice/reservations/rt-alice-1';
  const put = (rawBody: string | undefined, contentType = 'application/json') =>
    app.send('PUT', path, { ...asAlice, ...(rawBody === undefined ? {} : { rawBody }), headers: { 'content-type': contentType } });

  it.each<[string, number, string | undefined, string]>([
    ['a plain body', 200, '{"reservationAmount":7500}', 'application/json'],
    ['a UTF-8 charset', 200, '{"reservationAmount":7500}', 'application/json; charset=utf-8'],
    ['a charset written otherwise (body-parser reads it)', 200, '{"reservationAmount":7500}', 'application/json;charset=UTF-8'],
    ['a byte order mark (dropped, as body-parser does)', 200, '\uFEFF{"reservationAmount":7500}', 'application/json'],
    ['whitespace around the object', 200, ' \n{"reservationAmount":7500}\n ', 'application/json'],
    ['an unknown field', 400, '{"reservationAmount":1,"foo":1}', 'application/json'],
    ['a negative amount', 400, '{"reservationAmount":-1}', 'application/json'],
    ['a fractional amount', 400, '{"reservationAmount":1.5}', 'application/json'],
    ['an amount as a string', 400, '{"reservationAmount":"1"}', 'application/json'],
    ['a "__proto__" key', 400, '{"reservationAmount":1,"__proto__":{"x":1}}', 'application/json'],
    ['an empty body (an empty object to body-parser)', 400, '', 'application/json'],
    ['only whitespace', 400, '   ', 'application/json'],
    ['an array', 400, '[]', 'application/json'],
    ['null', 400, 'null', 'application/json'],
    ['malformed JSON', 400, '{"reservationAmount":', 'application/json'],
    ['another content type', 415, '{"reservationAmount":7500}', 'text/plain'],
  ])('%s answers %i', async (_case, status, rawBody, contentType) => {
    const response = await put(rawBody, contentType);
    expect({ status: response.status, body: response.status === 500 ? response.text : undefined }).toEqual({ status, body: undefined });
  });

  it('malformed JSON gets its own message, whatever the charset parameter', async () => {
    for (const contentType of ['application/json', 'application/json;charset=UTF-8']) {
      const response = await put('{"reservationAmount":', contentType);
      expect(response.body).toEqual({ statusCode: 400, errorCode: 'INVALID_REQUEST', errorMessage: 'Malformed JSON in request body' });
    }
  });
});
