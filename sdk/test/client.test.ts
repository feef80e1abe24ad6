import { createLoyaltyClient, requestIdOf, SDK_VERSION, sessionAuth } from '@loyalty/sdk';
import { fakeFetch, json, reservation, session, voucher } from './support/fake-fetch';

const baseUrl = 'https://loyalty.example.com';
const apiKey = 'demo_secret_partner_app_0001';
const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

function client(...replies: Parameters<typeof fakeFetch>) {
  const fake = fakeFetch(...replies);
  return { ...fake, loyalty: createLoyaltyClient({ baseUrl, apiKey, fetch: fake.fetch }) };
}

describe('startSession', () => {
  it('POSTs the identifier type with the API key and no session, and returns the session', async () => {
    const { loyalty, requests } = client(json(201, session));
    const result = await loyalty.startSession({ correlationId: 'm-alice', identifierType: 'CARD_NUMBER' });

    expect(result.data).toEqual(session);
    expect(result.error).toBeUndefined();
    const [request] = requests;
    expect(request?.method).toBe('POST');
    expect(request?.url).toBe(`${baseUrl}/client/users/m-alice/sessions`);
    expect(request?.headers.get('X-Identifier-Type')).toBe('CARD_NUMBER');
    expect(request?.headers.get('X-Api-Key')).toBe(apiKey);
    expect(request?.headers.has('Authorization')).toBe(false);
  });
});

describe('listVoucherDefinitions', () => {
  it('GETs with the API key and the bearer session, without businessUnit when omitted', async () => {
    const { loyalty, requests } = client(json(200, [voucher]));
    const result = await loyalty.listVoucherDefinitions({ correlationId: 'm-alice', sessionToken: session.sessionToken });

    expect(result.data).toEqual([voucher]);
    expect(requests[0]?.url).toBe(`${baseUrl}/client/users/m-alice/voucher-definitions`);
    expect(requests[0]?.headers.get('Authorization')).toBe(`Bearer ${session.sessionToken}`);
    expect(requests[0]?.headers.get('X-Api-Key')).toBe(apiKey);
  });

  it('sends businessUnit as a query parameter', async () => {
    const { loyalty, requests } = client(json(200, []));
    await loyalty.listVoucherDefinitions({ correlationId: 'm-alice', sessionToken: 't', businessUnit: 'LCL' });
    expect(new URL(requests[0]?.url ?? '').searchParams.get('businessUnit')).toBe('LCL');
  });

  it('uses the session of each call, not one stored in the client', async () => {
    const { loyalty, requests } = client(json(200, []), json(200, []));
    await loyalty.listVoucherDefinitions({ correlationId: 'm-alice', sessionToken: 'first' });
    await loyalty.listVoucherDefinitions({ correlationId: 'm-bob', sessionToken: 'second' });
    expect(requests.map((r) => r.headers.get('Authorization'))).toEqual(['Bearer first', 'Bearer second']);
  });
});

describe('updateReservation', () => {
  it('PUTs the JSON body to the encoded path', async () => {
    const { loyalty, requests } = client(json(200, reservation));
    const body = { reservationAmount: 7500, extendedExpiry: true };
    const result = await loyalty.updateReservation({
      correlationId: 'm alice/1',
      sessionToken: session.sessionToken,
      reservationToken: 'rt?#1',
      body,
    });

    expect(result.data).toEqual(reservation);
    const [request] = requests;
    expect(request?.method).toBe('PUT');
    expect(request?.url).toBe(`${baseUrl}/client/users/m%20alice%2F1/reservations/rt%3F%231`);
    expect(request?.headers.get('Content-Type')).toBe('application/json');
    expect(JSON.parse((await request?.text()) ?? '')).toEqual(body);
  });

  it.each(['', '.', '..'])('rejects the path segment %j before sending anything', async (segment) => {
    const { loyalty, requests } = client();
    await expect(
      loyalty.updateReservation({ correlationId: segment, sessionToken: 't', reservationToken: 'rt', body: { reservationAmount: 1 } }),
    ).rejects.toThrow(TypeError);
    await expect(
      loyalty.updateReservation({ correlationId: 'm', sessionToken: 't', reservationToken: segment, body: { reservationAmount: 1 } }),
    ).rejects.toThrow(TypeError);
    expect(requests).toHaveLength(0);
  });
});

