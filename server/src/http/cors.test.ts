import { corsAllowedHeaders, corsExposedHeaders, corsMaxAgeSeconds, specMethods } from './cors';
import { methods } from './routes';
import { loadApiSpec } from './spec';
import { StoreUnavailableError } from '../store/port';
import { apiKeys, asAlice, asAliceFromPage, partnerPageOrigin, startFakeApp, type FakeApp } from '../test-support/fake-services';
import { type SendInit, type TestResponse } from '../test-support/api-client';

/*
 * CORS follows the keys: a page on the origin of a live publishable key
 * (the fakes' partner page) may call the API, and so may one on an origin
 * CORS_ORIGINS adds; nothing else gets a CORS header.
 */

const page = partnerPageOrigin;
const operatorListed = 'http://127.0.0.1:5173';

const sessionsPath = '/client/users/m-alice/sessions';
const vouchersPath = '/client/users/m-alice/voucher-definitions';
const reservationPath = '/client/users/m-alice/reservations/rt-alice-1';

/** What a browser sends before a cross-origin call with the SDK's headers. */
function preflight(origin: string | null, method: string, requestHeaders = 'authorization,content-type,x-api-key,x-request-id,traceparent,tracestate'): SendInit {
  return {
    apiKey: null,
    headers: {
      ...(origin !== null && { origin }),
      'access-control-request-method': method,
      'access-control-request-headers': requestHeaders,
    },
  };
}

function corsHeaderNames(response: TestResponse): string[] {
  const names: string[] = [];
  response.headers.forEach((_value, name) => names.push(name));
  return names.filter((name) => name.startsWith('access-control-'));
}

function varyOf(response: TestResponse): string[] {
  return (response.headers.get('vary') ?? '').split(',').map((name) => name.trim().toLowerCase()).filter(Boolean);
}

function expectPreflightAllowed(response: TestResponse, origin: string): void {
  expect(response.status).toBe(204);
  expect(response.text).toBe('');
  expect(response.headers.get('access-control-allow-origin')).toBe(origin);
  expect(response.headers.get('access-control-allow-methods')).toBe('GET,PUT,POST,DELETE,HEAD');
  expect(response.headers.get('access-control-allow-headers')).toBe(corsAllowedHeaders.join(','));
  expect(response.headers.get('access-control-max-age')).toBe(String(corsMaxAgeSeconds));
  expect(response.headers.get('access-control-allow-credentials')).toBeNull();
  expect(varyOf(response)).toContain('origin');
  expect(response.headers.get('x-request-id')).toBeTruthy();
}

