import { createServer } from 'node:net';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { buildDeps, type BuildDeps } from '../../server/src/composition';
import { newApiKey } from '../../server/src/domain/secrets';
import { inProcessCounter } from '../../server/src/rate-limit/counter';
import { startTestApp, type TestApp } from '../../server/src/test-support/app-harness';
import { demoFixtureFor, demoKeys } from '../../examples/web/demo-data.mjs';
import { launchChromium } from '../support/chromium';
import { bundleForBrowser, serveScript, type StaticSite } from '../support/static-site';

/*
 * The SDK's calls from a page in headless Chromium, as a partner's web app
 * makes them: with the client's publishable key, which names the page's
 * origin (so CORS lets the page read the answers; CORS_ORIGINS is unset),
 * and a session the partner's server started with its secret key (here,
 * the test itself, outside the browser). The SDK comes from its committed
 * build (sdk/dist), bundled as the example is.
 */

jest.setTimeout(60_000);

const repoRoot = path.resolve(__dirname, '../..');
const keys = demoKeys(repoRoot);
/** The page's key. */
const apiKey = keys.publishable;
/** The rate-limited API's window: short, so that its Retry-After is a few seconds. */
const shortWindowMs = 3000;

type Sdk = typeof import('@loyalty/sdk');

let browser: Browser;
let site: StaticSite;
let api: TestApp;
let limitedApi: TestApp;
let page: Page;
let bundleInputs: string[];

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

beforeAll(async () => {
  // First: without Chromium there is nothing to start the rest for.
  browser = await launchChromium();
  const bundle = await bundleForBrowser(path.join(__dirname, 'sdk-page-entry.ts'));
  bundleInputs = bundle.inputs;
  site = await serveScript(bundle.code);
  const env = { PORT: '0', SEED_FILE: demoFixtureFor(repoRoot, site.origin), LOG_LEVEL: 'silent', METRICS: 'off' };
  // Its metrics count the answers the browser's cache asked for (the 304s).
  api = await startTestApp({ env: { ...env, METRICS: 'on' } });
  // The real app and rate limiter, with a window of seconds instead of a minute.
  const shortWindow: BuildDeps = async (config, logger) => ({ ...(await buildDeps(config, logger)), requestCounter: inProcessCounter(shortWindowMs) });
  limitedApi = await startTestApp({ env: { ...env, RATE_LIMIT_PER_MINUTE: '2' }, build: shortWindow });
  page = await browser.newPage();
  await page.goto(`${site.origin}/`);
  await page.waitForFunction(() => 'loyaltySdk' in globalThis);
});

afterAll(async () => {
  await browser?.close();
  await Promise.all([api?.close(), limitedApi?.close(), site?.close()]);
});

/** A session of `member` started as the partner's server does: outside the browser, with the secret key. */
const serverSession = (app: TestApp, member = 'm-alice') => app.api.startSession(keys.secret, member);

it('runs the committed build of the SDK, not its sources', () => {
  expect(bundleInputs).toContain('sdk/dist/index.mjs');
  expect(bundleInputs.filter((input) => input.startsWith('sdk/src/'))).toEqual([]);
});

it("Operations A and B with the publishable key, in the session the partner's server handed the page, succeed; each request id is readable", async () => {
  const outcome = await page.evaluate(
    async ({ baseUrl, key, sessionToken }) => {
      const { createLoyaltyClient } = (globalThis as unknown as { loyaltySdk: Sdk }).loyaltySdk;
      const loyalty = createLoyaltyClient({ baseUrl, apiKey: key });
      const correlationId = 'm-alice';
      const vouchers = await loyalty.listVoucherDefinitions({ correlationId, sessionToken, requestId: 'browser-test-vouchers' });
      const update = await loyalty.updateReservation({ correlationId, sessionToken, reservationToken: 'rt-alice-1', body: { reservationAmount: 7500 } });
      const seen = (result: { requestId: string; response: Response }) => ({ sent: result.requestId, answered: result.response.headers.get('X-Request-Id'), status: result.response.status });
      return {
        vouchers: { ...seen(vouchers), ids: vouchers.data?.map((voucher) => voucher.voucherDefinitionId) },
        update: { ...seen(update), data: update.data },
        rateLimit: vouchers.response.headers.get('RateLimit'),
      };
    },
    { baseUrl: api.baseUrl, key: apiKey, sessionToken: await serverSession(api) },
  );
  expect(outcome.vouchers).toMatchObject({ status: 200, sent: 'browser-test-vouchers', answered: 'browser-test-vouchers' });
  expect(outcome.vouchers?.answered).toBe(outcome.vouchers?.sent);
  expect(outcome.vouchers?.ids?.length).toBeGreaterThan(0);
  expect(outcome.update).toMatchObject({ status: 200, data: { reservationToken: 'rt-alice-1', pointBalance: expect.any(Number), availablePointBalance: expect.any(Number) } });
  expect(outcome.update?.answered).toBe(outcome.update?.sent);
  // The page key's own limit, then its session's (a publishable key's request counts against both).
  expect(outcome.rateLimit).toMatch(/^"6000-in-1min"; r=\d+; t=\d+, "session-120-in-1min"; r=\d+; t=\d+$/);
});

