import { corsAllowedHeaders, corsExposedHeaders, corsMaxAgeSeconds, specMethods } from './cors';
import { methods } from './routes';
import { loadApiSpec } from './spec';
import { asAlice, startFakeApp, type FakeApp } from '../test-support/fake-services';
import { type SendInit, type TestResponse } from '../test-support/api-client';

const listed = 'http://127.0.0.1:5173';
const alsoListed = 'https://app.example.com';
const corsOrigins = [listed, alsoListed];

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

describe('CORS_ORIGINS set', () => {
  let app: FakeApp;
  beforeAll(async () => {
    app = await startFakeApp({ corsOrigins });
  });
  afterAll(() => app.close());
  beforeEach(() => jest.clearAllMocks());

  describe('a preflight from a listed origin: 204, without an API key, nothing called', () => {
    it.each([
      [listed, 'POST', sessionsPath, 'x-api-key,x-identifier-type,x-request-id'],
      [listed, 'GET', vouchersPath, 'authorization,x-api-key,x-request-id'],
      [alsoListed, 'PUT', reservationPath, 'authorization,content-type,x-api-key,x-request-id,traceparent,tracestate'],
      [listed, 'HEAD', vouchersPath, 'authorization,x-api-key'],
      // Not a route: the preflight is answered all the same, the call then meets the checks.
      [listed, 'GET', '/client/unknown', 'x-api-key'],
    ])('%s, %s %s with %s', async (origin, method, path, requestHeaders) => {
      const response = await app.send('OPTIONS', path, preflight(origin, method, requestHeaders));
      expect(response.status).toBe(204);
      expect(response.text).toBe('');
      expect(response.headers.get('access-control-allow-origin')).toBe(origin);
      expect(response.headers.get('access-control-allow-methods')).toBe('GET,PUT,POST,HEAD');
      expect(response.headers.get('access-control-allow-headers')).toBe(corsAllowedHeaders.join(','));
      expect(response.headers.get('access-control-max-age')).toBe(String(corsMaxAgeSeconds));
      expect(response.headers.get('access-control-allow-credentials')).toBeNull();
      expect(varyOf(response)).toContain('origin');
      expect(response.headers.get('x-request-id')).toBeTruthy();
      expect(app.services.auth.authenticateClient).not.toHaveBeenCalled();
    });
  });

  describe('a request from any other origin: no CORS header at all, as without CORS_ORIGINS', () => {
    const others = [
      ['another host', 'http://localhost:5173'],
      ['another port', 'http://127.0.0.1:5174'],
      ['another scheme', 'http://app.example.com'],
      ['a listed origin with a trailing slash', `${listed}/`],
      ['a listed origin in upper case', 'https://APP.example.com'],
      ['the opaque origin', 'null'],
      ['a suffix of a listed origin', 'https://evil-app.example.com'],
    ] as const;

    it.each(others)('preflight from %s (%s): the API key check answers 401', async (_case, origin) => {
      const response = await app.send('OPTIONS', vouchersPath, preflight(origin, 'GET'));
      expect(response.status).toBe(401);
      expect(corsHeaderNames(response)).toEqual([]);
      expect(varyOf(response)).toContain('origin');
    });

    it.each(others)('call from %s (%s): answered, unreadable by its page', async (_case, origin) => {
      const response = await app.send('GET', vouchersPath, { ...asAlice, headers: { origin } });
      expect(response.status).toBe(200);
      expect(corsHeaderNames(response)).toEqual([]);
      expect(varyOf(response)).toContain('origin');
    });

    it('an OPTIONS without Origin is no preflight: 401', async () => {
      const response = await app.send('OPTIONS', vouchersPath, preflight(null, 'GET'));
      expect(response.status).toBe(401);
      expect(corsHeaderNames(response)).toEqual([]);
    });
  });

  describe('answers to a listed origin, errors included, are readable by its page', () => {
    const cases: Array<[string, string, string, SendInit, number]> = [
      ['Start Session', 'POST', sessionsPath, { headers: { 'x-identifier-type': 'CARD_NUMBER' } }, 201],
      ['Operation A', 'GET', vouchersPath, asAlice, 200],
      ['Operation B', 'PUT', reservationPath, { ...asAlice, json: { reservationAmount: 7500 } }, 200],
      ['no API key', 'GET', vouchersPath, { ...asAlice, apiKey: null }, 401],
      ['no session', 'GET', vouchersPath, {}, 401],
      ['a query parameter the spec lacks (the validator)', 'GET', `${vouchersPath}?colour=red`, asAlice, 400],
      ['a body that is not JSON', 'PUT', reservationPath, { ...asAlice, rawBody: 'amount=1', headers: { 'content-type': 'text/plain' } }, 415],
      ['a path the spec lacks', 'GET', '/client/unknown', {}, 404],
      ['a path outside the API', 'GET', '/nowhere', {}, 404],
    ];
    it.each(cases)('%s: %s %s', async (_case, method, path, init, status) => {
      const response = await app.send(method, path, { ...init, headers: { ...init.headers, origin: listed } });
      expect(response.status).toBe(status);
      expect(response.headers.get('access-control-allow-origin')).toBe(listed);
      expect(response.headers.get('access-control-expose-headers')).toBe(corsExposedHeaders.join(','));
      expect(response.headers.get('access-control-allow-methods')).toBeNull();
      expect(varyOf(response)).toContain('origin');
      expect(response.headers.get('x-request-id')).toBeTruthy();
    });
  });
});

