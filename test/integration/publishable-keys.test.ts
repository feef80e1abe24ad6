import { wrapStore } from '../../server/src/store/store-wrapper';
import { MemoryStore } from '../../server/src/store/memory/memory-store';
import { connectTestStore, dropTestDatabase, testMongoSource, uniqueDbName, type TestMongoStore } from '../../server/src/store/test-support/mongo-test-server';
import type { Store, StoreMethod } from '../../server/src/store/port';
import { fixtureClient, fixtureMember, fixtureReservation } from '../../server/src/test-support/fixture-entries';
import { createKeyService } from '../../server/src/features/keys/service';
import { startTestApp, type TestApp } from '../../server/src/test-support/app-harness';
import type { SendInit, TestResponse } from '../../server/src/test-support/api-client';
import { startMonitoredProcess, type MonitoredProcess } from '../support/monitored-process';
import { loadFixture } from '../../server/src/features/load/load-fixture';
import { parseFixture } from '../../server/src/features/load/parse-fixture';

/*
 * The rules of the two kinds of key over HTTP, on the embedded store and on
 * MongoDB (MONGODB_URI): a publishable key never starts a session and works
 * only from its origins, with a session a secret key of its client started;
 * a secret key is refused from a page. A refused request changes nothing and
 * writes nothing: every store write (and, on MongoDB with main's wiring,
 * every command) is counted.
 */

jest.setTimeout(60_000);

const t0 = Date.parse('2030-01-01T12:00:00.000Z');
const page = 'https://app.partner.example';
const keys = {
  secret: 'sk_test_partner_0001',
  publishable: 'demo_publishable_partner_web_0001',
  otherSecret: 'sk_test_other_0001',
  otherPublishable: 'publishable_test_other_web_0001',
} as const;

const fixture = {
  clients: [
    fixtureClient('partner-app', keys.secret, { defaultBusinessUnit: 'LCL', publishableKeys: [{ apiKey: keys.publishable, origins: [page, 'http://127.0.0.1:5173'] }] }),
    fixtureClient('other-app', keys.otherSecret, { defaultBusinessUnit: 'LCL', publishableKeys: [{ apiKey: keys.otherPublishable, origins: [page] }] }),
  ],
  members: [fixtureMember('m-alice', 50000)],
  reservations: [fixtureReservation('rt-alice-1', 'm-alice', { 'm-alice': 10000 }, { expiresAt: new Date(t0 + 3600_000).toISOString() })],
};

/** The Store methods that write. */
const writes = new Set<StoreMethod>(['insertSession', 'saveWallet', 'saveReservationChange', 'insertApiKey', 'updateApiKey', 'upsertApiKeys', 'upsertClients', 'upsertMembers']);

const sessionsPath = '/client/users/m-alice/sessions';
const vouchersPath = '/client/users/m-alice/voucher-definitions';
const reservationPath = '/client/users/m-alice/reservations/rt-alice-1';
const forbidden = (errorMessage: string) => ({ statusCode: 403, errorCode: 'FORBIDDEN', errorMessage });
const messages = {
  startsSession: "Sessions are started by the partner's server with a secret key, never with a publishable key",
  origin: 'A publishable key works only from a page on one of its origins',
  secretFromPage: 'Secret keys must not be sent from a web page: use a publishable key there',
} as const;

const source = testMongoSource();
const stores: Array<[string, () => Promise<{ store: Store; cleanup: () => Promise<void> }>]> = [
  ['the embedded store', async () => ({ store: new MemoryStore({ clock: () => new Date(t0) }), cleanup: async () => undefined })],
];
if (source.kind === 'uri') {
  stores.push([
    'MongoDB',
    async () => {
      const connected: TestMongoStore = await connectTestStore(source.uri, 'publishable');
      // The harness closes the store; the database is dropped after it.
      return { store: connected.store, cleanup: () => dropTestDatabase(source.uri, connected.dbName) };
    },
  ]);
} else {
  it.skip(`the kinds of key on MongoDB: skipped, ${source.reason}`, () => undefined);
}

