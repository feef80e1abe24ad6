import { AppError, type VoucherErrorCode } from '../../domain/errors';
import { expectDocumentedBody } from '../../test-support/documented-response';
import { aliceToken, apiKeys, asAlice, startFakeApp, voucherSummary, type FakeApp } from '../../test-support/fake-services';

let app: FakeApp;
beforeAll(async () => {
  app = await startFakeApp();
});
afterAll(() => app.close());
beforeEach(() => jest.clearAllMocks());

const list = (query = '') => app.send('GET', `/client/users/m-alice/voucher-definitions${query}`, asAlice);

describe('GET /client/users/{correlation_id}/voucher-definitions', () => {
  it('answers 200 with the flat list from the service', async () => {
    const response = await list();
    expect(response.status).toBe(200);
    expect(response.body).toEqual([voucherSummary('LCL')]);
    expect(app.services.voucherDefinitions.listVoucherDefinitions).toHaveBeenCalledWith(
      expect.objectContaining({ clientId: 'client-partner' }),
      undefined,
    );
  });

  it('answers an empty list as []', async () => {
    app.services.voucherDefinitions.listVoucherDefinitions.mockResolvedValueOnce({ businessUnit: 'LCL', summaries: [] });
    expect((await list()).body).toEqual([]);
  });

  it('passes businessUnit on, decoded', async () => {
    await list('?businessUnit=L%26C');
    expect(app.services.voucherDefinitions.listVoucherDefinitions).toHaveBeenCalledWith(expect.anything(), 'L&C');
  });

  it.each<[VoucherErrorCode, string]>([
    ['FEATURE_NOT_ENABLED', 'Voucher feature is not enabled for the client'],
    ['INVALID_BUSINESS_UNIT', 'Business unit is not enabled for the client'],
    ['BUSINESS_UNIT_REQUIRED', 'Business unit is required'],
  ])('the service says %s: 400 with that code', async (code, message) => {
    app.services.voucherDefinitions.listVoucherDefinitions.mockRejectedValueOnce(new AppError(code, message));
    const response = await list('?businessUnit=XYZ');
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ statusCode: 400, errorCode: code, errorMessage: message });
  });

  it.each([
    ['an empty businessUnit', '?businessUnit=', '/query/businessUnit', "Empty value found for query parameter 'businessUnit'"],
    ['a repeated businessUnit', '?businessUnit=LCL&businessUnit=SDM', '/query/businessUnit', 'must be string'],
    ['a businessUnit over 64 characters', `?businessUnit=${'B'.repeat(65)}`, '/query/businessUnit', 'must NOT have more than 64 characters'],
    ['an unknown query parameter', '?channel=CUX', '/query/channel', "Unknown query parameter 'channel'"],
  ])('%s: 400 INVALID_REQUEST, details saying what is wrong', async (_case, query, path, detail) => {
    const response = await list(query);
    expect(response.status).toBe(400);
    expect(response.body).toEqual({
      statusCode: 400,
      errorCode: 'INVALID_REQUEST',
      errorMessage: 'Request does not match the API specification',
      details: [{ path, message: detail }],
    });
    expectDocumentedBody('listVoucherDefinitions', 400, response.body);
    expect(app.services.voucherDefinitions.listVoucherDefinitions).not.toHaveBeenCalled();
  });

  it('checks the session before the query', async () => {
    const response = await app.send('GET', '/client/users/m-alice/voucher-definitions?businessUnit=', {});
    expect(response.status).toBe(401);
  });
});