describe("a live publishable key's origin, CORS_ORIGINS unset", () => {
  let app: FakeApp;
  beforeAll(async () => {
    app = await startFakeApp();
  });
  afterAll(() => app.close());
  beforeEach(() => jest.clearAllMocks());

  describe('a preflight from it: 204, without an API key, no key or session looked up', () => {
    it.each([
      ['GET', vouchersPath, 'authorization,x-api-key,x-request-id'],
      ['PUT', reservationPath, 'authorization,content-type,x-api-key,x-request-id,traceparent,tracestate'],
      ['HEAD', vouchersPath, 'authorization,x-api-key'],
      // Start Session too: the browser then reads its 403.
      ['POST', sessionsPath, 'x-api-key,x-identifier-type,x-request-id'],
      // Not a route: the preflight is answered all the same, the call then meets the checks.
      ['GET', '/client/unknown', 'x-api-key'],
    ])('%s %s with %s', async (method, path, requestHeaders) => {
      expectPreflightAllowed(await app.send('OPTIONS', path, preflight(page, method, requestHeaders)), page);
      expect(app.services.auth.authenticateClient).not.toHaveBeenCalled();
      expect(app.services.auth.lookUpSession).not.toHaveBeenCalled();
      expect(app.services.auth.publishableOrigins).toHaveBeenCalledTimes(1);
    });
  });

  describe('answers to it, refusals included, are readable by its page', () => {
    const cases: Array<[string, string, string, SendInit, number]> = [
      ['Operation A with the publishable key', 'GET', vouchersPath, asAliceFromPage, 200],
      ['Operation B with the publishable key', 'PUT', reservationPath, { ...asAliceFromPage, json: { reservationAmount: 7500 } }, 200],
      ['Start Session with the publishable key (403)', 'POST', sessionsPath, { ...asAliceFromPage, headers: { ...asAliceFromPage.headers, 'x-identifier-type': 'CARD_NUMBER' } }, 403],
      ['a secret key sent from the page (403)', 'GET', vouchersPath, { ...asAlice, apiKey: apiKeys.partner }, 403],
      ['no API key', 'GET', vouchersPath, { ...asAliceFromPage, apiKey: null }, 401],
      ['no session', 'GET', vouchersPath, { apiKey: apiKeys.partnerPage }, 401],
      ['a query parameter the spec lacks (the validator)', 'GET', `${vouchersPath}?colour=red`, asAliceFromPage, 400],
      ['a body that is not JSON', 'PUT', reservationPath, { ...asAliceFromPage, rawBody: 'amount=1', headers: { 'content-type': 'text/plain' } }, 415],
      ['a path the spec lacks', 'GET', '/client/unknown', { apiKey: apiKeys.partnerPage }, 404],
    ];
    it.each(cases)('%s: %s %s', async (_case, method, path, init, status) => {
      const response = await app.send(method, path, { ...init, headers: { ...init.headers, origin: page } });
      expect(response.status).toBe(status);
      expect(response.headers.get('access-control-allow-origin')).toBe(page);
      expect(response.headers.get('access-control-expose-headers')).toBe(corsExposedHeaders.join(','));
      expect(response.headers.get('access-control-allow-methods')).toBeNull();
      expect(varyOf(response)).toContain('origin');
      expect(response.headers.get('x-request-id')).toBeTruthy();
    });
  });

  describe('the operational routes and anything else outside the API: no CORS header, even for it', () => {
    it.each([
      ['GET', '/healthz', 200],
      ['GET', '/readyz', 200],
      ['GET', '/openapi.json', 200],
      ['GET', '/docs', 301],
      ['GET', '/docs/', 200],
      ['GET', '/metrics', 404],
      ['GET', '/nowhere', 404],
      // A preflight is no exception: Express answers it with the route's Allow, and nothing a browser would let a page read.
      ['OPTIONS', '/healthz', 200],
      ['OPTIONS', '/openapi.json', 200],
    ])('%s %s: %s', async (method, path, status) => {
      const init = method === 'OPTIONS' ? preflight(page, 'GET', 'x-api-key') : { apiKey: null, headers: { origin: page } };
      const response = await app.send(method, path, init);
      expect(response.status).toBe(status);
      expect(corsHeaderNames(response)).toEqual([]);
      expect(response.headers.get('x-request-id')).toBeTruthy();
      // Nothing there asks for the keys' origins.
      expect(app.services.auth.publishableOrigins).not.toHaveBeenCalled();
    });
  });

  describe('any other origin: no CORS header at all', () => {
    const others = [
      ['another host', 'https://shop.partner.example'],
      ['another port', 'https://app.partner.example:8443'],
      ['another scheme', 'http://app.partner.example'],
      ['the origin with a trailing slash', `${page}/`],
      ['the origin in upper case', 'https://APP.partner.example'],
      ['the opaque origin', 'null'],
      ['a suffix of the origin', 'https://evil-app.partner.example'],
    ] as const;

    it.each(others)('preflight from %s (%s): the API key check answers 401', async (_case, origin) => {
      const response = await app.send('OPTIONS', vouchersPath, preflight(origin, 'GET'));
      expect(response.status).toBe(401);
      expect(corsHeaderNames(response)).toEqual([]);
      expect(varyOf(response)).toContain('origin');
    });

    it.each(others)('call from %s (%s) with the publishable key: 403, unreadable by its page', async (_case, origin) => {
      const response = await app.send('GET', vouchersPath, { ...asAliceFromPage, headers: { origin } });
      expect(response.status).toBe(403);
      expect(response.body).toMatchObject({ errorCode: 'FORBIDDEN' });
      expect(corsHeaderNames(response)).toEqual([]);
      expect(varyOf(response)).toContain('origin');
    });

    it('an OPTIONS without Origin is no preflight: 401, and the keys are not asked', async () => {
      const response = await app.send('OPTIONS', vouchersPath, preflight(null, 'GET'));
      expect(response.status).toBe(401);
      expect(corsHeaderNames(response)).toEqual([]);
      expect(app.services.auth.publishableOrigins).not.toHaveBeenCalled();
    });
  });

  it('a server (no Origin) is answered as always, and the answer still varies on Origin', async () => {
    const response = await app.send('GET', vouchersPath, asAlice);
    expect(response.status).toBe(200);
    expect(corsHeaderNames(response)).toEqual([]);
    expect(varyOf(response)).toContain('origin');
    expect(app.services.auth.publishableOrigins).not.toHaveBeenCalled();
  });

  it('allows what the keys allow now: an origin whose key is gone leaves the preflights', async () => {
    app.services.auth.publishableOrigins.mockResolvedValueOnce(new Set());
    const gone = await app.send('OPTIONS', vouchersPath, preflight(page, 'GET'));
    expect(gone.status).toBe(401);
    expect(corsHeaderNames(gone)).toEqual([]);
    app.services.auth.publishableOrigins.mockResolvedValueOnce(new Set([page, 'https://new.partner.example']));
    expectPreflightAllowed(await app.send('OPTIONS', vouchersPath, preflight('https://new.partner.example', 'GET')), 'https://new.partner.example');
  });

  it("a preflight while the keys' origins cannot be read: 503, no CORS header, nothing allowed on trust", async () => {
    app.services.auth.publishableOrigins.mockRejectedValueOnce(new StoreUnavailableError());
    const response = await app.send('OPTIONS', vouchersPath, preflight(page, 'GET'));
    expect(response.status).toBe(503);
    expect(corsHeaderNames(response)).toEqual([]);
  });
});

