import { StoreUnavailableError } from '../store/port';
import { expectDocumentedBody } from '../test-support/documented-response';
import { forbiddenMessages } from '../domain/errors';
import { aliceSession, aliceToken, apiKeys, asAlice, asAliceFromPage, partnerPageOrigin, startFakeApp, type FakeApp } from '../test-support/fake-services';
import { type SendInit } from '../test-support/api-client';
import { eventually, fakeTimeouts, nextTurn } from '../test-support/time';
import type { OperationId } from './routes';

/** One valid request per operation; tests vary one thing at a time. */
const operations: Array<[OperationId, string, string, SendInit]> = [
  ['startSession', 'POST', '/client/users/m-alice/sessions', { headers: { 'x-identifier-type': 'CARD_NUMBER' } }],
  ['endSession', 'DELETE', '/client/users/m-alice/sessions/current', asAlice],
  ['listVoucherDefinitions', 'GET', '/client/users/m-alice/voucher-definitions', asAlice],
  ['updateReservation', 'PUT', '/client/users/m-alice/reservations/rt-alice-1', { ...asAlice, json: { reservationAmount: 7500 } }],
];
const sessionOperations = operations.filter(([operationId]) => operationId !== 'startSession');

let app: FakeApp;
beforeAll(async () => {
  app = await startFakeApp();
});
afterAll(() => app.close());
beforeEach(() => jest.clearAllMocks());

describe('the valid request of each operation', () => {
  it.each(operations)('%s succeeds', async (_operationId, method, path, init) => {
    expect((await app.send(method, path, init)).status).toBeLessThan(300);
  });
});

describe('API key', () => {
  it.each(operations.flatMap(([operationId, method, path, init]) => [
    [operationId, 'no key', method, path, { ...init, apiKey: null }] as const,
    [operationId, 'an unknown key', method, path, { ...init, apiKey: apiKeys.unknown }] as const,
  ]))('%s with %s: 401 UNAUTHORIZED, nothing called', async (operationId, _case, method, path, init) => {
    const response = await app.send(method, path, init);
    expect(response.status).toBe(401);
    expect(response.body).toEqual({ statusCode: 401, errorCode: 'UNAUTHORIZED', errorMessage: 'Missing or unknown API key' });
    expectDocumentedBody(operationId, 401, response.body);
    expect(app.services.auth.authenticateSession).not.toHaveBeenCalled();
  });

  it('is checked before anything else about the request, the route included', async () => {
    const response = await app.send('GET', '/client/anything', { apiKey: null });
    expect(response.status).toBe(401);
  });
});

describe("the key's use: its kind and the request's Origin (403), after the API key, before the rest", () => {
  const fromPage = { origin: partnerPageOrigin };
  const forbidden = (errorMessage: string) => ({ statusCode: 403, errorCode: 'FORBIDDEN', errorMessage });
  type Case = [OperationId, string, string, string, SendInit, string];
  const cases = operations.flatMap(([operationId, method, path, init]): Case[] => [
    [operationId, 'a secret key from a page', method, path, { ...init, headers: { ...init.headers, ...fromPage } }, forbiddenMessages.secretFromPage],
    ...(operationId === 'startSession'
      ? [[operationId, 'the publishable key, from its own page', method, path, { ...init, apiKey: apiKeys.partnerPage, headers: { ...init.headers, ...fromPage } }, forbiddenMessages.publishableStartsSession] satisfies Case]
      : [
          [operationId, 'the publishable key without Origin', method, path, { ...init, apiKey: apiKeys.partnerPage }, forbiddenMessages.publishableOrigin] satisfies Case,
          [operationId, 'the publishable key from another page', method, path, { ...init, apiKey: apiKeys.partnerPage, headers: { origin: 'https://evil.example' } }, forbiddenMessages.publishableOrigin] satisfies Case,
        ]),
  ]);

  it.each(cases)('%s with %s: 403 FORBIDDEN, the session untouched and nothing done', async (operationId, _case, method, path, init, message) => {
    const response = await app.send(method, path, init);
    expect(response.status).toBe(403);
    expect(response.body).toEqual(forbidden(message));
    expectDocumentedBody(operationId, 403, response.body);
    expect(app.services.auth.authenticateSession).not.toHaveBeenCalled();
    expect(app.services.sessions.startSession).not.toHaveBeenCalled();
    expect(app.services.voucherDefinitions.listVoucherDefinitions).not.toHaveBeenCalled();
    expect(app.services.reservations.updateReservation).not.toHaveBeenCalled();
  });

  it.each(sessionOperations)('%s with the publishable key from its page: served, with the session a secret key started', async (_operationId, method, path, init) => {
    const response = await app.send(method, path, { ...init, ...asAliceFromPage });
    expect(response.status).toBeLessThan(300);
    expect(app.services.auth.authenticateSession).toHaveBeenCalledWith(expect.objectContaining({ clientId: 'client-partner' }), aliceToken, 'm-alice', null, undefined);
  });

  it("a secret key from the API's own origin (its /docs page) is no page of a partner: served", async () => {
    const [, method, path, init] = operations[0]!;
    const response = await app.send(method, path, { ...init, headers: { ...init.headers, origin: app.baseUrl } });
    expect(response.status).toBe(201);
  });

  it('an unknown key from a page is 401, not 403: the key is checked first', async () => {
    const response = await app.send('GET', '/client/users/m-alice/voucher-definitions', { ...asAlice, apiKey: apiKeys.unknown, headers: fromPage });
    expect(response.status).toBe(401);
  });

  it('names the refused key in the access log, never its secret', async () => {
    await app.send('GET', '/client/users/m-alice/voucher-definitions', { ...asAlice, headers: { ...fromPage, 'x-request-id': 'secret-from-page' } });
    const line = app.logs.find((entry) => entry.requestId === 'secret-from-page');
    expect(line).toMatchObject({ req: { keyId: 'key_client-partner' }, res: { statusCode: 403 } });
    expect(JSON.stringify(line)).not.toContain(apiKeys.partner);
  });
});

