import { createLoyaltyClient, type RetryOptions } from '@loyalty/sdk';
import { fakeFetch, json, networkError, recordingSleep, reservation, session, type Reply } from './support/fake-fetch';

const baseUrl = 'https://loyalty.example.com';
const apiKey = 'demo_secret_partner_app_0001';

function setup(replies: Reply[], retries: RetryOptions = {}) {
  const fake = fakeFetch(...replies);
  const recorder = recordingSleep();
  const loyalty = createLoyaltyClient({
    baseUrl,
    apiKey,
    fetch: fake.fetch,
    retries: { random: () => 0.5, sleep: recorder.sleep, ...retries },
  });
  return { ...fake, ...recorder, loyalty };
}

const list = { correlationId: 'm-alice', sessionToken: 'st' };
const update = { correlationId: 'm-alice', sessionToken: 'st', reservationToken: 'rt-1', body: { reservationAmount: 7500 } };
const unavailable = (retryAfter?: string) =>
  json(503, { statusCode: 503, errorCode: 'SERVICE_UNAVAILABLE', errorMessage: 'Service unavailable' }, retryAfter === undefined ? {} : { 'Retry-After': retryAfter });
const tooMany = (retryAfter?: string) =>
  json(429, { statusCode: 429, errorCode: 'TOO_MANY_REQUESTS', errorMessage: 'Too many requests' }, retryAfter === undefined ? {} : { 'Retry-After': retryAfter });

describe('what is retried', () => {
  it.each([502, 503, 504])('retries a GET answered %i, then returns the success', async (status) => {
    const { loyalty, requests } = setup([new Response('busy', { status }), json(200, [])]);
    const result = await loyalty.listVoucherDefinitions(list);
    expect(result.data).toEqual([]);
    expect(requests).toHaveLength(2);
  });

  it('retries the idempotent PUT, sending the same body, request id and credentials each time', async () => {
    const { loyalty, requests } = setup([unavailable(), networkError(), json(200, reservation)]);
    const result = await loyalty.updateReservation(update);

    expect(result.data).toEqual(reservation);
    expect(requests).toHaveLength(3);
    const bodies = await Promise.all(requests.map((r) => r.text()));
    expect(bodies).toEqual(Array(3).fill(JSON.stringify(update.body)));
    for (const header of ['X-Request-Id', 'X-Api-Key', 'Authorization', 'User-Agent', 'Content-Type']) {
      expect(new Set(requests.map((r) => r.headers.get(header))).size).toBe(1);
    }
    expect(requests[0]?.headers.get('X-Request-Id')).toBe(result.requestId);
  });

  it('retries a network error on a GET', async () => {
    const { loyalty, requests } = setup([networkError(), json(200, [])]);
    expect((await loyalty.listVoucherDefinitions(list)).data).toEqual([]);
    expect(requests).toHaveLength(2);
  });

  it.each([400, 401, 404, 500])('does not retry %i', async (status) => {
    const { loyalty, requests, delays } = setup([new Response('no', { status }), json(200, [])]);
    const result = await loyalty.listVoucherDefinitions(list);
    expect(result.response.status).toBe(status);
    expect(requests).toHaveLength(1);
    expect(delays).toEqual([]);
  });

  it('never retries startSession (POST is not idempotent), even on 503', async () => {
    const { loyalty, requests } = setup([unavailable(), json(201, session)]);
    const result = await loyalty.startSession({ correlationId: 'm', identifierType: 'EMAIL' });
    expect(result.error?.errorCode).toBe('SERVICE_UNAVAILABLE');
    expect(requests).toHaveLength(1);
  });

  it('never retries startSession on a network error: it rejects at once', async () => {
    const { loyalty, requests } = setup([networkError(), json(201, session)]);
    await expect(loyalty.startSession({ correlationId: 'm', identifierType: 'EMAIL' })).rejects.toMatchObject({
      name: 'LoyaltyRequestError',
      reason: 'network',
      attempts: 1,
    });
    expect(requests).toHaveLength(1);
  });
});