it('the page reads the API, even its refusals, and neither the operational routes nor the metrics (no CORS header there)', async () => {
  const statuses = await page.evaluate(
    async (urls) => {
      // A cross-origin answer without CORS headers is a network error to the page.
      const read = async (url: string) => fetch(url).then((response) => response.status, () => 'unreadable');
      return Object.fromEntries(await Promise.all(Object.entries(urls).map(async ([name, url]) => [name, await read(url)] as const)));
    },
    {
      api: `${api.baseUrl}/client/users/m-alice/voucher-definitions`,
      healthz: `${api.baseUrl}/healthz`,
      readyz: `${api.baseUrl}/readyz`,
      spec: `${api.baseUrl}/openapi.json`,
      docs: `${api.baseUrl}/docs/`,
      metricsBesideTheApi: `${api.baseUrl}/metrics`,
      metrics: api.metricsUrls[0]!,
    },
  );
  expect(statuses).toEqual({ api: 401, healthz: 'unreadable', readyz: 'unreadable', spec: 'unreadable', docs: 'unreadable', metricsBesideTheApi: 'unreadable', metrics: 'unreadable' });
});

/** Operation A's answers with this status so far, by the API's metrics. */
async function listingAnswers(status: number): Promise<number> {
  const text = await (await fetch(api.metricsUrls[0]!)).text();
  const line = new RegExp(`^loyalty_http_requests_total\\{operation="listVoucherDefinitions",status="${status}"\\} (\\d+)$`, 'm').exec(text);
  return Number(line?.[1] ?? 0);
}

it("Operation A again: the browser's cache revalidates by itself (If-None-Match, 304), and the SDK gets the list it kept", async () => {
  const [okBefore, notModifiedBefore] = [await listingAnswers(200), await listingAnswers(304)];
  const outcome = await page.evaluate(
    async ({ baseUrl, key, sessionToken }) => {
      const { createLoyaltyClient } = (globalThis as unknown as { loyaltySdk: Sdk }).loyaltySdk;
      const loyalty = createLoyaltyClient({ baseUrl, apiKey: key });
      const list = async () => {
        const result = await loyalty.listVoucherDefinitions({ correlationId: 'm-hh-2', sessionToken, businessUnit: 'LCL' });
        return { status: result.response.status, etag: result.response.headers.get('ETag'), ids: result.data?.map((voucher) => voucher.voucherDefinitionId) };
      };
      return { first: await list(), second: await list() };
    },
    { baseUrl: api.baseUrl, key: apiKey, sessionToken: await serverSession(api, 'm-hh-2') },
  );
  expect(outcome.first).toEqual({ status: 200, etag: expect.stringMatching(/^"[A-Za-z0-9_-]{22}"$/), ids: expect.arrayContaining([expect.any(String)]) });
  expect(outcome.second).toEqual(outcome.first);
  // The server sent the list once, and answered the second call 304.
  expect([await listingAnswers(200), await listingAnswers(304)]).toEqual([okBefore + 1, notModifiedBefore + 1]);
});