describe('member session of Operations A and B', () => {
  const missing = 'Missing session: send Authorization: Bearer <sessionToken>';
  const invalid = 'Invalid or expired session';
  const cases: Array<[string, SendInit, string]> = [
    ['no Authorization header', {}, missing],
    ['another scheme', { headers: { authorization: `Basic ${aliceToken}` } }, missing],
    ['a bare token', { headers: { authorization: aliceToken } }, missing],
    ['the scheme without a token', { headers: { authorization: 'Bearer ' } }, missing],
    ['an unknown token', { bearer: 'st_unknown_0123456789abcdefgh' }, invalid],
    ['two words after the scheme', { headers: { authorization: `Bearer ${aliceToken} extra` } }, invalid],
  ];
  it.each(sessionOperations.flatMap(([operationId, method, path, init]) =>
    cases.map(([name, auth, message]) => [operationId, name, message, method, path, { ...init, bearer: undefined, ...auth }] as const),
  ))('%s with %s: 401 UNAUTHORIZED %p', async (operationId, _case, message, method, path, init) => {
    const response = await app.send(method, path, init);
    expect(response.status).toBe(401);
    expect(response.body).toEqual({ statusCode: 401, errorCode: 'UNAUTHORIZED', errorMessage: message });
    expectDocumentedBody(operationId, 401, response.body);
  });

  it.each(sessionOperations)('%s on the path of another member: 401, and the answer does not say whose the token is', async (operationId, method, path, init) => {
    const response = await app.send(method, path.replace('m-alice', 'm-bob'), init);
    expect(response.status).toBe(401);
    expect(response.body).toEqual({ statusCode: 401, errorCode: 'UNAUTHORIZED', errorMessage: invalid });
    expectDocumentedBody(operationId, 401, response.body);
  });

  it('hands the bearer token, the client and the path member to the auth service', async () => {
    await app.send('GET', '/client/users/m-alice/voucher-definitions', { headers: { authorization: `bearer  ${aliceToken}` } });
    expect(app.services.auth.authenticateSession).toHaveBeenCalledWith(
      expect.objectContaining({ clientId: 'client-partner' }),
      aliceToken,
      'm-alice',
      null,
      undefined,
    );
  });

  it.each(sessionOperations)('%s reads the session with the client first (one store call), then decides in the documented order', async (_operationId, method, path, init) => {
    const lookup = { bearerToken: aliceToken, session: aliceSession, client: null, member: null, key: null };
    app.services.auth.lookUpSession.mockResolvedValueOnce(lookup);
    expect((await app.send(method, path, init)).status).toBeLessThan(300);
    expect(app.services.auth.lookUpSession).toHaveBeenCalledWith(aliceToken, undefined);
    expect(app.services.auth.authenticateClient).toHaveBeenCalledWith(apiKeys.partner, lookup, undefined);
    expect(app.services.auth.authenticateSession).toHaveBeenCalledWith(expect.objectContaining({ clientId: 'client-partner' }), aliceToken, 'm-alice', lookup, undefined);
  });

  it('starts no session lookup without an API key', async () => {
    expect((await app.send('GET', '/client/users/m-alice/voucher-definitions', { ...asAlice, apiKey: null })).status).toBe(401);
    expect(app.services.auth.lookUpSession).not.toHaveBeenCalled();
  });
});