describe('endSession', () => {
  it('DELETEs the current session with the API key and the bearer session, no body, and gives no data on 204', async () => {
    const { loyalty, requests } = client(new Response(null, { status: 204, headers: { 'X-Request-Id': 'echoed' } }));
    const result = await loyalty.endSession({ correlationId: 'm alice/1', sessionToken: session.sessionToken, requestId: 'sign-out-1' });

    expect(result.data).toBeUndefined();
    expect(result.error).toBeUndefined();
    expect(result.requestId).toBe('sign-out-1');
    expect(result.response.status).toBe(204);
    expect(result.response.ok).toBe(true);
    const [request] = requests;
    expect(request?.method).toBe('DELETE');
    expect(request?.url).toBe(`${baseUrl}/client/users/m%20alice%2F1/sessions/current`);
    expect(request?.headers.get('Authorization')).toBe(`Bearer ${session.sessionToken}`);
    expect(request?.headers.get('X-Api-Key')).toBe(apiKey);
    expect(request?.headers.get('X-Request-Id')).toBe('sign-out-1');
    expect(request?.body).toBeNull();
  });

  it.each([
    [401, 'UNAUTHORIZED', 'Invalid or expired session'],
    [403, 'FORBIDDEN', 'A publishable key works only from a page on one of its origins'],
  ])('hands back a %i as its error body, without throwing', async (status, errorCode, errorMessage) => {
    const body = { statusCode: status, errorCode, errorMessage };
    const { loyalty } = client(json(status, body));
    const result = await loyalty.endSession({ correlationId: 'm-alice', sessionToken: 'st-ended' });
    expect(result.data).toBeUndefined();
    expect(result.error).toEqual(body);
    expect(result.response.status).toBe(status);
  });

  it.each(['', '.', '..'])('rejects the correlation id %j before sending anything', async (segment) => {
    const { loyalty, requests } = client();
    await expect(loyalty.endSession({ correlationId: segment, sessionToken: 't' })).rejects.toThrow(TypeError);
    expect(requests).toHaveLength(0);
  });
});

describe('request id', () => {
  it('sends a fresh UUID per call and returns it', async () => {
    const { loyalty, requests } = client(json(200, []), json(200, []));
    const first = await loyalty.listVoucherDefinitions({ correlationId: 'm', sessionToken: 't' });
    const second = await loyalty.listVoucherDefinitions({ correlationId: 'm', sessionToken: 't' });

    expect(first.requestId).toMatch(uuid);
    expect(second.requestId).toMatch(uuid);
    expect(first.requestId).not.toBe(second.requestId);
    expect(requests.map((r) => r.headers.get('X-Request-Id'))).toEqual([first.requestId, second.requestId]);
    expect(requestIdOf(first.response)).toBe(first.requestId);
  });

  it("sends the caller's id when given", async () => {
    const { loyalty, requests } = client(json(201, session));
    const result = await loyalty.startSession({ correlationId: 'm', identifierType: 'EMAIL', requestId: 'trace-42' });
    expect(result.requestId).toBe('trace-42');
    expect(requests[0]?.headers.get('X-Request-Id')).toBe('trace-42');
  });

  it('is returned with error answers too', async () => {
    const { loyalty, requests } = client(json(401, { statusCode: 401, errorCode: 'UNAUTHORIZED', errorMessage: 'Invalid or expired session' }));
    const result = await loyalty.listVoucherDefinitions({ correlationId: 'm', sessionToken: 't' });
    expect(result.requestId).toBe(requests[0]?.headers.get('X-Request-Id'));
  });
});

