import { createServer } from 'node:net';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { buildDeps, type BuildDeps } from '../../server/src/composition';
import { inProcessCounter } from '../../server/src/rate-limit/counter';
import { startTestApp, type TestApp } from '../../server/src/test-support/app-harness';
import { launchChromium } from './support/chromium';
import { bundleForBrowser, serveScript, type StaticSite } from './support/static-site';

/*
 * The SDK's calls from a page in headless Chromium, against the API with
 * CORS_ORIGINS set to the page's origin: what a partner's web app does. The
 * SDK comes from its committed build (sdk/dist), bundled as the example is.
 */

jest.setTimeout(60_000);

const apiKey = 'pk_test_partner_app_0001';
const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
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
  const bundle = await bundleForBrowser(path.join(__dirname, 'support/harness-entry.ts'));
  bundleInputs = bundle.inputs;
  site = await serveScript(bundle.code);
  const env = { PORT: '0', CORS_ORIGINS: site.origin, LOG_LEVEL: 'silent', METRICS: 'off' };
  api = await startTestApp({ env });
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

it('runs the committed build of the SDK, not its sources', () => {
  expect(bundleInputs).toContain('sdk/dist/index.mjs');
  expect(bundleInputs.filter((input) => input.startsWith('sdk/src/'))).toEqual([]);
});

it('Start Session, Operation A and Operation B succeed, and each request id is readable from the answer', async () => {
  const outcome = await page.evaluate(
    async ({ baseUrl, key }) => {
      const { createLoyaltyClient } = (globalThis as unknown as { loyaltySdk: Sdk }).loyaltySdk;
      const loyalty = createLoyaltyClient({ baseUrl, apiKey: key });
      const correlationId = 'm-alice';
      const session = await loyalty.startSession({ correlationId, identifierType: 'CARD_NUMBER', requestId: 'browser-test-session' });
      if (!session.data) return { failed: session.error };
      const sessionToken = session.data.sessionToken;
      const vouchers = await loyalty.listVoucherDefinitions({ correlationId, sessionToken });
      const update = await loyalty.updateReservation({ correlationId, sessionToken, reservationToken: 'rt-alice-1', body: { reservationAmount: 7500 } });
      const seen = (result: { requestId: string; response: Response }) => ({ sent: result.requestId, answered: result.response.headers.get('X-Request-Id'), status: result.response.status });
      return {
        session: seen(session),
        vouchers: { ...seen(vouchers), ids: vouchers.data?.map((voucher) => voucher.voucherDefinitionId) },
        update: { ...seen(update), data: update.data },
        rateLimit: vouchers.response.headers.get('RateLimit'),
      };
    },
    { baseUrl: api.baseUrl, key: apiKey },
  );
  expect(outcome).not.toHaveProperty('failed');
  expect(outcome.session).toEqual({ sent: 'browser-test-session', answered: 'browser-test-session', status: 201 });
  expect(outcome.vouchers).toMatchObject({ status: 200, sent: expect.stringMatching(uuid) });
  expect(outcome.vouchers?.answered).toBe(outcome.vouchers?.sent);
  expect(outcome.vouchers?.ids?.length).toBeGreaterThan(0);
  expect(outcome.update).toMatchObject({ status: 200, data: { reservationToken: 'rt-alice-1', pointBalance: expect.any(Number), availablePointBalance: expect.any(Number) } });
  expect(outcome.update?.answered).toBe(outcome.update?.sent);
  expect(outcome.rateLimit).toMatch(/^"6000-in-1min"; r=\d+; t=\d+$/);
});