describe('request id', () => {
  it('echoes a sane X-Request-Id, on success and on errors', async () => {
    for (const apiKey of [apiKeys.partner, null]) {
      const response = await app.send('POST', '/client/users/m-alice/sessions', {
        apiKey,
        headers: { 'x-identifier-type': 'EMAIL', 'x-request-id': 'req-1.A_b' },
      });
      expect(response.headers.get('x-request-id')).toBe('req-1.A_b');
    }
  });

  it.each([
    ['absent', undefined],
    ['too long', 'r'.repeat(129)],
    ['not a plain token', 'abc def'],
    ['an injection attempt', 'abc\\u000a{"level":60}'],
  ])('makes a UUID when the client id is %s', async (_case, offered) => {
    const response = await app.send('GET', '/healthz', { headers: offered === undefined ? {} : { 'x-request-id': offered } });
    expect(response.headers.get('x-request-id')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('logs the request under its id, without headers or body', async () => {
    await app.send('PUT', '/client/users/m-alice/reservations/rt-alice-1', {
      ...asAlice,
      json: { reservationAmount: 7500 },
      headers: { 'x-request-id': 'log-me' },
    });
    const line = app.logs.find((entry) => entry.requestId === 'log-me');
    expect(line).toMatchObject({
      msg: 'request completed',
      req: { id: 'log-me', method: 'PUT', route: '/client/users/{correlation_id}/reservations/{reservation_token}' },
      res: { statusCode: 200 },
      responseTime: expect.any(Number),
    });
    expect(JSON.stringify(line)).not.toContain(aliceToken);
    expect(JSON.stringify(line)).not.toContain(apiKeys.partner);
  });
});

describe('security headers', () => {
  it.each([
    ['an API response', 'GET', '/client/users/m-alice/voucher-definitions', asAlice],
    ['an error', 'GET', '/client/nowhere', {}],
    ['a health check', 'GET', '/healthz', {}],
  ] as const)('are on %s', async (_case, method, path, init) => {
    const { headers } = await app.send(method, path, init);
    expect(headers.get('content-security-policy')).toBe("default-src 'none';frame-ancestors 'none'");
    expect(headers.get('x-content-type-options')).toBe('nosniff');
    expect(headers.get('strict-transport-security')).toMatch(/max-age=\d+/);
    expect(headers.get('x-frame-options')).toBe('SAMEORIGIN');
    expect(headers.get('x-powered-by')).toBeNull();
  });

  it('let /docs load its own scripts and styles, and nothing from elsewhere', async () => {
    const csp = (await app.send('GET', '/docs/')).headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("style-src 'self' 'unsafe-inline'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).not.toMatch(/https?:|upgrade-insecure-requests/);
  });
});

describe('operational routes', () => {
  it('/healthz answers while the process runs, without an API key', async () => {
    const response = await app.send('GET', '/healthz', { apiKey: null });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ status: 'ok' });
  });

  it('/healthz answers 503, saying why, once the process cannot recover by itself (an orchestrator restarts it)', async () => {
    app.liveness.mockReturnValueOnce({ live: false, reason: 'stuck since 2026-11-24T10:00:00.000Z' });
    const response = await app.send('GET', '/healthz', { apiKey: null });
    expect(response.status).toBe(503);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.body).toEqual({
      statusCode: 503,
      errorCode: 'SERVICE_UNAVAILABLE',
      errorMessage: 'Cannot recover without a restart: stuck since 2026-11-24T10:00:00.000Z',
    });
    expect((await app.send('GET', '/healthz', { apiKey: null })).status).toBe(200);
  });

  it('/readyz answers 200 while the store answers', async () => {
    const response = await app.send('GET', '/readyz', { apiKey: null });
    expect(response.status).toBe(200);
    expect(app.ping).toHaveBeenCalled();
  });

  it('/readyz answers 503 when the store fails', async () => {
    app.ping.mockRejectedValueOnce(new StoreUnavailableError());
    const response = await app.send('GET', '/readyz');
    expect(response.status).toBe(503);
    expect(response.body).toEqual({ statusCode: 503, errorCode: 'SERVICE_UNAVAILABLE', errorMessage: 'Service unavailable' });
  });

  it('/readyz answers 503 when the store takes more than a second', async () => {
    app.ping.mockReturnValueOnce(new Promise(() => undefined));
    fakeTimeouts();
    try {
      let answered = false;
      const answer = app.send('GET', '/readyz').finally(() => (answered = true));
      await eventually('the ping', () => app.ping.mock.calls.length > 0);
      await jest.advanceTimersByTimeAsync(999);
      await nextTurn();
      expect(answered).toBe(false);
      await jest.advanceTimersByTimeAsync(1);
      expect((await answer).status).toBe(503);
    } finally {
      jest.useRealTimers();
    }
  });

  it('/openapi.json serves the spec the server validates with', async () => {
    const response = await app.send('GET', '/openapi.json', { apiKey: null });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ openapi: '3.0.3', info: { title: 'Loyalty member API' } });
    expect(Object.keys(response.body.paths)).toEqual([
      '/client/users/{correlation_id}/sessions',
      '/client/users/{correlation_id}/sessions/current',
      '/client/users/{correlation_id}/voucher-definitions',
      '/client/users/{correlation_id}/reservations/{reservation_token}',
    ]);
  });

  it('/docs redirects to /docs/, so that the page links resolve', async () => {
    const response = await app.send('GET', '/docs');
    expect(response.status).toBe(301);
    expect(response.headers.get('location')).toBe('/docs/');
  });

  it('/docs/ is swagger-ui, served from this server only, reading /openapi.json', async () => {
    const page = await app.send('GET', '/docs/');
    expect(page.status).toBe(200);
    expect(page.text).toContain('swagger-ui-bundle.js');
    expect(page.text).not.toMatch(/src="https?:|href="https?:/);
    const initializer = await app.send('GET', '/docs/swagger-initializer.js');
    expect(initializer.text).toContain("url: '../openapi.json'");
    expect(initializer.text).not.toContain('petstore');
    const bundle = await app.send('GET', '/docs/swagger-ui-bundle.js');
    expect(bundle.status).toBe(200);
    expect(bundle.headers.get('content-type')).toMatch(/javascript/);
  });
});