describe.each(stores)('the kinds of key over HTTP, on %s', (_name, open) => {
  let server: TestApp;
  let cleanup: () => Promise<void>;
  const calls: StoreMethod[] = [];
  /** A session of m-alice started by the partner's server with its secret key, and one of another client. */
  let session: string;
  let otherClientsSession: string;

  beforeAll(async () => {
    const opened = await open();
    cleanup = opened.cleanup;
    server = await startTestApp({
      store: opened.store,
      fixture,
      startAt: t0,
      wrapStore: (store) => wrapStore(store, (method, _args, call) => (calls.push(method), call())),
    });
    session = await server.api.startSession(keys.secret, 'm-alice');
    otherClientsSession = await server.api.startSession(keys.otherSecret, 'm-alice');
  });
  afterAll(async () => {
    await server?.close();
    await cleanup?.();
  });

  /** Sends with the partner's publishable key from its page unless told otherwise; records the store calls the request made. */
  async function send(method: string, path: string, init: SendInit & { origin?: string | null } = {}): Promise<TestResponse & { calls: StoreMethod[] }> {
    calls.length = 0;
    const { origin = page, ...rest } = init;
    const headers = { ...(origin !== null && { origin }), ...rest.headers };
    const response = await server.send(method, path, { apiKey: keys.publishable, ...rest, headers });
    await server.settled();
    return { ...response, calls: [...calls] };
  }

  const startFrom = (apiKey: string, origin: string | null) => send('POST', sessionsPath, { apiKey, origin, headers: { 'x-identifier-type': 'CARD_NUMBER' } });
  const list = (init: SendInit & { origin?: string | null } = {}) => send('GET', vouchersPath, { bearer: session, ...init });
  const lower = (amount: number, init: SendInit & { origin?: string | null } = {}) => send('PUT', reservationPath, { bearer: session, json: { reservationAmount: amount }, ...init });
  const reserved = async () => (await server.store.loadWallet('member:m-alice'))?.reservations.find((r) => r.reservationToken === 'rt-alice-1')?.reservationAmount;

  it.each([
    ['from its page', page],
    ['from a server (no Origin)', null],
  ])('Start Session with a publishable key %s: 403, nothing read or written for the member', async (_case, origin) => {
    const response = await startFrom(keys.publishable, origin);
    expect(response.status).toBe(403);
    expect(response.body).toEqual(forbidden(messages.startsSession));
    // The key was read (and, for the page, CORS read the keys' origins), nothing else: no member, no session.
    expect(response.calls.filter((method) => method !== 'findApiKey' && method !== 'listLivePublishableKeys')).toEqual([]);
  });

  it('Operations A and B with the publishable key from its page, in a session the secret key started: served', async () => {
    const listed = await list();
    expect(listed.status).toBe(200);
    expect(listed.headers.get('access-control-allow-origin')).toBe(page);
    const lowered = await lower(9000);
    expect(lowered.status).toBe(200);
    expect(lowered.body).toMatchObject({ reservationToken: 'rt-alice-1', availablePointBalance: 41000 });
    expect(await reserved()).toBe(9000);
  });

  it("from the key's other origin too", async () => {
    expect((await list({ origin: 'http://127.0.0.1:5173' })).status).toBe(200);
  });

  it.each([
    ['without Origin', null],
    ['from an origin it does not name', 'https://evil.example'],
    ['from a look-alike of its origin', `${page}.evil.example`],
  ])('Operations A and B with the publishable key %s: 403, nothing changed or written', async (_case, origin) => {
    const before = await reserved();
    for (const response of [await list({ origin }), await lower(1000, { origin })]) {
      expect(response.status).toBe(403);
      expect(response.body).toEqual(forbidden(messages.origin));
      expect(response.calls.filter((method) => writes.has(method))).toEqual([]);
    }
    const head = await send('HEAD', vouchersPath, { bearer: session, origin });
    expect(head.status).toBe(403);
    expect(await reserved()).toBe(before);
  });

  it("the publishable key with a session another client's secret key started: 401, as today", async () => {
    const before = await reserved();
    for (const response of [await list({ bearer: otherClientsSession }), await lower(1000, { bearer: otherClientsSession })]) {
      expect(response.status).toBe(401);
      expect(response.body).toMatchObject({ errorMessage: 'Invalid or expired session' });
    }
    expect(await reserved()).toBe(before);
  });

  it("another client's publishable key, from an origin it names, with this client's session: 401", async () => {
    expect((await list({ apiKey: keys.otherPublishable })).status).toBe(401);
  });

  it('a secret key from a page: 403 on every operation, nothing changed or written', async () => {
    const before = await reserved();
    const answers = [await startFrom(keys.secret, page), await list({ apiKey: keys.secret }), await lower(1000, { apiKey: keys.secret })];
    for (const response of answers) {
      expect(response.status).toBe(403);
      expect(response.body).toEqual(forbidden(messages.secretFromPage));
      expect(response.calls.filter((method) => writes.has(method))).toEqual([]);
    }
    expect(answers[0]!.calls).not.toContain('findMember');
    expect(await reserved()).toBe(before);
  });

  it("a secret key from servers, or from the API's own origin (its /docs), is served as always", async () => {
    expect((await startFrom(keys.secret, null)).status).toBe(201);
    expect((await startFrom(keys.secret, server.baseUrl)).status).toBe(201);
    expect((await list({ apiKey: keys.secret, origin: null })).status).toBe(200);
  });

  it('a preflight from the publishable key\'s origin is allowed with CORS_ORIGINS unset; revoked, the key stops and its origin leaves the preflights', async () => {
    const preflight = () =>
      send('OPTIONS', vouchersPath, { apiKey: null, origin: 'https://kiosk.partner.example', headers: { 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization,x-api-key' } });
    const keyService = createKeyService({ store: server.store, clock: server.now });
    const kiosk = await keyService.create('partner-app', { kind: 'publishable', origins: ['https://kiosk.partner.example'] });
    const allowed = await preflight();
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get('access-control-allow-origin')).toBe('https://kiosk.partner.example');
    expect((await list({ apiKey: kiosk.apiKey, origin: 'https://kiosk.partner.example' })).status).toBe(200);

    await keyService.revoke('partner-app', kiosk.keyId);
    const refused = await preflight();
    expect(refused.status).toBe(401);
    expect(refused.headers.get('access-control-allow-origin')).toBeNull();
    expect((await list({ apiKey: kiosk.apiKey, origin: 'https://kiosk.partner.example' })).status).toBe(401);
  });
});

describe('the rate limit never counts a refused key', () => {
  let server: TestApp;
  beforeAll(async () => {
    server = await startTestApp({ fixture, startAt: t0, config: { rateLimitPerMinute: 5 } });
  });
  afterAll(() => server.close());

  it("8 refusals, then the publishable key's 5 requests of the minute (its own count: the session's start counted against the secret key), then 429", async () => {
    const session = await server.api.startSession(keys.secret, 'm-alice');
    const list = (origin: string) => server.send('GET', vouchersPath, { apiKey: keys.publishable, bearer: session, headers: { origin } });
    for (let i = 0; i < 8; i++) expect((await list('https://evil.example')).status).toBe(403);
    const served = [];
    for (let i = 0; i < 6; i++) served.push((await list(page)).status);
    expect(served).toEqual([200, 200, 200, 200, 200, 429]);
  });
});

if (source.kind === 'uri') {
  describe("refused keys on MongoDB, with main's wiring (caches, the fleet's rate limit)", () => {
    const dbName = uniqueDbName('forbiddencmds');
    let process: MonitoredProcess;
    let session: string;

    beforeAll(async () => {
      process = await startMonitoredProcess(source.uri, dbName, 6000);
      await process.store.ensureIndexes();
      await loadFixture(process.store, parseFixture(fixture), new Date());
      const started = await fetch(`${process.base}${sessionsPath}`, { method: 'POST', headers: { 'x-api-key': keys.secret, 'x-identifier-type': 'CARD_NUMBER' } });
      session = ((await started.json()) as { sessionToken: string }).sessionToken;
    }, 60_000);
    afterAll(async () => {
      await process?.close();
      await dropTestDatabase(source.uri, dbName);
    });

    it("preflights from a key's origin send no command each: the origins are read once for any number of them", async () => {
      const preflight = () =>
        fetch(`${process.base}${vouchersPath}`, { method: 'OPTIONS', headers: { origin: page, 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization,x-api-key' } });
      // Once read (the process keeps them 2 s), the next preflights are answered from memory.
      expect((await preflight()).status).toBe(204);
      process.sent.length = 0;
      const statuses = [];
      for (let i = 0; i < 50; i++) statuses.push((await preflight()).status);
      expect(new Set(statuses)).toEqual(new Set([204]));
      // At most one read of the keys' origins if their 2 s ran out meanwhile; nothing per preflight.
      const commands = process.sent.filter((c) => c.event.commandName !== 'ping').map((c) => c.name);
      expect(commands.length).toBeLessThanOrEqual(1);
      expect(commands.filter((name) => name !== 'find apiKeys')).toEqual([]);
    });

    it('a 403 sends MongoDB no write: not even a rate-limit claim', async () => {
      const refused: Array<[string, string, Record<string, string>]> = [
        ['POST', sessionsPath, { 'x-api-key': keys.publishable, origin: page, 'x-identifier-type': 'CARD_NUMBER' }],
        ['POST', sessionsPath, { 'x-api-key': keys.secret, origin: page, 'x-identifier-type': 'CARD_NUMBER' }],
        ['GET', vouchersPath, { 'x-api-key': keys.publishable, authorization: `Bearer ${session}` }],
        ['PUT', reservationPath, { 'x-api-key': keys.publishable, origin: 'https://evil.example', authorization: `Bearer ${session}`, 'content-type': 'application/json' }],
        ['PUT', reservationPath, { 'x-api-key': keys.secret, origin: page, authorization: `Bearer ${session}`, 'content-type': 'application/json' }],
      ];
      process.sent.length = 0;
      for (const [method, path, headers] of refused) {
        const response = await fetch(`${process.base}${path}`, { method, headers, ...(method === 'PUT' && { body: '{"reservationAmount":0}' }) });
        expect(response.status).toBe(403);
        await response.arrayBuffer();
      }
      await process.store.outbox.settle();
      const written = process.sent.map((c) => c.event.commandName).filter((name) => ['insert', 'update', 'delete', 'findAndModify'].includes(name));
      expect(written).toEqual([]);
    });
  });
}