describe('CORS_ORIGINS set, with a rate limit', () => {
  let app: FakeApp;
  beforeAll(async () => {
    app = await startFakeApp({ corsOrigins, rateLimitPerMinute: 2 });
  });
  afterAll(() => app.close());

  it('never counts preflights, and a 429 exposes Retry-After and RateLimit to the page', async () => {
    for (let i = 0; i < 5; i++) expect((await app.send('OPTIONS', vouchersPath, preflight(listed, 'GET'))).status).toBe(204);
    const call = { ...asAlice, headers: { origin: listed } };
    const answers = [await app.send('GET', vouchersPath, call), await app.send('GET', vouchersPath, call), await app.send('GET', vouchersPath, call)];
    expect(answers.map((response) => response.status)).toEqual([200, 200, 429]);
    const limited = answers[2]!;
    expect(limited.body).toMatchObject({ errorCode: 'TOO_MANY_REQUESTS' });
    expect(limited.headers.get('access-control-allow-origin')).toBe(listed);
    const exposed = (limited.headers.get('access-control-expose-headers') ?? '').toLowerCase().split(',');
    for (const header of ['retry-after', 'ratelimit', 'ratelimit-policy', 'x-request-id']) {
      expect(limited.headers.get(header)).toBeTruthy();
      expect(exposed).toContain(header);
    }
  });
});

describe('CORS_ORIGINS unset', () => {
  let app: FakeApp;
  beforeAll(async () => {
    app = await startFakeApp();
  });
  afterAll(() => app.close());

  it('a preflight meets the API key check, and no answer carries a CORS header or varies on Origin', async () => {
    const preflightAnswer = await app.send('OPTIONS', vouchersPath, preflight(listed, 'GET'));
    expect(preflightAnswer.status).toBe(401);
    const call = await app.send('GET', vouchersPath, { ...asAlice, headers: { origin: listed } });
    expect(call.status).toBe(200);
    for (const response of [preflightAnswer, call]) {
      expect(corsHeaderNames(response)).toEqual([]);
      expect(varyOf(response)).not.toContain('origin');
    }
  });
});

describe('the policy follows the spec', () => {
  it('allows exactly the methods of the spec, which are those the server routes', async () => {
    const spec = (await loadApiSpec()).document;
    expect(specMethods(spec)).toEqual(['GET', 'PUT', 'POST', 'HEAD']);
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