describe('routes and methods outside the spec', () => {
  it.each([
    ['an unknown API path', '/client/users/m-alice/vouchers'],
    ['a path outside the API', '/admin'],
    ['a docs file that does not exist', '/docs/nothing.js'],
  ])('%s: 404 NOT_FOUND', async (_case, path) => {
    const response = await app.send('GET', path, asAlice);
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ statusCode: 404, errorCode: 'NOT_FOUND', errorMessage: 'Resource not found' });
  });

  it.each([
    ['DELETE', '/client/users/m-alice/reservations/rt-alice-1', 'PUT'],
    ['GET', '/client/users/m-alice/sessions', 'POST'],
    ['POST', '/client/users/m-alice/voucher-definitions', 'HEAD, GET'],
  ])('%s %s: 405 METHOD_NOT_ALLOWED, Allow: %s', async (method, path, allow) => {
    const response = await app.send(method, path, asAlice);
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe(allow);
    expect(response.body).toEqual({ statusCode: 405, errorCode: 'METHOD_NOT_ALLOWED', errorMessage: 'Method not allowed' });
  });
});

describe('faults', () => {
  const serviceOf = (operationId: OperationId): jest.Mock => {
    const services = app.services;
    return {
      startSession: services.sessions.startSession,
      endSession: services.sessions.endSession,
      listVoucherDefinitions: services.voucherDefinitions.listVoucherDefinitions,
      headVoucherDefinitions: services.voucherDefinitions.listVoucherDefinitions,
      updateReservation: services.reservations.updateReservation,
    }[operationId];
  };

  it.each(operations)('%s: a store outage is 503 SERVICE_UNAVAILABLE with Retry-After', async (operationId, method, path, init) => {
    serviceOf(operationId).mockRejectedValueOnce(new StoreUnavailableError('connect ECONNREFUSED mongo-0:27017'));
    const response = await app.send(method, path, { ...init, headers: { ...init.headers, 'x-request-id': `down-${operationId}` } });
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('1');
    expect(response.body).toEqual({ statusCode: 503, errorCode: 'SERVICE_UNAVAILABLE', errorMessage: 'Service unavailable' });
    expectDocumentedBody(operationId, 503, response.body);
    expect(response.text).not.toContain('ECONNREFUSED');
    // An outage is an operational event (warn), not a bug (error); the log keeps the cause.
    const line = app.logs.find((entry) => entry.requestId === `down-${operationId}`);
    expect(line).toMatchObject({ level: 'warn', err: { message: 'connect ECONNREFUSED mongo-0:27017' } });
  });

  it('a store outage while checking the API key is 503 too', async () => {
    app.services.auth.authenticateClient.mockRejectedValueOnce(new StoreUnavailableError());
    const response = await app.send('POST', '/client/users/m-alice/sessions', { headers: { 'x-identifier-type': 'EMAIL' } });
    expect(response.status).toBe(503);
  });

  it.each(operations)('%s: an unexpected error is a bare 500, logged with its stack', async (operationId, method, path, init) => {
    serviceOf(operationId).mockRejectedValueOnce(new Error('E11000 duplicate key: secret internals'));
    const response = await app.send(method, path, { ...init, headers: { ...init.headers, 'x-request-id': `boom-${operationId}` } });
    expect(response.status).toBe(500);
    expect(response.body).toEqual({ statusCode: 500, errorCode: 'INTERNAL_ERROR', errorMessage: 'Internal error' });
    expectDocumentedBody(operationId, 500, response.body);
    const line = app.logs.find((entry) => entry.requestId === `boom-${operationId}`);
    expect(line).toMatchObject({ level: 'error', err: { message: 'E11000 duplicate key: secret internals', stack: expect.stringContaining('Error: E11000') } });
  });

  it('a response that breaks the spec is a 500 while responses are validated', async () => {
    app.services.voucherDefinitions.listVoucherDefinitions.mockResolvedValueOnce([{ voucherDefinitionId: 'vd-1' }] as never);
    const response = await app.send('GET', '/client/users/m-alice/voucher-definitions', asAlice);
    expect(response.status).toBe(500);
  });
});