it('a documented error: the page reads the error body, its status and its request id', async () => {
  const outcome = await page.evaluate(
    async ({ baseUrl, key }) => {
      const { createLoyaltyClient } = (globalThis as unknown as { loyaltySdk: Sdk }).loyaltySdk;
      const loyalty = createLoyaltyClient({ baseUrl, apiKey: key });
      const session = await loyalty.startSession({ correlationId: 'm-hh-1', identifierType: 'CARD_NUMBER' });
      const raised = await loyalty.updateReservation({
        correlationId: 'm-hh-1',
        sessionToken: session.data?.sessionToken ?? '',
        reservationToken: 'rt-hh-1',
        body: { reservationAmount: 1_000_000 },
      });
      const unknownMember = await loyalty.startSession({ correlationId: 'm-nobody', identifierType: 'CARD_NUMBER' });
      const badKey = await createLoyaltyClient({ baseUrl, apiKey: 'pk_test_nobody' }).startSession({ correlationId: 'm-alice', identifierType: 'CARD_NUMBER' });
      const seen = (result: { error?: unknown; requestId: string; response: Response }) => ({
        error: result.error,
        status: result.response.status,
        sent: result.requestId,
        answered: result.response.headers.get('X-Request-Id'),
      });
      return [seen(raised), seen(unknownMember), seen(badKey)];
    },
    { baseUrl: api.baseUrl, key: apiKey },
  );
  expect(outcome.map(({ status, error }) => [status, error])).toEqual([
    [400, { statusCode: 400, errorCode: 'INVALID_REQUEST', errorMessage: 'New reservation amount cannot be greater than existing reservation amount' }],
    [404, { statusCode: 404, errorCode: 'MEMBER_NOT_FOUND', errorMessage: expect.any(String) }],
    [401, { statusCode: 401, errorCode: 'UNAUTHORIZED', errorMessage: 'Missing or unknown API key' }],
  ]);
  for (const { sent, answered } of outcome) expect(answered).toBe(sent);
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

it('a page on an origin CORS_ORIGINS does not list: the browser refuses, and the SDK says "network"', async () => {
  // The same page from `localhost`: another origin than 127.0.0.1 to the browser.
  const stranger = await browser.newPage();
  try {
    await stranger.goto(`http://localhost:${site.port}/`);
    await stranger.waitForFunction(() => 'loyaltySdk' in globalThis);
    const outcome = await stranger.evaluate(
      async ({ baseUrl, key }) => {
        const { createLoyaltyClient, isLoyaltyRequestError } = (globalThis as unknown as { loyaltySdk: Sdk }).loyaltySdk;
        const loyalty = createLoyaltyClient({ baseUrl, apiKey: key });
        try {
          await loyalty.startSession({ correlationId: 'm-alice', identifierType: 'CARD_NUMBER' });
          return { rejected: false, origin: location.origin };
        } catch (error) {
          return { rejected: true, origin: location.origin, reason: isLoyaltyRequestError(error) ? error.reason : String(error) };
        }
      },
      { baseUrl: api.baseUrl, key: apiKey },
    );
    expect(outcome).toEqual({ rejected: true, origin: `http://localhost:${site.port}`, reason: 'network' });
  } finally {
    await stranger.close();
  }
});

it('a 429: the SDK reads Retry-After across origins, waits that long, and the retry succeeds', async () => {
  const outcome = await page.evaluate(
    async ({ baseUrl, key }) => {
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
      const session = await loyalty.startSession({ correlationId: 'm-alice', identifierType: 'CARD_NUMBER' });
      const sessionToken = session.data?.sessionToken ?? '';
      // The window's second request: the last one allowed.
      await loyalty.listVoucherDefinitions({ correlationId: 'm-alice', sessionToken });
      const refused = await noRetries.listVoucherDefinitions({ correlationId: 'm-alice', sessionToken });
      const retried = await loyalty.listVoucherDefinitions({ correlationId: 'm-alice', sessionToken });
      return {
        refused: { status: refused.response.status, error: refused.error, retryAfter: refused.response.headers.get('Retry-After'), policy: refused.response.headers.get('RateLimit-Policy') },
        retried: { status: retried.response.status, count: retried.data?.length },
        attempts,
      };
    },
    { baseUrl: limitedApi.baseUrl, key: apiKey },
  );
  expect(outcome.refused).toMatchObject({ status: 429, error: { errorCode: 'TOO_MANY_REQUESTS' }, retryAfter: expect.stringMatching(/^[1-3]$/), policy: expect.stringContaining('"2-in-1min"') });
  expect(outcome.retried).toEqual({ status: 200, count: expect.any(Number) });
  expect(outcome.attempts.map((attempt) => attempt.status)).toEqual([201, 200, 429, 200]);
  const [, , limited, retry] = outcome.attempts;
  const waitedMs = retry!.at - limited!.at;
  // The SDK waited the whole Retry-After (its backoff alone would be at most 10 ms).
  expect(waitedMs).toBeGreaterThanOrEqual(Number(limited!.retryAfter) * 1000 - 50);
});
