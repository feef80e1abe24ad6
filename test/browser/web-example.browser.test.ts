import { mkdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import type { VoucherDefinitionSummary } from '@loyalty/sdk';
import { measureSdk, sdkGzipBudgetBytes } from '../../examples/web/build.mjs';
import { demoKeys } from '../../examples/web/demo-data.mjs';
import { launchChromium, outputDir } from '../support/chromium';
import { listens, startExample, type RunningExample } from '../support/example-process';

/*
 * `npm run example:web` as a developer runs it, its page in headless
 * Chromium; what the page shows is checked against the API's own answers
 * and log. The page signs a member in through the partner's backend, which
 * starts the session with the secret key; the page holds only the
 * publishable key and the session token, until the member signs out.
 */

jest.setTimeout(60_000);

const repoRoot = path.resolve(__dirname, '../..');
const keys = demoKeys(repoRoot);
const demo = { correlationId: 'm-alice', name: 'Alice', reservationToken: 'rt-alice-1', reservationAmount: 7500 };
const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The API's answers to the page's calls, asked from here as the partner's server would (its secret key, no Origin): what the page must show. */
async function apiAnswers(apiUrl: string): Promise<{ vouchers: VoucherDefinitionSummary[]; balances: { availablePointBalance: number; pointBalance: number } }> {
  const headers = { 'X-Api-Key': keys.secret };
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

/** The example in a fresh browser context, signed in as `member` through the partner's backend, its journey done. */
async function openExample(browser: Browser, url: string, options: { locale?: string; member?: string; onPage?: (page: Page) => void } = {}): Promise<Page> {
  const context = await browser.newContext(options.locale ? { locale: options.locale } : {});
  const page = await context.newPage();
  options.onPage?.(page);
  await page.goto(url);
  await page.waitForSelector('body[data-state="signed-out"]', { timeout: 30_000 });
  await page.selectOption('#member', options.member ?? demo.correlationId);
  await page.click('#sign-in');
  await page.waitForSelector('body[data-state="ready"]', { timeout: 30_000 });
  return page;
}

function shown(page: Page): Promise<ShownPage> {
  return page.evaluate(() => {
    const text = (selector: string) => document.querySelector(selector)?.textContent ?? '';
    const balances = document.getElementById('balances')?.dataset ?? {};
    return {
      session: text('#signed-in'),
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
  const line = await loggedLine(example, (entry) => entry.requestId === requestId && entry.res !== undefined);
  return line && { method: (line.req as { method: string }).method, status: (line.res as { statusCode: number }).statusCode };
}

/** The API's first access-log line that `matches`, waiting for the log's next flush before concluding there is none. */
async function loggedLine(example: RunningExample, matches: (entry: Record<string, unknown>) => boolean): Promise<Record<string, unknown> | undefined> {
  const deadline = Date.now() + 2 * logFlushMs;
  for (;;) {
    const line = example.apiLog().find(matches);
    if (line) return line;
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

  it('prints the page on 127.0.0.1 and the API it started, whose publishable key names the page', () => {
    expect(example.pageUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    expect(example.apiUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(example.lines.join('\n')).toContain(`its publishable key for ${new URL(example.pageUrl).origin}`);
  });

  // The demo's vouchers have en-CA and fr-CA texts.
  it.each([
    ['en-US', 'en-CA, by language', () => 'en-CA'],
    ['fr-CA', 'fr-CA where a voucher has it, else en-CA', (voucher: VoucherDefinitionSummary) => (voucher.creative['fr-CA'] ? 'fr-CA' : 'en-CA')],
    ['de-DE', 'the en-CA fallback', () => 'en-CA'],
  ])(
    'a %s browser: the sign-in, the vouchers in %s, the reservation lowered and the new balances',
    async (locale, _expected, expectedLocale) => {
      const page = await openExample(browser, example.pageUrl, { locale });
      try {
        const seen = await shown(page);
        const api = await apiAnswers(example.apiUrl);
        expect(seen.session).toBe(`Signed in as ${demo.name} (${demo.correlationId}): the partner's server started the session.`);
        expect(seen.vouchers).toEqual(
          api.vouchers.map((voucher) => {
            const chosen = expectedLocale(voucher);
            return { id: voucher.voucherDefinitionId, locale: chosen, text: voucher.creative[chosen]?.shortDescription1 ?? voucher.definitionName };
          }),
        );
        expect(seen.vouchers.length).toBeGreaterThan(0);
        expect(seen.balances).toEqual({ available: api.balances.availablePointBalance, balance: api.balances.pointBalance });
        // The request id under each result is the one the API logged for that call: the sign-in's, the partner's server's Start Session.
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
        // The page's own script trying to start a session, as a stranger's would: refused.
        ['#try-page-session', 'HTTP 403 FORBIDDEN', 'This page is not allowed to do that.'],
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

  it('a member of a household signs in too: the page shows the household totals of that session', async () => {
    const page = await openExample(browser, example.pageUrl, { member: 'm-hh-1' });
    try {
      expect((await shown(page)).session).toBe("Signed in as Hana (household) (m-hh-1): the partner's server started the session.");
      expect(await page.locator('#balances').textContent()).toContain('Household available');
    } finally {
      await page.context().close();
    }
  });

  it('no file the page loads, nor any answer it reads, holds the secret key; the page holds the publishable key', async () => {
    const bodies: Array<Promise<{ url: string; text: string }>> = [];
    const page = await openExample(browser, example.pageUrl, {
      onPage: (opened) => opened.on('response', (response) => bodies.push(response.text().then((text) => ({ url: response.url(), text }), () => ({ url: response.url(), text: '' })))),
    });
    try {
      await page.click('#try-page-session');
      await page.waitForFunction(() => document.querySelectorAll('#support-log .error').length > 0 && !document.body.dataset.busy);
      const loaded = await Promise.all(bodies);
      const urls = loaded.map(({ url }) => new URL(url).pathname);
      // The page, its script, its configuration, the sign-in, and the API's answers.
      for (const path of ['/', '/app.js', '/config.json', '/sign-in', '/client/users/m-alice/voucher-definitions']) expect(urls).toContain(path);
      expect(loaded.filter(({ text }) => text.includes(keys.secret)).map(({ url }) => url)).toEqual([]);
      // The script's source map too, which developer tools load: the page's sources hold no secret key either.
      const sourceMap = await (await fetch(new URL('/app.js.map', example.pageUrl))).text();
      expect(sourceMap).toContain('src/main.ts');
      expect(sourceMap).not.toContain(keys.secret);
      expect(loaded.find(({ url }) => url.endsWith('/config.json'))?.text).toContain(keys.publishable);
      expect(await page.content()).not.toContain(keys.secret);
    } finally {
      await page.context().close();
    }
  });

  it("the same page on an origin the key does not name (localhost): the partner's backend refuses its sign-in, and the API gives it nothing", async () => {
    const stranger = `http://localhost:${new URL(example.pageUrl).port}/`;
    const refusedContext = await browser.newContext();
    try {
      const refusedPage = await refusedContext.newPage();
      await refusedPage.goto(stranger);
      await refusedPage.waitForSelector('body[data-state="signed-out"]', { timeout: 30_000 });
      await refusedPage.selectOption('#member', demo.correlationId);
      // The backend signs in its own page only, on the origin it was told it serves: this one's Origin and Host agree, and it is refused.
      const refused = refusedPage.waitForResponse((response) => new URL(response.url()).pathname === '/sign-in');
      await refusedPage.click('#sign-in');
      expect((await refused).status()).toBe(403);
      expect(await refusedPage.locator('#sign-in-failed').textContent()).toBe("Sign-in failed: Sign in from this site's own page");
    } finally {
      await refusedContext.close();
    }

    // Given a session all the same (the one the backend starts for its own page), the page on localhost still gets nothing from the API.
    const session = await fetch(new URL('/sign-in', example.pageUrl), {
      method: 'POST',
      headers: { Origin: new URL(example.pageUrl).origin, 'Content-Type': 'application/json' },
      body: JSON.stringify({ member: demo.correlationId }),
    });
    expect(session.status).toBe(200);
    const signedIn = await session.text();
    const context = await browser.newContext();
    // The page's own fetch answers its sign-in with that session. Not page.route: with interception on,
    // Playwright answers CORS preflights itself, and the API's refusal of them is what this test watches.
    await context.addInitScript((answer: string) => {
      const pageFetch = window.fetch.bind(window);
      window.fetch = (input, init) => {
        const url = new URL(input instanceof Request ? input.url : String(input), location.href);
        if (url.pathname !== '/sign-in') return pageFetch(input, init);
        return Promise.resolve(new Response(answer, { status: 200, headers: { 'Content-Type': 'application/json' } }));
      };
    }, signedIn);
    const page = await context.newPage();
    try {
      await page.goto(stranger);
      await page.waitForSelector('body[data-state="signed-out"]', { timeout: 30_000 });
      await page.selectOption('#member', demo.correlationId);
      await page.click('#sign-in');
      await page.waitForSelector('body[data-state="ready"]', { timeout: 30_000 });
      const outcome = await page.evaluate(() => ({
        origin: location.origin,
        vouchers: document.querySelectorAll('.voucher').length,
        balances: document.getElementById('balances') !== null,
        outcomes: Array.from(document.querySelectorAll<HTMLElement>('#support-log .error')).map((card) => card.dataset.outcome),
      }));
      expect(outcome).toEqual({
        origin: stranger.replace(/\/$/, ''),
        vouchers: 0,
        balances: false,
        // Newest first: the update (PUT), then the listing (GET), each retried and never answered.
        outcomes: ['no answer (network, 3 attempts)', 'no answer (network, 3 attempts)'],
      });
      // Its preflights met the API key check: no CORS header, so the browser sent nothing more.
      const preflight = await loggedLine(
        example,
        (entry) => (entry.req as { method?: string } | undefined)?.method === 'OPTIONS' && (entry.res as { statusCode?: number } | undefined)?.statusCode === 401,
      );
      expect(preflight).toBeDefined();
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

  it('signs out: the page ends the session (204, as the API logged it), shows nothing of the member, and the old token is refused', async () => {
    let signInAnswer: Promise<{ sessionToken: string }> | undefined;
    const page = await openExample(browser, example.pageUrl, {
      onPage: (opened) => {
        signInAnswer = opened.waitForResponse((response) => new URL(response.url()).pathname === '/sign-in').then((response) => response.json() as Promise<{ sessionToken: string }>);
      },
    });
    try {
      const { sessionToken } = await signInAnswer!;
      await page.click('#sign-out');
      await page.waitForSelector('body[data-state="signed-out"]', { timeout: 30_000 });
      const after = await page.evaluate(() => ({
        text: document.getElementById('signed-out')?.textContent,
        outcome: document.getElementById('signed-out')?.dataset.outcome,
        requestId: document.querySelector('#session-result .request-id')?.textContent ?? '',
        signInOffered: document.getElementById('sign-in-form')?.hidden === false,
        signOutOffered: document.getElementById('sign-out')?.hidden === false,
        vouchers: document.querySelectorAll('.voucher').length,
        balances: document.getElementById('balances') !== null,
        memberButtonsDisabled: Array.from(document.querySelectorAll<HTMLButtonElement>('.tries button')).every((button) => button.disabled),
        supportCards: document.querySelectorAll('#support-log .error').length,
      }));
      expect(after).toEqual({
        text: 'Signed out: your loyalty session has ended.',
        outcome: 'ended',
        requestId: expect.stringMatching(uuid),
        signInOffered: true,
        signOutOffered: false,
        vouchers: 0,
        balances: false,
        memberButtonsDisabled: true,
        supportCards: 0,
      });
      // The request id under the sign-out is the one the API logged for the page's DELETE.
      expect(await loggedAnswer(example, after.requestId)).toEqual({ method: 'DELETE', status: 204 });

      // The old token is refused from then on, from the page (its publishable key) as from the partner's server (its secret key).
      const fromPage = await page.evaluate(
        async ({ apiUrl, key, token }) => {
          const answer = await fetch(`${apiUrl}/client/users/m-alice/voucher-definitions`, { headers: { 'X-Api-Key': key, Authorization: `Bearer ${token}` } });
          return { status: answer.status, body: (await answer.json()) as unknown };
        },
        { apiUrl: example.apiUrl, key: keys.publishable, token: sessionToken },
      );
      const fromServer = await fetch(`${example.apiUrl}/client/users/${demo.correlationId}/voucher-definitions`, {
        headers: { 'X-Api-Key': keys.secret, Authorization: `Bearer ${sessionToken}` },
      });
      const refused = { statusCode: 401, errorCode: 'UNAUTHORIZED', errorMessage: 'Invalid or expired session' };
      expect(fromPage).toEqual({ status: 401, body: refused });
      expect({ status: fromServer.status, body: await fromServer.json() }).toEqual({ status: 401, body: refused });
      // Ending it again is 401 too: the token is no session any more.
      const again = await fetch(`${example.apiUrl}/client/users/${demo.correlationId}/sessions/current`, {
        method: 'DELETE',
        headers: { 'X-Api-Key': keys.secret, Authorization: `Bearer ${sessionToken}` },
      });
      expect({ status: again.status, body: await again.json() }).toEqual({ status: 401, body: refused });

      // The member can sign in again: a new session, the journey as before.
      await page.selectOption('#member', demo.correlationId);
      await page.click('#sign-in');
      await page.waitForSelector('body[data-state="ready"]', { timeout: 30_000 });
      const seen = await shown(page);
      expect(seen.session).toBe(`Signed in as ${demo.name} (${demo.correlationId}): the partner's server started the session.`);
      expect(seen.vouchers.length).toBeGreaterThan(0);
      expect(await page.locator('#sign-out').isEnabled()).toBe(true);
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
