import { createLoyaltyClient, isLoyaltyRequestError, LoyaltyRequestError, type LoyaltyClientOptions } from '@loyalty/sdk';
import { fakeFetch, hang, hangDeaf, json, networkError, reservation, stalledBody, type Reply } from './support/fake-fetch';

const baseUrl = 'https://loyalty.example.com';
const apiKey = 'demo_secret_partner_app_0001';
const list = { correlationId: 'm-alice', sessionToken: 'st' };
const update = { correlationId: 'm-alice', sessionToken: 'st', reservationToken: 'rt-secret-1', body: { reservationAmount: 1 } };

// Fake timers drive both the attempt deadlines and the default sleep between
// attempts, so these tests take no real time and cannot be flaky.
beforeEach(() => jest.useFakeTimers());
afterEach(() => jest.useRealTimers());

function setup(replies: Reply[], options: Partial<LoyaltyClientOptions> = {}) {
  const fake = fakeFetch(...replies);
  const loyalty = createLoyaltyClient({ baseUrl, apiKey, fetch: fake.fetch, retries: { random: () => 0 }, ...options });
  return { ...fake, loyalty };
}

/** Settles `promise` while advancing the fake clock; returns how long that took on it (jest's Date, never real time). */
async function settle<T>(promise: Promise<T>): Promise<{ outcome: PromiseSettledResult<T>; fakeMs: number }> {
  const start = Date.now();
  const outcome = Promise.allSettled([promise]).then(([o]) => o as PromiseSettledResult<T>);
  let settled = false;
  void outcome.then(() => (settled = true));
  while (!settled) await jest.advanceTimersByTimeAsync(10);
  return { outcome: await outcome, fakeMs: Date.now() - start };
}

function rejection(outcome: PromiseSettledResult<unknown>): LoyaltyRequestError {
  if (outcome.status !== 'rejected') throw new Error('expected a rejection');
  expect(outcome.reason).toBeInstanceOf(LoyaltyRequestError);
  return outcome.reason as LoyaltyRequestError;
}

describe('timeouts', () => {
  it('rejects startSession with reason "timeout" after timeoutMs, without retrying', async () => {
    const { loyalty, requests } = setup([hang, json(201, {})], { timeoutMs: 1000 });
    const { outcome, fakeMs } = await settle(loyalty.startSession({ correlationId: 'm', identifierType: 'EMAIL' }));
    const error = rejection(outcome);

    expect(error.reason).toBe('timeout');
    expect(error.attempts).toBe(1);
    expect(error.message).toBe(`POST request timed out after 1000 ms (1 attempt, request id ${error.requestId})`);
    expect(error.requestId).toBe(requests[0]?.headers.get('X-Request-Id'));
    expect(fakeMs).toBeGreaterThanOrEqual(1000);
    expect(fakeMs).toBeLessThan(1100);
    expect(requests).toHaveLength(1);
  });

  it('aborts the signal it gave to fetch, so the connection is released', async () => {
    const { loyalty, requests } = setup([hang], { timeoutMs: 500, retries: 0 });
    await settle(loyalty.listVoucherDefinitions(list));
    expect(requests[0]?.signal.aborted).toBe(true);
  });

  it('gives every attempt of a GET its own deadline, then rejects after the last', async () => {
    const { loyalty, requests } = setup([hang, hang, hang], { timeoutMs: 1000, retries: { limit: 2, random: () => 0 } });
    const { outcome, fakeMs } = await settle(loyalty.listVoucherDefinitions(list));
    const error = rejection(outcome);

    expect(error).toMatchObject({ reason: 'timeout', attempts: 3 });
    expect(requests).toHaveLength(3);
    expect(fakeMs).toBeGreaterThanOrEqual(3000);
    expect(fakeMs).toBeLessThan(3100);
  });

  it('retries a timed-out PUT and returns the answer of the next attempt', async () => {
    const { loyalty, requests } = setup([hang, json(200, reservation)], { timeoutMs: 1000 });
    const { outcome } = await settle(loyalty.updateReservation(update));
    expect(outcome.status).toBe('fulfilled');
    expect(requests).toHaveLength(2);
  });

  it('times out even when the fetch ignores its signal', async () => {
    const { loyalty } = setup([hangDeaf], { timeoutMs: 200, retries: 0 });
    const { outcome, fakeMs } = await settle(loyalty.listVoucherDefinitions(list));
    expect(rejection(outcome).reason).toBe('timeout');
    expect(fakeMs).toBeLessThan(300);
  });

  it('covers the body: headers then a stalled body still time out', async () => {
    const { loyalty } = setup([stalledBody()], { timeoutMs: 300, retries: 0 });
    const { outcome } = await settle(loyalty.listVoucherDefinitions(list));
    expect(rejection(outcome).reason).toBe('timeout');
  });

  it('waits as long as it takes with timeoutMs 0', async () => {
    const slow = (): Promise<Response> => new Promise((resolve) => setTimeout(() => resolve(json(200, [])), 60_000));
    const { loyalty } = setup([slow], { timeoutMs: 0 });
    const { outcome, fakeMs } = await settle(loyalty.listVoucherDefinitions(list));
    expect(outcome.status).toBe('fulfilled');
    expect(fakeMs).toBeGreaterThanOrEqual(60_000);
  });

  it('defaults to 10 seconds per attempt', async () => {
    const { loyalty } = setup([hang], { retries: 0 });
    const { outcome, fakeMs } = await settle(loyalty.listVoucherDefinitions(list));
    expect(rejection(outcome).reason).toBe('timeout');
    expect(fakeMs).toBeGreaterThanOrEqual(10_000);
    expect(fakeMs).toBeLessThan(10_100);
  });
});

