import { wrapStore } from '../../server/src/store/store-wrapper';
import { fixtureClient, fixtureMember } from '../../server/src/test-support/fixture-entries';
import { startTestApp, type TestApp } from '../../server/src/test-support/app-harness';
import type { AppConfig } from '../../server/src/config';
import type { SendInit, TestResponse } from '../../server/src/test-support/api-client';

/*
 * The rate limits over HTTP, as a stranger holding the public key and the
 * partner's own servers meet them, on the embedded store with the real
 * services: each API key counts on its own; a publishable key's request
 * counts against its session first; a request refused for its credentials
 * counts against nothing; a client address that keeps being refused has
 * no unknown credential looked up, with the known ones still served.
 * MongoDB's side (the fleet's count, the commands each case costs):
 * test/integration/mongo-commands.test.ts.
 */

const page = 'https://app.partner.example';
const keys = { secret: 'secret_test_limits_0001', publishable: 'publishable_test_limits_0001' } as const;
const members = ['m-1', 'm-2', 'm-3', 'm-4', 'm-5', 'm-6'];
const fixture = {
  clients: [fixtureClient('partner-app', keys.secret, { defaultBusinessUnit: 'LCL', publishableKeys: [{ apiKey: keys.publishable, origins: [page] }] })],
  members: members.map((id) => fixtureMember(id, 1000)),
};

const vouchers = (member: string) => `/client/users/${member}/voucher-definitions`;
const fromPage = (token?: string): SendInit => ({ apiKey: keys.publishable, headers: { origin: page }, ...(token !== undefined && { bearer: token }) });
const fromServer = (token: string): SendInit => ({ apiKey: keys.secret, bearer: token });

async function statuses(count: number, send: (i: number) => Promise<TestResponse>): Promise<number[]> {
  const answered = [];
  for (let i = 0; i < count; i++) answered.push((await send(i)).status);
  return answered;
}

const tally = (answered: number[]) => answered.reduce<Record<number, number>>((counts, status) => ({ ...counts, [status]: (counts[status] ?? 0) + 1 }), {});

describe('rate limits per API key and per session', () => {
  let app: TestApp;
  const limits = async (config: Partial<AppConfig>) => {
    app = await startTestApp({ fixture, config: { rateLimitPerMinute: 10, sessionRateLimitPerMinute: 4, ...config } });
  };
  afterEach(() => app.close());

  it("a flood with the publishable key and no session (or a made-up one), twice the key's limit, leaves both keys working", async () => {
    await limits({});
    expect(await statuses(20, () => app.send('GET', vouchers('m-1'), fromPage()))).toEqual(Array(20).fill(401));
    expect(await statuses(20, (i) => app.send('GET', vouchers('m-1'), fromPage(`st_made_up_${i}`)))).toEqual(Array(20).fill(401));
    const token = await app.api.startSession(keys.secret, 'm-1');
    const served = await app.send('GET', vouchers('m-1'), fromPage(token));
    expect(served.status).toBe(200);
    // The publishable key's first counted request: none of the 40 refusals counted.
    expect(served.headers.get('ratelimit')).toBe('"10-in-1min"; r=9; t=60, "session-4-in-1min"; r=3; t=60');
    expect((await app.send('GET', vouchers('m-1'), fromServer(token))).status).toBe(200);
  });

  it("a flood with valid sessions of several members, each under its own limit, past the publishable key's limit: 429 naming the key, and the secret key keeps working", async () => {
    await limits({});
    const tokens: string[] = [];
    for (const member of members.slice(0, 5)) tokens.push(await app.api.startSession(keys.secret, member));
    const answered = await statuses(15, (i) => app.send('GET', vouchers(members[i % 5]!), fromPage(tokens[i % 5])));
    expect(answered).toEqual([...Array(10).fill(200), ...Array(5).fill(429)]);
    const refused = await app.send('GET', vouchers('m-1'), fromPage(tokens[0]));
    expect(refused.body).toEqual({ statusCode: 429, errorCode: 'TOO_MANY_REQUESTS', errorMessage: 'Too many requests with this API key: at most 10 a minute' });
    expect(refused.headers.get('ratelimit-policy')).toMatch(/^"10-in-1min"; q=10; w=60; pk=:[A-Za-z0-9+/=]+:$/);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    // Five starts and this one: the secret key's own count.
    expect((await app.send('GET', vouchers('m-1'), fromServer(tokens[0]!))).status).toBe(200);
  });

  it("one session past its own limit: 429 naming the session, while another member's session on the same publishable key is served", async () => {
    await limits({ rateLimitPerMinute: 100 });
    const alice = await app.api.startSession(keys.secret, 'm-1');
    const bob = await app.api.startSession(keys.secret, 'm-2');
    expect(await statuses(5, () => app.send('GET', vouchers('m-1'), fromPage(alice)))).toEqual([200, 200, 200, 200, 429]);
    const refused = await app.send('GET', vouchers('m-1'), fromPage(alice));
    expect(refused.body).toEqual({ statusCode: 429, errorCode: 'TOO_MANY_REQUESTS', errorMessage: 'Too many requests in this session: at most 4 a minute' });
    expect(refused.headers.get('ratelimit-policy')).toBe('"session-4-in-1min"; q=4; w=60');
    expect(refused.headers.get('ratelimit')).toBe('"session-4-in-1min"; r=0; t=60');
    const served = await app.send('GET', vouchers('m-2'), fromPage(bob));
    expect(served.status).toBe(200);
    // The key counted alice's four and bob's one; her refusals not at all.
    expect(served.headers.get('ratelimit')).toBe('"100-in-1min"; r=95; t=60, "session-4-in-1min"; r=3; t=60');
    // The partner's server is no page: its requests with alice's session count against its secret key alone.
    expect(await statuses(5, () => app.send('GET', vouchers('m-1'), fromServer(alice)))).toEqual(Array(5).fill(200));
  });

  it('Operation B counts as A does: the session before the key, and a refused session before reading the body', async () => {
    await limits({ rateLimitPerMinute: 100, sessionRateLimitPerMinute: 1 });
    const alice = await app.api.startSession(keys.secret, 'm-1');
    const put = (init: SendInit) => app.send('PUT', '/client/users/m-1/reservations/rt-none', { ...init, json: { reservationAmount: 0 } });
    // Past the session's limit, whatever the body: 429, not the body's 400.
    expect((await put(fromPage(alice))).status).toBe(400);
    expect((await put(fromPage(alice))).status).toBe(429);
    expect((await put(fromPage('st_made_up'))).status).toBe(401);
  });
});