describe('User-Agent', () => {
  it('names the SDK and its version', async () => {
    const { loyalty, requests } = client(json(200, []));
    await loyalty.listVoucherDefinitions({ correlationId: 'm', sessionToken: 't' });
    expect(requests[0]?.headers.get('User-Agent')).toBe(`loyalty-sdk-js/${SDK_VERSION}`);
  });

  it("puts the app's product token first", async () => {
    const fake = fakeFetch(json(200, []));
    const loyalty = createLoyaltyClient({ baseUrl, apiKey, fetch: fake.fetch, userAgent: 'coffee-app/2.1.0' });
    await loyalty.listVoucherDefinitions({ correlationId: 'm', sessionToken: 't' });
    expect(fake.requests[0]?.headers.get('User-Agent')).toBe(`coffee-app/2.1.0 loyalty-sdk-js/${SDK_VERSION}`);
  });

  it('is left to the browser in a browser, where it would need one more CORS header', async () => {
    const scope = globalThis as { document?: unknown };
    scope.document = {};
    try {
      const { loyalty, requests } = client(json(200, []));
      await loyalty.listVoucherDefinitions({ correlationId: 'm', sessionToken: 't' });
      expect(requests[0]?.headers.has('User-Agent')).toBe(false);
    } finally {
      delete scope.document;
    }
  });
});