describe('endSession (DELETE): retried, since ending a session twice leaves it ended', () => {
  const signOut = { correlationId: 'm-alice', sessionToken: 'st' };
  const noSession = () => json(401, { statusCode: 401, errorCode: 'UNAUTHORIZED', errorMessage: 'Invalid or expired session' });
  const ended = () => new Response(null, { status: 204 });

  it.each([
    ['a network error', networkError],
    ['a 503', () => unavailable()],
    ['a 429', () => tooMany('1')],
  ])('after %s, retries with the same request id and credentials, then gives the 204', async (_case, first) => {
    const { loyalty, requests } = setup([first(), ended()]);
    const result = await loyalty.endSession(signOut);
    expect(result.error).toBeUndefined();
    expect(result.response.status).toBe(204);
    expect(requests.map((r) => r.method)).toEqual(['DELETE', 'DELETE']);
    for (const header of ['X-Request-Id', 'X-Api-Key', 'Authorization']) {
      expect(new Set(requests.map((r) => r.headers.get(header))).size).toBe(1);
    }
  });

  it.each([
    ['a network error', networkError],
    ['a 503', () => unavailable()],
  ])(
    "after %s whose attempt may have ended the session, hands back the retry's 401 as it came: the token is no session any more",
    async (_case, first) => {
      const { loyalty, requests } = setup([first(), noSession()]);
      const result = await loyalty.endSession(signOut);
      expect(result.response.status).toBe(401);
      expect(result.error).toEqual({ statusCode: 401, errorCode: 'UNAUTHORIZED', errorMessage: 'Invalid or expired session' });
      expect(requests).toHaveLength(2);
    },
  );

  it('does not retry a 401 of its own: the token was no session already', async () => {
    const { loyalty, requests, delays } = setup([noSession(), ended()]);
    expect((await loyalty.endSession(signOut)).response.status).toBe(401);
    expect(requests).toHaveLength(1);
    expect(delays).toEqual([]);
  });

  it('rejects with the network error once retries are used up: whether the session ended is unknown', async () => {
    const { loyalty, requests } = setup([networkError(), networkError(), networkError()], { limit: 2 });
    await expect(loyalty.endSession(signOut)).rejects.toMatchObject({ name: 'LoyaltyRequestError', reason: 'network', method: 'DELETE', attempts: 3 });
    expect(requests).toHaveLength(3);
  });
});

describe('how many times', () => {
  it('makes 1 + retries attempts (default 2 retries), then returns the last answer', async () => {
    const { loyalty, requests } = setup([unavailable(), unavailable(), unavailable(), json(200, [])]);
    const result = await loyalty.listVoucherDefinitions(list);
    expect(result.error?.errorCode).toBe('SERVICE_UNAVAILABLE');
    expect(result.response.status).toBe(503);
    expect(requests).toHaveLength(3);
  });

  it('takes a count as the retries option', async () => {
    const fake = fakeFetch(unavailable(), unavailable(), json(200, []));
    const loyalty = createLoyaltyClient({ baseUrl, apiKey, fetch: fake.fetch, retries: 0 });
    const result = await loyalty.listVoucherDefinitions(list);
    expect(result.response.status).toBe(503);
    expect(fake.requests).toHaveLength(1);
  });

  it('rejects with the network error once retries are used up', async () => {
    const { loyalty, requests } = setup([networkError(), networkError(), networkError()], { limit: 2 });
    const failure = loyalty.updateReservation(update);
    await expect(failure).rejects.toMatchObject({ reason: 'network', attempts: 3 });
    expect(requests).toHaveLength(3);
  });
});