describe('a client address refused for its credentials again and again', () => {
  let app: TestApp;
  /** Reads of keys and sessions that found nothing. */
  let unknownReads: number;
  beforeEach(async () => {
    unknownReads = 0;
    app = await startTestApp({
      fixture,
      config: { authFailuresPerMinute: 30, trustProxy: true },
      wrapStore: (store) =>
        wrapStore(store, async (method, _args, call) => {
          const found = await call();
          if ((method === 'findApiKey' || method === 'findSessionContext') && found === null) unknownReads++;
          return found;
        }),
    });
  });
  afterEach(() => app.close());

  const from = (address: string, init: SendInit): SendInit => ({ ...init, headers: { ...init.headers, 'x-forwarded-for': address } });

  it('120 unknown keys from one address with AUTH_FAILURES_PER_MINUTE=30: at least 80 answered 429, none of those read, and the known key served throughout', async () => {
    const token = await app.api.startSession(keys.secret, 'm-1');
    const known: number[] = [];
    const answered = await statuses(120, async (i) => {
      if (i % 10 === 0) known.push((await app.send('GET', vouchers('m-1'), from('203.0.113.7', fromServer(token)))).status);
      return app.send('GET', vouchers('m-1'), from('203.0.113.7', { apiKey: `secret_test_guess_${i}`, bearer: token }));
    });
    const counts = tally(answered);
    expect(counts[429]).toBeGreaterThanOrEqual(80);
    expect(counts[401]! + counts[429]!).toBe(120);
    // Each 401 cost one read of its key (and none of the session, which the process knows); each 429 none.
    expect(unknownReads).toBe(counts[401]);
    expect(known).toEqual(Array(12).fill(200));
  });

  it('its 429 names the limit and says when a lookup may come again; another address is not affected', async () => {
    // The partner's key, found once: the process knows it from then on.
    await app.api.startSession(keys.secret, 'm-1');
    for (let i = 0; i < 30; i++) await app.send('GET', vouchers('m-1'), from('203.0.113.7', { apiKey: `secret_test_guess_${i}` }));
    // The one lookup a second past the budget, then the refusals.
    const answered = await statuses(3, (i) => app.send('GET', vouchers('m-1'), from('203.0.113.7', { apiKey: `secret_test_more_${i}` })));
    expect(answered.slice(1)).toEqual([429, 429]);
    const refused = await app.send('GET', vouchers('m-1'), from('203.0.113.7', { apiKey: 'secret_test_more_x' }));
    expect(refused.body).toEqual({
      statusCode: 429,
      errorCode: 'TOO_MANY_REQUESTS',
      errorMessage: 'Too many requests refused for their credentials from this address: past 30 a minute, one unknown key or session is looked up a second',
    });
    expect(refused.headers.get('ratelimit-policy')).toBe('"refused-credentials-30-in-1min"; q=30; w=60');
    expect(refused.headers.get('retry-after')).toBe('1');
    expect((await app.send('GET', vouchers('m-1'), from('203.0.113.8', { apiKey: 'secret_test_other_guess' }))).status).toBe(401);
    // A request that needs no lookup is answered as ever: the known key (here without a session).
    expect((await app.send('GET', vouchers('m-1'), from('203.0.113.7', { apiKey: keys.secret }))).status).toBe(401);
  });

  it('counts the addresses of an IPv6 /64 as one', async () => {
    for (let i = 0; i < 31; i++) await app.send('GET', vouchers('m-1'), from(`2001:db8:1:2::${i.toString(16)}`, { apiKey: `secret_test_guess_${i}` }));
    expect((await app.send('GET', vouchers('m-1'), from('2001:db8:1:2::ffff', { apiKey: 'secret_test_next' }))).status).toBe(429);
    expect((await app.send('GET', vouchers('m-1'), from('2001:db8:1:3::1', { apiKey: 'secret_test_next' }))).status).toBe(401);
  });
});