describe('a secret key in a web page', () => {
  // Keys as the API's operators make them (docs/operating.md): kind, id, 43 + 6 base62 characters.
  const secretKey = 'lsk_3f9a0c6d2e1b_7Qm2ZpVx4Lr9sKd0TfWb8NcYh1GjEo5uAiR3yXz6PvMn0eaJ2k';
  const publishableKey = 'lpk_3f9a0c6d2e1b_7Qm2ZpVx4Lr9sKd0TfWb8NcYh1GjEo5uAiR3yXz6PvMn0eaJ2k';

  /** Runs `make` with `globals` set on the global scope, as a page (`document`) or a worker (`WorkerGlobalScope`) has them. */
  function inScope<T>(globals: Record<string, unknown>, make: () => T): T {
    const scope = globalThis as Record<string, unknown>;
    Object.assign(scope, globals);
    try {
      return make();
    } finally {
      for (const name of Object.keys(globals)) delete scope[name];
    }
  }
  const inPage = { document: {} };

  it.each([
    ['a secret key', secretKey],
    ['a secret key with spaces around it (as the SDK sends it, trimmed)', `  ${secretKey}\n`],
  ])('%s: createLoyaltyClient throws, saying what to do instead and never repeating the key', (_case, key) => {
    const make = () => inScope(inPage, () => createLoyaltyClient({ baseUrl, apiKey: key, fetch: fakeFetch().fetch }));
    expect(make).toThrow(TypeError);
    expect(make).toThrow(/secret key \(lsk_\.\.\.\).*never be in a web page.*publishable key \(lpk_\.\.\.\) in the page.*sessions on the partner's server/);
    expect(make).toThrow(expect.objectContaining({ message: expect.not.stringContaining(secretKey.slice(4)) }));
  });

  it.each([
    ['a publishable key', publishableKey],
    ['a key made before keys said their kind', 'key_3f9a0c6d2e1b.q3T7xN0vV2yJ8mKcRz5bW1uL9pE4sHgA6fD0iO_jQ-k'],
    ['a key of free form, a demo secret key among them', 'demo_secret_partner_app_0001'],
    ['a key that only contains the prefix', `demo_${secretKey}`],
  ])('%s: is sent from a page as before', async (_case, key) => {
    const fake = fakeFetch(json(200, []));
    const loyalty = inScope(inPage, () => createLoyaltyClient({ baseUrl, apiKey: key, fetch: fake.fetch }));
    await loyalty.listVoucherDefinitions({ correlationId: 'm', sessionToken: 't' });
    expect(fake.requests[0]?.headers.get('X-Api-Key')).toBe(key);
  });

  it.each([
    ['in Node (no document)', {}],
    ['in a worker or an edge runtime (WorkerGlobalScope, no document)', { WorkerGlobalScope: function WorkerGlobalScope() {} }],
  ])('a secret key %s: is sent as before', async (_case, globals) => {
    const fake = fakeFetch(json(201, session));
    const loyalty = inScope(globals, () => createLoyaltyClient({ baseUrl, apiKey: secretKey, fetch: fake.fetch }));
    await loyalty.startSession({ correlationId: 'm', identifierType: 'EMAIL' });
    expect(fake.requests[0]?.headers.get('X-Api-Key')).toBe(secretKey);
  });
});

describe('error bodies', () => {
  it('returns a documented error body as it came, without throwing', async () => {
    const body = {
      statusCode: 400,
      errorCode: 'INVALID_REQUEST',
      errorMessage: 'New reservation amount cannot be greater than existing reservation amount',
    };
    const { loyalty } = client(json(400, body));
    const result = await loyalty.updateReservation({ correlationId: 'm', sessionToken: 't', reservationToken: 'rt', body: { reservationAmount: 9 } });

    expect(result.data).toBeUndefined();
    expect(result.error).toEqual(body);
    expect(result.response.status).toBe(400);
  });

  it('keeps invalidCatalogueItems', async () => {
    const body = {
      statusCode: 400,
      errorCode: 'INVALID_REQUEST',
      errorMessage: 'Invalid catalogue item(s)',
      invalidCatalogueItems: [{ productCode: '9999999999', quantity: 1 }],
    };
    const { loyalty } = client(json(400, body));
    const result = await loyalty.updateReservation({ correlationId: 'm', sessionToken: 't', reservationToken: 'rt', body: { reservationAmount: 9 } });
    expect(result.error).toEqual(body);
  });

  it('turns a non-JSON error answer into UNEXPECTED_RESPONSE, keeping status and headers', async () => {
    const html = new Response('<html>Bad gateway</html>', {
      status: 404,
      statusText: 'Not Found',
      headers: { 'Content-Type': 'text/html', 'X-Served-By': 'edge-7' },
    });
    const { loyalty } = client(html);
    const result = await loyalty.listVoucherDefinitions({ correlationId: 'm', sessionToken: 't' });

    expect(result.error).toEqual({
      statusCode: 404,
      errorCode: 'UNEXPECTED_RESPONSE',
      errorMessage: 'HTTP 404 Not Found: not an error body of the loyalty API',
      body: '<html>Bad gateway</html>',
    });
    expect(result.response.status).toBe(404);
    expect(result.response.headers.get('X-Served-By')).toBe('edge-7');
    expect(requestIdOf(result.response)).toBe(result.requestId);
  });

  it('turns an empty error answer and a JSON body of another shape into UNEXPECTED_RESPONSE', async () => {
    const { loyalty } = client(
      new Response(null, { status: 401 }),
      json(403, { message: 'Forbidden' }),
    );
    const empty = await loyalty.listVoucherDefinitions({ correlationId: 'm', sessionToken: 't' });
    const foreign = await loyalty.listVoucherDefinitions({ correlationId: 'm', sessionToken: 't' });
    expect(empty.error).toMatchObject({ statusCode: 401, errorCode: 'UNEXPECTED_RESPONSE', body: '' });
    expect(foreign.error).toMatchObject({ statusCode: 403, errorCode: 'UNEXPECTED_RESPONSE', body: '{"message":"Forbidden"}' });
  });

  it('leaves the answer to a HEAD as it came: it has no body by definition', async () => {
    const { loyalty } = client(new Response(null, { status: 401, headers: { 'Content-Type': 'application/json' } }));
    const { error, response } = await loyalty.raw.HEAD('/client/users/{correlation_id}/voucher-definitions', {
      params: { path: { correlation_id: 'm' } },
    });
    expect(response.status).toBe(401);
    expect(await response.text()).toBe('');
    expect(error).toBeUndefined();
  });

  it('hands back a 304 (the caller sent If-None-Match itself) as it came: no data, no error, not retried', async () => {
    const { loyalty, requests } = client(new Response(null, { status: 304, headers: { ETag: '"tag"' } }));
    const result = await loyalty.raw.GET('/client/users/{correlation_id}/voucher-definitions', {
      params: { path: { correlation_id: 'm' }, header: { 'If-None-Match': '"tag"' } },
      middleware: [sessionAuth('t')],
    });
    expect(result.response.status).toBe(304);
    expect(result.response.headers.get('ETag')).toBe('"tag"');
    expect(result.data).toBeUndefined();
    expect(result.error).toBeUndefined();
    expect(requests).toHaveLength(1);
    expect(requests[0]?.headers.get('If-None-Match')).toBe('"tag"');
  });

  it('cuts a long unexpected body to 1,000 characters', async () => {
    const { loyalty } = client(new Response('x'.repeat(5000), { status: 500 }));
    const result = await loyalty.listVoucherDefinitions({ correlationId: 'm', sessionToken: 't' });
    expect(result.error?.errorCode === 'UNEXPECTED_RESPONSE' && result.error.body).toHaveLength(1000);
  });
});

describe('raw', () => {
  it('is the typed openapi-fetch client with the same credentials, request id and User-Agent', async () => {
    const { loyalty, requests } = client(json(200, [voucher]));
    const { data, response } = await loyalty.raw.GET('/client/users/{correlation_id}/voucher-definitions', {
      params: { path: { correlation_id: 'm-alice' } },
      middleware: [sessionAuth('st-raw')],
    });

    expect(data).toEqual([voucher]);
    const [request] = requests;
    expect(request?.headers.get('X-Api-Key')).toBe(apiKey);
    expect(request?.headers.get('Authorization')).toBe('Bearer st-raw');
    expect(request?.headers.get('User-Agent')).toContain('loyalty-sdk-js/');
    expect(request?.headers.get('X-Request-Id')).toMatch(uuid);
    expect(requestIdOf(response)).toBe(request?.headers.get('X-Request-Id'));
  });
});

describe('options', () => {
  it.each([
    [{ baseUrl: '', apiKey }, /baseUrl is required/],
    [{ baseUrl, apiKey: ' ' }, /apiKey is required/],
    [{ baseUrl, apiKey: 'a\nb' }, /X-Api-Key contains characters/],
    [{ baseUrl, apiKey, userAgent: 'app\r\nX-Evil: 1' }, /User-Agent contains characters/],
    [{ baseUrl, apiKey, timeoutMs: -1 }, /timeoutMs must be a number >= 0/],
    [{ baseUrl, apiKey, retries: -1 }, /retries must be a number >= 0/],
    [{ baseUrl, apiKey, retries: 1.5 }, /retries must be a whole number/],
    [{ baseUrl, apiKey, retries: { baseDelayMs: Number.NaN } }, /retries.baseDelayMs must be a number >= 0/],
  ])('rejects %p', (options, message) => {
    expect(() => createLoyaltyClient(options)).toThrow(message);
  });

  it('never repeats the API key in an error message', () => {
    expect(() => createLoyaltyClient({ baseUrl, apiKey: 'secret\u0000key' })).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining('secret') }),
    );
  });

  it('uses the global fetch by default, looked up at call time, called as a function', async () => {
    const loyalty = createLoyaltyClient({ baseUrl, apiKey });
    const spy = jest.spyOn(globalThis, 'fetch').mockImplementation(async function (this: unknown) {
      // A browser's fetch throws "Illegal invocation" when `this` is not the global object.
      expect(this === undefined || this === globalThis).toBe(true);
      return json(200, []);
    });
    try {
      const result = await loyalty.listVoucherDefinitions({ correlationId: 'm', sessionToken: 't' });
      expect(result.data).toEqual([]);
      expect(spy).toHaveBeenCalledTimes(1);
    } finally {
      spy.mockRestore();
    }
  });

  it('strips a trailing slash from baseUrl', async () => {
    const fake = fakeFetch(json(200, []));
    const loyalty = createLoyaltyClient({ baseUrl: `${baseUrl}/`, apiKey, fetch: fake.fetch });
    await loyalty.listVoucherDefinitions({ correlationId: 'm', sessionToken: 't' });
    expect(fake.requests[0]?.url).toBe(`${baseUrl}/client/users/m/voucher-definitions`);
  });

  it('works with its methods detached from the client', async () => {
    const { loyalty } = client(json(201, session));
    // eslint-disable-next-line @typescript-eslint/unbound-method -- detaching it is what this test checks
    const { startSession } = loyalty;
    const result = await startSession({ correlationId: 'm', identifierType: 'MEMBER_ID' });
    expect(result.data?.sessionToken).toBe(session.sessionToken);
  });
});