describe('backoff', () => {
  it('doubles the ceiling on each retry and draws a jittered delay below it', async () => {
    const { loyalty, delays } = setup([unavailable(), unavailable(), unavailable(), json(200, [])], {
      limit: 3,
      baseDelayMs: 100,
      random: () => 0.5,
    });
    await loyalty.listVoucherDefinitions(list);
    expect(delays).toEqual([50, 100, 200]);
  });

  it('uses the jitter source for every delay', async () => {
    const draws = [0.1, 0.9];
    const { loyalty, delays } = setup([networkError(), networkError(), json(200, [])], {
      baseDelayMs: 1000,
      random: () => draws.shift() ?? 0,
    });
    await loyalty.listVoucherDefinitions(list);
    expect(delays).toEqual([100, 1800]);
  });

  it('caps the delay at maxDelayMs', async () => {
    const replies = [...Array.from({ length: 5 }, unavailable), json(200, [])];
    const { loyalty, delays } = setup(replies, { limit: 5, baseDelayMs: 1000, maxDelayMs: 3000, random: () => 0.999 });
    await loyalty.listVoucherDefinitions(list);
    expect(delays).toEqual([999, 1998, 2997, 2997, 2997]);
  });
});

describe('Retry-After', () => {
  it('waits the seconds a 429 asks for instead of the backoff', async () => {
    const { loyalty, delays, requests } = setup([tooMany('3'), json(200, [])]);
    const result = await loyalty.listVoucherDefinitions(list);
    expect(result.data).toEqual([]);
    expect(delays).toEqual([3000]);
    expect(requests).toHaveLength(2);
  });

  it('honours it on a 503 too', async () => {
    const { loyalty, delays } = setup([unavailable('1'), json(200, [])]);
    await loyalty.listVoucherDefinitions(list);
    expect(delays).toEqual([1000]);
  });

  it('reads an HTTP-date', async () => {
    // The wall clock of the test's, on a whole second (HTTP-dates have whole seconds); timers stay real.
    jest.useFakeTimers({ now: Date.parse('2026-11-21T12:00:00.000Z'), doNotFake: ['hrtime', 'nextTick', 'performance', 'queueMicrotask', 'setImmediate', 'clearImmediate', 'setInterval', 'clearInterval', 'setTimeout', 'clearTimeout'] });
    try {
      const inFiveSeconds = new Date(Date.now() + 5000).toUTCString();
      const { loyalty, delays } = setup([tooMany(inFiveSeconds), json(200, [])]);
      await loyalty.listVoucherDefinitions(list);
      expect(delays).toEqual([5000]);
    } finally {
      jest.useRealTimers();
    }
  });

  it('falls back to the backoff when a 429 has no (readable) Retry-After', async () => {
    const { loyalty, delays } = setup([tooMany(), tooMany('soon'), json(200, [])], { baseDelayMs: 100, random: () => 0.5 });
    await loyalty.listVoucherDefinitions(list);
    expect(delays).toEqual([50, 100]);
  });

  it('returns the 429 at once when Retry-After is longer than maxRetryAfterMs', async () => {
    const { loyalty, delays, requests } = setup([tooMany('120'), json(200, [])], { maxRetryAfterMs: 30_000 });
    const result = await loyalty.listVoucherDefinitions(list);
    expect(result.error?.errorCode).toBe('TOO_MANY_REQUESTS');
    expect(result.response.headers.get('Retry-After')).toBe('120');
    expect(requests).toHaveLength(1);
    expect(delays).toEqual([]);
  });
});

describe('cancelling', () => {
  it("stops waiting between attempts when the caller's signal aborts", async () => {
    const fake = fakeFetch(unavailable(), json(200, []));
    const controller = new AbortController();
    const loyalty = createLoyaltyClient({
      baseUrl,
      apiKey,
      fetch: fake.fetch,
      // A sleep that never ends by itself: only the abort can end the wait.
      retries: { sleep: () => new Promise(() => controller.abort(new Error('user left the page'))) },
    });
    await expect(loyalty.listVoucherDefinitions({ ...list, signal: controller.signal })).rejects.toMatchObject({
      name: 'LoyaltyRequestError',
      reason: 'aborted',
      attempts: 1,
    });
    expect(fake.requests).toHaveLength(1);
  });
});