describe('CORS_ORIGINS adds origins to those of the keys', () => {
  let app: FakeApp;
  beforeAll(async () => {
    app = await startFakeApp({ corsOrigins: [operatorListed] });
  });
  afterAll(() => app.close());
  beforeEach(() => jest.clearAllMocks());

  it("a preflight from a listed origin: 204, without asking for the keys' origins", async () => {
    expectPreflightAllowed(await app.send('OPTIONS', vouchersPath, preflight(operatorListed, 'GET')), operatorListed);
    expect(app.services.auth.publishableOrigins).not.toHaveBeenCalled();
  });

  it("and the key's origins still: 204", async () => {
    expectPreflightAllowed(await app.send('OPTIONS', vouchersPath, preflight(page, 'GET')), page);
  });

  it('a listed origin lets its page read the answers, not use a key there: the publishable key it does not name is 403', async () => {
    const response = await app.send('GET', vouchersPath, { ...asAliceFromPage, headers: { origin: operatorListed } });
    expect(response.status).toBe(403);
    expect(response.body).toEqual({ statusCode: 403, errorCode: 'FORBIDDEN', errorMessage: 'A publishable key works only from a page on one of its origins' });
    expect(response.headers.get('access-control-allow-origin')).toBe(operatorListed);
  });
});

describe('with a rate limit', () => {
  let app: FakeApp;
  beforeAll(async () => {
    app = await startFakeApp({ rateLimitPerMinute: 2 });
  });
  afterAll(() => app.close());

  it('never counts preflights, and a 429 exposes Retry-After and RateLimit to the page', async () => {
    for (let i = 0; i < 5; i++) expect((await app.send('OPTIONS', vouchersPath, preflight(page, 'GET'))).status).toBe(204);
    const answers = [await app.send('GET', vouchersPath, asAliceFromPage), await app.send('GET', vouchersPath, asAliceFromPage), await app.send('GET', vouchersPath, asAliceFromPage)];
    expect(answers.map((response) => response.status)).toEqual([200, 200, 429]);
    const limited = answers[2]!;
    expect(limited.body).toMatchObject({ errorCode: 'TOO_MANY_REQUESTS' });
    expect(limited.headers.get('access-control-allow-origin')).toBe(page);
    const exposed = (limited.headers.get('access-control-expose-headers') ?? '').toLowerCase().split(',');
    for (const header of ['retry-after', 'ratelimit', 'ratelimit-policy', 'x-request-id']) {
      expect(limited.headers.get(header)).toBeTruthy();
      expect(exposed).toContain(header);
    }
  });
});

describe('no publishable key and no CORS_ORIGINS', () => {
  let app: FakeApp;
  beforeAll(async () => {
    app = await startFakeApp();
    app.services.auth.publishableOrigins.mockResolvedValue(new Set());
  });
  afterAll(() => app.close());

  it('a preflight meets the API key check, and no answer carries a CORS header', async () => {
    const preflightAnswer = await app.send('OPTIONS', vouchersPath, preflight(page, 'GET'));
    expect(preflightAnswer.status).toBe(401);
    const call = await app.send('GET', vouchersPath, asAlice);
    expect(call.status).toBe(200);
    for (const response of [preflightAnswer, call]) expect(corsHeaderNames(response)).toEqual([]);
  });
});

describe('the policy follows the spec', () => {
  it('allows exactly the methods of the spec, which are those the server routes', async () => {
    const spec = (await loadApiSpec()).document;
    expect(specMethods(spec)).toEqual(['GET', 'PUT', 'POST', 'DELETE', 'HEAD']);
    expect(new Set(specMethods(spec))).toEqual(new Set(Object.values(methods).map((method) => method.toUpperCase())));
  });

  it('allows every request header the spec defines (parameters, API key, bearer session, JSON body)', async () => {
    const spec = (await loadApiSpec()).document as unknown as {
      components: { parameters: Record<string, { in: string; name: string }>; securitySchemes: Record<string, { type: string; in?: string; name?: string }> };
    };
    const fromParameters = Object.values(spec.components.parameters).filter((parameter) => parameter.in === 'header').map((parameter) => parameter.name);
    const fromSecurity = Object.values(spec.components.securitySchemes).map((scheme) => (scheme.type === 'apiKey' && scheme.in === 'header' ? scheme.name! : 'Authorization'));
    const allowed = corsAllowedHeaders.map((name) => name.toLowerCase());
    for (const header of [...fromParameters, ...fromSecurity, 'Content-Type']) expect(allowed).toContain(header.toLowerCase());
  });
});