it("documented errors, the page's own Start Session refused among them: the page reads the error body, its status and its request id", async () => {
  const outcome = await page.evaluate(
    async ({ baseUrl, key, sessionToken }) => {
      const { createLoyaltyClient } = (globalThis as unknown as { loyaltySdk: Sdk }).loyaltySdk;
      const loyalty = createLoyaltyClient({ baseUrl, apiKey: key });
      const raised = await loyalty.updateReservation({ correlationId: 'm-hh-1', sessionToken, reservationToken: 'rt-hh-1', body: { reservationAmount: 1_000_000 } });
      // A script in the page trying to act for a member of its choice.
      const pageSession = await loyalty.startSession({ correlationId: 'm-hh-2', identifierType: 'CARD_NUMBER' });
      const badKey = await createLoyaltyClient({ baseUrl, apiKey: 'publishable_test_nobody' }).listVoucherDefinitions({ correlationId: 'm-hh-1', sessionToken });
      const seen = (result: { error?: unknown; requestId: string; response: Response }) => ({
        error: result.error,
        status: result.response.status,
        sent: result.requestId,
        answered: result.response.headers.get('X-Request-Id'),
      });
      return [seen(raised), seen(pageSession), seen(badKey)];
    },
    { baseUrl: api.baseUrl, key: apiKey, sessionToken: await serverSession(api, 'm-hh-1') },
  );
  expect(outcome.map(({ status, error }) => [status, error])).toEqual([
    [400, { statusCode: 400, errorCode: 'INVALID_REQUEST', errorMessage: 'New reservation amount cannot be greater than existing reservation amount' }],
    [403, { statusCode: 403, errorCode: 'FORBIDDEN', errorMessage: "Sessions are started by the partner's server with a secret key, never with a publishable key" }],
    [401, { statusCode: 401, errorCode: 'UNAUTHORIZED', errorMessage: 'Missing or unknown API key' }],
  ]);
  for (const { sent, answered } of outcome) expect(answered).toBe(sent);
});

it("a secret key in the page: createLoyaltyClient throws a TypeError saying what to do instead, and sends nothing; a publishable key's form is taken", async () => {
  const sent: string[] = [];
  const record = (request: { url: () => string }) => sent.push(request.url());
  page.on('request', record);
  try {
    const outcome = await page.evaluate(
      async ({ baseUrl, secretKey, publishableKey }) => {
        const { createLoyaltyClient } = (globalThis as unknown as { loyaltySdk: Sdk }).loyaltySdk;
        let thrown: { name: string; isTypeError: boolean; message: string } | null = null;
        try {
          createLoyaltyClient({ baseUrl, apiKey: secretKey });
        } catch (error) {
          thrown = { name: (error as Error).name, isTypeError: error instanceof TypeError, message: (error as Error).message };
        }
        // A key of the publishable form goes out (this one is unknown to the API: 401).
        const unknown = await createLoyaltyClient({ baseUrl, apiKey: publishableKey }).listVoucherDefinitions({ correlationId: 'm-alice', sessionToken: 'st_x' });
        return { thrown, publishable: { status: unknown.response.status, error: unknown.error } };
      },
      { baseUrl: api.baseUrl, secretKey: newApiKey('secret').apiKey, publishableKey: newApiKey('publishable').apiKey },
    );
    expect(outcome.thrown).toEqual({
      name: 'TypeError',
      isTypeError: true,
      message:
        'createLoyaltyClient: apiKey is a secret key (lsk_...), which must never be in a web page: anyone can read it there. ' +
        "Use the client's publishable key (lpk_...) in the page, and start members' sessions on the partner's server with the secret key.",
    });
    expect(outcome.publishable).toEqual({ status: 401, error: { statusCode: 401, errorCode: 'UNAUTHORIZED', errorMessage: 'Missing or unknown API key' } });
    // The one request the page sent is the publishable key's listing (and its preflight): nothing with the secret key.
    expect(new Set(sent)).toEqual(new Set([`${api.baseUrl}/client/users/m-alice/voucher-definitions`]));
  } finally {
    page.off('request', record);
  }
});

it('a network error: no server at the address, GET retried, then LoyaltyRequestError "network" with the request id', async () => {
  const outcome = await page.evaluate(
    async ({ baseUrl, key }) => {
      const { createLoyaltyClient, isLoyaltyRequestError } = (globalThis as unknown as { loyaltySdk: Sdk }).loyaltySdk;
      const loyalty = createLoyaltyClient({ baseUrl, apiKey: key, retries: { limit: 2, baseDelayMs: 10 } });
      try {
        await loyalty.listVoucherDefinitions({ correlationId: 'm-alice', sessionToken: 'st_x', requestId: 'browser-test-network' });
        return { rejected: false };
      } catch (error) {
        return isLoyaltyRequestError(error) ? { rejected: true, reason: error.reason, attempts: error.attempts, requestId: error.requestId } : { rejected: true, other: String(error) };
      }
    },
    { baseUrl: `http://127.0.0.1:${await closedPort()}`, key: apiKey },
  );
  expect(outcome).toEqual({ rejected: true, reason: 'network', attempts: 3, requestId: 'browser-test-network' });
});