describe('network errors', () => {
  it('reject with reason "network", the original error as cause, and the request id', async () => {
    const cause = networkError();
    const { loyalty, requests } = setup([cause], { retries: 0 });
    const { outcome } = await settle(loyalty.listVoucherDefinitions(list));
    const error = rejection(outcome);

    expect(error.reason).toBe('network');
    expect(error.cause).toBe(cause);
    expect(error.method).toBe('GET');
    expect(error.url).toBe(`${baseUrl}/client/users/m-alice/voucher-definitions`);
    expect(error.requestId).toBe(requests[0]?.headers.get('X-Request-Id'));
    expect(error.message).toBe(`GET request failed: network error (1 attempt, request id ${error.requestId})`);
  });

  it('keep the path (member id, reservation token) out of the message', async () => {
    const { loyalty } = setup([networkError()], { retries: 0 });
    const { outcome } = await settle(loyalty.updateReservation(update));
    const error = rejection(outcome);
    expect(error.message).not.toContain('m-alice');
    expect(error.message).not.toContain('rt-secret-1');
    expect(error.url).toContain('rt-secret-1');
  });

  it('are recognised by isLoyaltyRequestError, also across package copies', async () => {
    const { loyalty } = setup([networkError()], { retries: 0 });
    const { outcome } = await settle(loyalty.listVoucherDefinitions(list));
    expect(isLoyaltyRequestError(rejection(outcome))).toBe(true);
    // What an error from the other (ESM or CommonJS) copy of the SDK looks like here.
    const foreign = Object.assign(new Error('x'), { name: 'LoyaltyRequestError', reason: 'network' });
    expect(isLoyaltyRequestError(foreign)).toBe(true);
    expect(isLoyaltyRequestError(new TypeError('fetch failed'))).toBe(false);
    expect(isLoyaltyRequestError(undefined)).toBe(false);
  });
});

describe('answers that are not the API', () => {
  it('reject a 2xx whose body is not JSON with reason "invalid-response", without retrying', async () => {
    const portal = new Response('<html>Log in to the hotel wifi</html>', { status: 200, headers: { 'Content-Type': 'text/html' } });
    const { loyalty, requests } = setup([portal, json(200, [])]);
    const { outcome } = await settle(loyalty.listVoucherDefinitions(list));
    const error = rejection(outcome);

    expect(error).toMatchObject({ reason: 'invalid-response', status: 200, attempts: 1 });
    expect(error.cause).toBeInstanceOf(SyntaxError);
    expect(error.message).toBe(`GET request got an answer that is not JSON (HTTP 200) (1 attempt, request id ${error.requestId})`);
    expect(requests).toHaveLength(1);
  });

  it('treat a body cut off mid-way as a network error, and retry it', async () => {
    const cut = new Response(
      new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new TextEncoder().encode('[{"voucher'));
          controller.error(new TypeError('terminated'));
        },
      }),
      { status: 200 },
    );
    const { loyalty, requests } = setup([cut, json(200, [])]);
    const { outcome } = await settle(loyalty.listVoucherDefinitions(list));
    expect(outcome).toEqual({ status: 'fulfilled', value: expect.objectContaining({ data: [] }) });
    expect(requests).toHaveLength(2);
  });
});

describe('LoyaltyRequestError', () => {
  it('names itself in its stack trace', async () => {
    const { loyalty } = setup([networkError()], { retries: 0 });
    const { outcome } = await settle(loyalty.listVoucherDefinitions(list));
    const error = rejection(outcome);
    expect(error.name).toBe('LoyaltyRequestError');
    expect(error.stack).toMatch(/^LoyaltyRequestError: GET request failed/);
  });
});

describe("the caller's signal", () => {
  it('aborts a call in flight with reason "aborted" and is not retried', async () => {
    const controller = new AbortController();
    const { loyalty, requests } = setup([hang, json(200, [])]);
    const call = loyalty.listVoucherDefinitions({ ...list, signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    const { outcome, fakeMs } = await settle(call);

    expect(rejection(outcome)).toMatchObject({ reason: 'aborted', attempts: 1 });
    expect(fakeMs).toBeLessThan(100);
    expect(requests).toHaveLength(1);
  });

  it('stops the default backoff sleep between attempts', async () => {
    const controller = new AbortController();
    const { loyalty, requests } = setup([new Response('busy', { status: 503 }), json(200, [])], {
      retries: { baseDelayMs: 60_000, random: () => 1 },
    });
    const call = loyalty.listVoucherDefinitions({ ...list, signal: controller.signal });
    setTimeout(() => controller.abort(), 1000);
    const { outcome, fakeMs } = await settle(call);

    expect(rejection(outcome)).toMatchObject({ reason: 'aborted', attempts: 1 });
    expect(fakeMs).toBeLessThan(1100);
    expect(requests).toHaveLength(1);
  });

  it('rejects at once when already aborted, sending nothing', async () => {
    const { loyalty, requests } = setup([json(200, [])]);
    const { outcome } = await settle(loyalty.listVoucherDefinitions({ ...list, signal: AbortSignal.abort() }));
    expect(rejection(outcome).reason).toBe('aborted');
    expect(requests).toHaveLength(0);
  });
});