describe('JSON in request bodies', () => {
  it('does not let "__proto__" or "constructor" keys pollute prototypes', async () => {
    for (const rawBody of [
      '{"reservationAmount": 1, "__proto__": {"polluted": true}}',
      '{"reservationAmount": 1, "constructor": {"prototype": {"polluted": true}}}',
    ]) {
      const response = await app.send('PUT', '/client/users/m-alice/reservations/rt-alice-1', {
        ...asAlice,
        rawBody,
        headers: { 'content-type': 'application/json' },
      });
      expect(response.status).toBe(400);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    }
    expect(app.services.reservations.updateReservation).not.toHaveBeenCalled();
  });
});

describe('rate limit per API key', () => {
  let limited: FakeApp;
  beforeAll(async () => {
    limited = await startFakeApp({ rateLimitPerMinute: 3 });
  });
  afterAll(() => limited.close());

  it('answers 429 TOO_MANY_REQUESTS with Retry-After once a key passes its limit', async () => {
    const [operationId, method, path, init] = operations.find(([id]) => id === 'listVoucherDefinitions')!;
    const statuses = [];
    for (let i = 0; i < 3; i += 1) statuses.push((await limited.send(method, path, init)).status);
    expect(statuses).toEqual([200, 200, 200]);

    const response = await limited.send(method, path, init);
    expect(response.status).toBe(429);
    expect(response.body).toEqual({ statusCode: 429, errorCode: 'TOO_MANY_REQUESTS', errorMessage: 'Too many requests with this API key: at most 3 a minute' });
    expectDocumentedBody(operationId, 429, response.body);
    expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(response.headers.get('ratelimit-policy')).toMatch(/q=3/);
    expect(response.headers.get('ratelimit')).toMatch(/r=0/);
  });

  it('counts each key on its own, and unknown keys not at all', async () => {
    for (let i = 0; i < 5; i += 1) expect((await limited.send('GET', '/healthz', { apiKey: apiKeys.unknown })).status).toBe(200);
    for (let i = 0; i < 5; i += 1) {
      expect((await limited.send('POST', '/client/users/m-alice/sessions', { apiKey: apiKeys.unknown })).status).toBe(401);
    }
    const other = await limited.send('POST', '/client/users/m-alice/sessions', { apiKey: apiKeys.other, headers: { 'x-identifier-type': 'EMAIL' } });
    expect(other.status).toBe(201);
    expect(other.headers.get('ratelimit')).toMatch(/r=2/);
  });
});