it('a page on an origin the publishable key does not name: the browser refuses, and the SDK says "network"', async () => {
  // The same page from `localhost`: another origin than 127.0.0.1 to the browser.
  const stranger = await browser.newPage();
  try {
    await stranger.goto(`http://localhost:${site.port}/`);
    await stranger.waitForFunction(() => 'loyaltySdk' in globalThis);
    const outcome = await stranger.evaluate(
      async ({ baseUrl, key, sessionToken }) => {
        const { createLoyaltyClient, isLoyaltyRequestError } = (globalThis as unknown as { loyaltySdk: Sdk }).loyaltySdk;
        const loyalty = createLoyaltyClient({ baseUrl, apiKey: key, retries: 0 });
        try {
          await loyalty.listVoucherDefinitions({ correlationId: 'm-alice', sessionToken });
          return { rejected: false, origin: location.origin };
        } catch (error) {
          return { rejected: true, origin: location.origin, reason: isLoyaltyRequestError(error) ? error.reason : String(error) };
        }
      },
      { baseUrl: api.baseUrl, key: apiKey, sessionToken: await serverSession(api) },
    );
    expect(outcome).toEqual({ rejected: true, origin: `http://localhost:${site.port}`, reason: 'network' });
  } finally {
    await stranger.close();
  }
});

it('a 429: the SDK reads Retry-After across origins, waits that long, and the retry succeeds', async () => {
  // Counted against the secret key: the page's key has a count of its own.
  const sessionToken = await serverSession(limitedApi);
  const outcome = await page.evaluate(
    async ({ baseUrl, key, sessionToken }) => {
      const { createLoyaltyClient } = (globalThis as unknown as { loyaltySdk: Sdk }).loyaltySdk;
      const attempts: Array<{ status: number; retryAfter: string | null; at: number }> = [];
      // Sees every attempt the SDK's retries make.
      const recordingFetch = async (request: Request) => {
        const response = await fetch(request);
        attempts.push({ status: response.status, retryAfter: response.headers.get('Retry-After'), at: performance.now() });
        return response;
      };
      const loyalty = createLoyaltyClient({ baseUrl, apiKey: key, fetch: recordingFetch, retries: { limit: 2, baseDelayMs: 10 } });
      const noRetries = createLoyaltyClient({ baseUrl, apiKey: key, retries: 0 });
      // The page key's two requests of its window: the last one allowed.
      await loyalty.listVoucherDefinitions({ correlationId: 'm-alice', sessionToken });
      await loyalty.listVoucherDefinitions({ correlationId: 'm-alice', sessionToken });
      const refused = await noRetries.listVoucherDefinitions({ correlationId: 'm-alice', sessionToken });
      const retried = await loyalty.listVoucherDefinitions({ correlationId: 'm-alice', sessionToken });
      return {
        refused: { status: refused.response.status, error: refused.error, retryAfter: refused.response.headers.get('Retry-After'), policy: refused.response.headers.get('RateLimit-Policy') },
        retried: { status: retried.response.status, count: retried.data?.length },
        attempts,
      };
    },
    { baseUrl: limitedApi.baseUrl, key: apiKey, sessionToken },
  );
  expect(outcome.refused).toMatchObject({ status: 429, error: { errorCode: 'TOO_MANY_REQUESTS' }, retryAfter: expect.stringMatching(/^[1-3]$/), policy: expect.stringContaining('"2-in-1min"') });
  expect(outcome.retried).toEqual({ status: 200, count: expect.any(Number) });
  expect(outcome.attempts.map((attempt) => attempt.status)).toEqual([200, 200, 429, 200]);
  const [, , limited, retry] = outcome.attempts;
  const waitedMs = retry!.at - limited!.at;
  // The SDK waited the whole Retry-After (its backoff alone would be at most 10 ms).
  expect(waitedMs).toBeGreaterThanOrEqual(Number(limited!.retryAfter) * 1000 - 50);
});