describe('conditional requests of the listing', () => {
  const path = '/client/users/m-alice/voucher-definitions';
  const ask = (method: 'GET' | 'HEAD', headers: Record<string, string> = {}, init = asAlice) => app.send(method, path, { ...init, headers });

  it('answers the list with a strong ETag and Cache-Control: private, no-cache', async () => {
    const response = await ask('GET');
    expect(response.status).toBe(200);
    expect(response.headers.get('etag')).toMatch(/^"[A-Za-z0-9_-]{22}"$/);
    expect(response.headers.get('cache-control')).toBe('private, no-cache');
  });

  it.each<[string, 'GET' | 'HEAD', (tag: string) => string]>([
    ['GET with the current tag', 'GET', (tag) => tag],
    ['HEAD with the current tag', 'HEAD', (tag) => tag],
    ['GET with the tag among others, weak', 'GET', (tag) => `"old", W/${tag}`],
  ])('%s: 304, no body, the tag and the request id', async (_case, method, ifNoneMatch) => {
    const tag = (await ask('GET')).headers.get('etag')!;
    const response = await ask(method, { 'if-none-match': ifNoneMatch(tag) });
    expect(response.status).toBe(304);
    expect(response.text).toBe('');
    expect(response.headers.get('etag')).toBe(tag);
    expect(response.headers.get('cache-control')).toBe('private, no-cache');
    expect(response.headers.get('x-request-id')).toBeTruthy();
    expect(response.headers.get('content-type')).toBeNull();
  });

  it.each<[string, Record<string, string>]>([
    ['a tag of another list', { 'if-none-match': '"Ql3gS0pjXm3yS9fR0u8a2A"' }],
    ['a malformed value', { 'if-none-match': 'not a tag' }],
  ])('%s: the list, 200', async (_case, headers) => {
    const response = await ask('GET', headers);
    expect(response.status).toBe(200);
    expect(response.body).toEqual([voucherSummary('LCL')]);
  });

  it('gives another business unit another tag', async () => {
    const lcl = (await app.send('GET', `${path}?businessUnit=LCL`, asAlice)).headers.get('etag');
    const sdm = (await app.send('GET', `${path}?businessUnit=SDM`, asAlice)).headers.get('etag');
    expect(sdm).not.toBe(lcl);
  });

  it('checks the session first: 401 whatever the tag, and no tag on an error', async () => {
    const tag = (await ask('GET')).headers.get('etag')!;
    const response = await ask('GET', { 'if-none-match': tag }, {});
    expect(response.status).toBe(401);
    expect(response.headers.get('etag')).toBeNull();
    expect(response.headers.get('cache-control')).not.toBe('private, no-cache');
  });
});

describe('HEAD /client/users/{correlation_id}/voucher-definitions', () => {
  const path = '/client/users/m-alice/voucher-definitions';
  const head = (query: string, headers: Record<string, string>) => fetch(`${app.baseUrl}${path}${query}`, { method: 'HEAD', headers });
  const get = (query: string, headers: Record<string, string>) => fetch(`${app.baseUrl}${path}${query}`, { headers });
  const keyOnly = { 'x-api-key': apiKeys.partner };
  const member = { ...keyOnly, authorization: `Bearer ${aliceToken}` };

  it.each<[string, string, Record<string, string>, () => void, number]>([
    ['the list', '', member, () => undefined, 200],
    ['a business unit the client has not', '?businessUnit=XYZ', member, () => app.services.voucherDefinitions.listVoucherDefinitions.mockRejectedValue(new AppError('INVALID_BUSINESS_UNIT', 'Business unit is not enabled for the client')), 400],
    ['an unknown query parameter', '?channel=CUX', member, () => undefined, 400],
    ['no session', '', keyOnly, () => undefined, 401],
  ])('%s: what GET answers, without the body', async (_case, query, headers, arrange, status) => {
    arrange();
    const [headAnswer, getAnswer] = [await head(query, headers), await get(query, headers)];
    app.services.voucherDefinitions.listVoucherDefinitions.mockReset();
    expect(headAnswer.status).toBe(status);
    expect(getAnswer.status).toBe(status);
    expect(await headAnswer.text()).toBe('');
    const getBody = await getAnswer.text();
    expect(getBody).not.toBe('');
    for (const header of ['content-type', 'cache-control', 'x-content-type-options']) {
      expect([header, headAnswer.headers.get(header)]).toEqual([header, getAnswer.headers.get(header)]);
    }
    expect(headAnswer.headers.get('content-length')).toBe(String(Buffer.byteLength(getBody)));
    expect(headAnswer.headers.get('x-request-id')).toBeTruthy();
  });
});
