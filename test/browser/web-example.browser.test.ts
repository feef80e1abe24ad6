import { mkdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import type { VoucherDefinitionSummary } from '@loyalty/sdk';
import { measureSdk, sdkGzipBudgetBytes } from '../../examples/web/build.mjs';
import { launchChromium, outputDir } from './support/chromium';
import { listens, startExample, type RunningExample } from './support/example-process';

/*
 * `npm run example:web` as a developer runs it, its page in headless
 * Chromium; what the page shows is checked against the API's own answers
 * and log.
 */

jest.setTimeout(60_000);

const repoRoot = path.resolve(__dirname, '../..');
const demo = { apiKey: 'pk_test_partner_app_0001', correlationId: 'm-alice', reservationToken: 'rt-alice-1', reservationAmount: 7500 };
const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The API's answers to the page's calls, asked from here with the same key: what the page must show. */
async function apiAnswers(apiUrl: string): Promise<{ vouchers: VoucherDefinitionSummary[]; balances: { availablePointBalance: number; pointBalance: number } }> {
  const headers = { 'X-Api-Key': demo.apiKey };
  const base = `${apiUrl}/client/users/${demo.correlationId}`;
  const session = (await (await fetch(`${base}/sessions`, { method: 'POST', headers: { ...headers, 'X-Identifier-Type': 'CARD_NUMBER' } })).json()) as { sessionToken: string };
  const asMember = { ...headers, Authorization: `Bearer ${session.sessionToken}` };
  const vouchers = (await (await fetch(`${base}/voucher-definitions`, { headers: asMember })).json()) as VoucherDefinitionSummary[];
  // The same update again: idempotent, it answers the balances the page got.
  const update = await fetch(`${base}/reservations/${demo.reservationToken}`, {
    method: 'PUT',
    headers: { ...asMember, 'Content-Type': 'application/json' },
    body: JSON.stringify({ reservationAmount: demo.reservationAmount }),
  });
  return { vouchers, balances: (await update.json()) as { availablePointBalance: number; pointBalance: number } };
}

interface ShownPage {
  session: string;
  requestIds: string[];
  vouchers: Array<{ id: string; locale: string; text: string }>;
  balances: { available: number; balance: number };
  sdkSize: string;
}

async function openExample(browser: Browser, url: string, locale?: string): Promise<Page> {
  const context = await browser.newContext(locale ? { locale } : {});
  const page = await context.newPage();
  await page.goto(url);
  await page.waitForSelector('body[data-state="ready"]', { timeout: 30_000 });
  return page;
}

function shown(page: Page): Promise<ShownPage> {
  return page.evaluate(() => {
    const text = (selector: string) => document.querySelector(selector)?.textContent ?? '';
    const balances = document.getElementById('balances')?.dataset ?? {};
    return {
      session: text('#session-started'),
      requestIds: Array.from(document.querySelectorAll('main .request-note .request-id')).map((code) => code.textContent ?? ''),
      vouchers: Array.from(document.querySelectorAll<HTMLElement>('.voucher')).map((item) => ({
        id: item.dataset.voucherId ?? '',
        locale: item.dataset.locale ?? '',
        text: item.querySelector('.voucher-text')?.textContent ?? '',
      })),
      balances: { available: Number(balances.available), balance: Number(balances.balance) },
      sdkSize: text('#sdk-size'),
    };
  });
}

/** The API writes its log at least once a second (server/src/logger.ts). */
const logFlushMs = 1000;

/**
 * The API's access-log line of a request id: waits for the log's next flush
 * before concluding there is none.
 */
async function loggedAnswer(example: RunningExample, requestId: string): Promise<{ method: string; status: number } | undefined> {
  const deadline = Date.now() + 2 * logFlushMs;
  for (;;) {
    const line = example.apiLog().find((entry) => entry.requestId === requestId && entry.res !== undefined);
    if (line) return { method: (line.req as { method: string }).method, status: (line.res as { statusCode: number }).statusCode };
    if (Date.now() > deadline) return undefined;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('npm run example:web, stopped by SIGTERM (a process manager)', () => {
  let example: RunningExample;
  let browser: Browser;

  beforeAll(async () => {
    browser = await launchChromium();
    example = await startExample();
  }, 200_000);

  afterAll(async () => {
    await browser?.close();
    if (example && (await listens(example.pageUrl))) await example.stop('SIGKILL', { group: true, timeoutMs: 5000 }).catch(() => undefined);
  });

  it('prints the page on 127.0.0.1 and the API it started', () => {
    expect(example.pageUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    expect(example.apiUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(example.lines.join('\n')).toContain(`CORS_ORIGINS=${new URL(example.pageUrl).origin}`);
  });

  // The demo's vouchers have en-CA and fr-CA texts.
  it.each([
    ['en-US', 'en-CA, by language', () => 'en-CA'],
    ['fr-CA', 'fr-CA where a voucher has it, else en-CA', (voucher: VoucherDefinitionSummary) => (voucher.creative['fr-CA'] ? 'fr-CA' : 'en-CA')],
    ['de-DE', 'the en-CA fallback', () => 'en-CA'],
  ])(
    'a %s browser: a session, the vouchers in %s, the reservation lowered and the new balances',
    async (locale, _expected, expectedLocale) => {
      const page = await openExample(browser, example.pageUrl, locale);
      try {
        const seen = await shown(page);
        const api = await apiAnswers(example.apiUrl);
        expect(seen.session).toBe(`Session started for ${demo.correlationId}.`);
        expect(seen.vouchers).toEqual(
          api.vouchers.map((voucher) => {
            const chosen = expectedLocale(voucher);
            return { id: voucher.voucherDefinitionId, locale: chosen, text: voucher.creative[chosen]?.shortDescription1 ?? voucher.definitionName };
          }),
        );
        expect(seen.vouchers.length).toBeGreaterThan(0);
        expect(seen.balances).toEqual({ available: api.balances.availablePointBalance, balance: api.balances.pointBalance });
        // The request id under each result is the one the API logged for that call.
        expect(await Promise.all(seen.requestIds.map((id) => loggedAnswer(example, id)))).toEqual([
          { method: 'POST', status: 201 },
          { method: 'PUT', status: 200 },
          { method: 'GET', status: 200 },
        ]);
      } finally {
        await page.context().close();
      }
    },
  );

  it('shows each error for the member, and for support the call, the answer and the request id the API logged', async () => {
    const page = await openExample(browser, example.pageUrl);
    try {
      const tries: Array<[string, string, string]> = [
        ['#try-raise', 'HTTP 400 INVALID_REQUEST', 'A reservation can only go down.'],
        ['#try-unknown-member', 'HTTP 404 MEMBER_NOT_FOUND', 'We could not find this loyalty account.'],
        ['#try-expired-session', 'HTTP 401 UNAUTHORIZED', 'Your session has ended: please sign in again.'],
        ['#try-business-unit', 'HTTP 400 INVALID_BUSINESS_UNIT', 'Vouchers are not available in this store.'],
        ['#try-unreachable', 'no answer (network, 2 attempts)', 'The loyalty program cannot be reached: check your connection and try again.'],
      ];
      for (const [button] of tries) {
        const before = await page.locator('#support-log .error').count();
        await page.click(button);
        await page.waitForFunction((count) => document.querySelectorAll('#support-log .error').length > count && !document.body.dataset.busy, before, { timeout: 20_000 });
      }
      const cards = await page.$$eval('#support-log .error', (found) =>
        found.map((card) => ({ outcome: (card as HTMLElement).dataset.outcome ?? '', requestId: (card as HTMLElement).dataset.requestId ?? '', headline: card.querySelector('h3')?.textContent ?? '', text: card.textContent ?? '' })),
      );
      // Newest first.
      expect(cards.map(({ outcome, headline }) => [outcome, headline])).toEqual(tries.map(([, outcome, headline]) => [outcome, headline]).reverse());
      for (const card of cards) {
        expect(card.requestId).toMatch(uuid);
        expect(card.text).toContain(`Request id${card.requestId}`);
        expect(card.text).toMatch(/When \(UTC\)\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/);
        const status = /^HTTP (\d{3})/.exec(card.outcome)?.[1];
        // What the API logged under the id support is given: the same answer; a call that never reached it, nothing.
        expect((await loggedAnswer(example, card.requestId))?.status).toBe(status === undefined ? undefined : Number(status));
      }
      mkdirSync(outputDir, { recursive: true });
      const screenshot = path.join(outputDir, 'web-example.png');
      await page.screenshot({ path: screenshot, fullPage: true });
      expect(statSync(screenshot).size).toBeGreaterThan(10_000);
    } finally {
      await page.context().close();
    }
  });

  it(`reports the SDK's size in a page, under ${sdkGzipBudgetBytes / 1000} kB gzipped, built from sdk/dist`, async () => {
    const sdk = await measureSdk(repoRoot);
    expect(sdk.inputs).toContain('sdk/dist/index.mjs');
    expect(sdk.inputs.filter((input) => input.startsWith('sdk/src/'))).toEqual([]);
    expect(sdk.gzipBytes).toBeLessThan(sdkGzipBudgetBytes);
    const kB = (bytes: number) => `${(bytes / 1000).toFixed(1)} kB`;
    const measured = `${kB(sdk.minifiedBytes)} minified, ${kB(sdk.gzipBytes)} gzipped`;
    const printed = example.lines.find((line) => line.startsWith('SDK (@loyalty/sdk with openapi-fetch)'));
    expect(printed).toContain(measured);
    // The guides state the size as measured (update them when it changes).
    for (const readme of ['docs/partner-web-apps.md', 'sdk/README.md']) expect(readFileSync(path.join(repoRoot, readme), 'utf8')).toContain(measured);
    const page = await openExample(browser, example.pageUrl);
    try {
      expect((await shown(page)).sdkSize).toBe(`The SDK in this page: ${kB(sdk.minifiedBytes)} minified, ${kB(sdk.gzipBytes)} gzipped (with openapi-fetch).`);
    } finally {
      await page.context().close();
    }
  });

  it('SIGTERM stops the API gracefully and the page server, exits 0 and frees both ports', async () => {
    const ended = await example.stop('SIGTERM', { group: false, timeoutMs: 20_000 });
    expect(ended).toEqual({ code: 0, signal: null });
    expect(example.apiLog().map((entry) => entry.msg)).toContain('Stopped');
    expect(await listens(example.pageUrl)).toBe(false);
    expect(await listens(example.apiUrl)).toBe(false);
  });
});

describe('npm run example:web, stopped by Ctrl+C (SIGINT to its process group)', () => {
  it('stops both, exits 0 and frees both ports', async () => {
    const example = await startExample();
    const ended = await example.stop('SIGINT', { group: true, timeoutMs: 20_000 });
    expect(ended).toEqual({ code: 0, signal: null });
    expect(example.apiLog().map((entry) => entry.msg)).toContain('Stopped');
    expect(await listens(example.pageUrl)).toBe(false);
    expect(await listens(example.apiUrl)).toBe(false);
  }, 200_000);
});
