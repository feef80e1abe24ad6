import { wrapStore } from '../../server/src/store/store-wrapper';
import { createKeyService, type IssuedKey } from '../../server/src/features/keys/service';
import { hashSecret } from '../../server/src/domain/secrets';
import { loadFixture } from '../../server/src/features/load/load-fixture';
import { parseFixture } from '../../server/src/features/load/parse-fixture';
import { MemoryStore } from '../../server/src/store/memory/memory-store';
import { connectTestStore, dropTestDatabase, testMongoSource, uniqueDbName } from '../../server/src/store/test-support/mongo-test-server';
import type { Store, StoreMethod } from '../../server/src/store/port';
import { apiKeyRecord } from '../../server/src/store/test-support/records';
import { fixtureClient, fixtureMember } from '../../server/src/test-support/fixture-entries';
import { startTestApp, type TestApp } from '../../server/src/test-support/app-harness';
import { startMonitoredProcess, type MonitoredProcess } from '../support/monitored-process';

/*
 * Keys that say their kind, over HTTP, on the embedded store and on MongoDB
 * (MONGODB_URI): keys made by the key service (`lsk_…`, `lpk_…`) and a key
 * made before them (`key_<id>.<secret>`) work; a generated key with one
 * character changed is `401 Missing or unknown API key` and costs no store
 * call (every call counted through a wrapper of the store; on MongoDB with
 * main's wiring, every command the driver sends).
 */

jest.setTimeout(60_000);

const page = 'https://app.partner.example';
const fixture = {
  clients: [fixtureClient('partner-app', 'demo_secret_partner_app_0001', { defaultBusinessUnit: 'LCL' })],
  members: [fixtureMember('m-alice', 50000)],
};
/** A key as `loyalty-admin` made them before this form: its id, a dot, 256 bits in base64url. */
const keyMadeBefore = { keyId: 'key_0a1b2c3d4e5f', apiKey: 'key_0a1b2c3d4e5f.q3T7xN0vV2yJ8mKcRz5bW1uL9pE4sHgA6fD0iO_jQ-k' };

const sessionsPath = '/client/users/m-alice/sessions';
const vouchersPath = '/client/users/m-alice/voucher-definitions';
const unknownKey = { statusCode: 401, errorCode: 'UNAUTHORIZED', errorMessage: 'Missing or unknown API key' };

/** `key` with the character at `index` replaced by another of the same set (so that it keeps the generated shape). */
function changedAt(key: string, index: number): string {
  const replacement = key[index] === 'p' ? 's' : key[index] === 's' ? 'p' : key[index] === '0' ? '1' : '0';
  return `${key.slice(0, index)}${replacement}${key.slice(index + 1)}`;
}

/** What is done to a generated key: one character changed at each kind of place (kind, id, secret, checksum), or cut short. */
const changes: Array<[string, (key: string) => string]> = [
  ['its kind (lsk_ as lpk_, or back)', (key) => changedAt(key, 1)],
  ['a digit of its id', (key) => changedAt(key, 4)],
  ['a character of its secret', (key) => changedAt(key, 30)],
  ['a character of its checksum', (key) => changedAt(key, key.length - 1)],
  ['its last character cut off', (key) => key.slice(0, -1)],
];

/** Every place of a generated key where `changedAt` keeps its shape: the kind's letter, the id, the secret and the checksum. */
const changeablePlaces = [1, ...Array.from({ length: 12 }, (_, i) => 4 + i), ...Array.from({ length: 49 }, (_, i) => 17 + i)];

const source = testMongoSource();
const stores: Array<[string, () => Promise<{ store: Store; cleanup: () => Promise<void> }>]> = [
  ['the embedded store', async () => ({ store: new MemoryStore(), cleanup: async () => undefined })],
];
if (source.kind === 'uri') {
  stores.push([
    'MongoDB',
    async () => {
      const connected = await connectTestStore(source.uri, 'keyformat');
      return { store: connected.store, cleanup: () => dropTestDatabase(source.uri, connected.dbName) };
    },
  ]);
} else {
  it.skip(`generated keys on MongoDB: skipped, ${source.reason}`, () => undefined);
}

describe.each(stores)('generated keys over HTTP, on %s', (_name, open) => {
  let server: TestApp;
  let cleanup: () => Promise<void>;
  const calls: StoreMethod[] = [];
  let secret: IssuedKey;
  let publishable: IssuedKey;
  let session: string;

  beforeAll(async () => {
    const opened = await open();
    cleanup = opened.cleanup;
    server = await startTestApp({ store: opened.store, fixture, wrapStore: (store) => wrapStore(store, (method, _args, call) => (calls.push(method), call())) });
    // Made on the store itself, as loyalty-admin makes them: not counted.
    const keys = createKeyService({ store: server.store, clock: server.now });
    secret = await keys.create('partner-app');
    publishable = await keys.create('partner-app', { kind: 'publishable', origins: [page] });
    await server.store.insertApiKey(apiKeyRecord(keyMadeBefore.keyId, 'partner-app', { digest: hashSecret(keyMadeBefore.apiKey), createdAt: server.now() }));
    session = await server.api.startSession(secret.apiKey, 'm-alice');
  });
  afterAll(async () => {
    await server?.close();
    await cleanup?.();
  });

  it('keys say their kind', () => {
    expect(secret.apiKey).toMatch(/^lsk_[0-9a-f]{12}_[0-9A-Za-z]{49}$/);
    expect(publishable.apiKey).toMatch(/^lpk_[0-9a-f]{12}_[0-9A-Za-z]{49}$/);
  });

  it('a generated secret key starts sessions and calls Operation A; a generated publishable key calls it from its page; a key made before still works', async () => {
    expect((await server.send('GET', vouchersPath, { apiKey: secret.apiKey, bearer: session })).status).toBe(200);
    expect((await server.send('GET', vouchersPath, { apiKey: publishable.apiKey, bearer: session, headers: { origin: page } })).status).toBe(200);
    const older = await server.send('POST', sessionsPath, { apiKey: keyMadeBefore.apiKey, headers: { 'x-identifier-type': 'CARD_NUMBER' } });
    expect(older.status).toBe(201);
    expect((await server.send('GET', vouchersPath, { apiKey: keyMadeBefore.apiKey, bearer: older.body.sessionToken })).status).toBe(200);
  });

  describe.each([
    ['secret', () => ({ key: secret.apiKey, headers: {} })],
    ['publishable', () => ({ key: publishable.apiKey, headers: { origin: page } })],
  ])('a generated %s key with one character changed', (_kind, sent) => {
    it.each(changes)('(%s) is 401 and costs no store call, on Start Session and on Operation A with a valid session', async (_what, change) => {
      const { key, headers } = sent();
      const value = change(key);
      calls.length = 0;
      const started = await server.send('POST', sessionsPath, { apiKey: value, headers: { ...headers, 'x-identifier-type': 'CARD_NUMBER' } });
      const listed = await server.send('GET', vouchersPath, { apiKey: value, bearer: session, headers });
      await server.settled();
      expect([started.body, listed.body]).toEqual([unknownKey, unknownKey]);
      expect([started.status, listed.status]).toEqual([401, 401]);
      // Only the CORS check of a page's Origin, before any key is read and the same for every request from a page
      // (the origins of all live publishable keys; main's wiring keeps them 2 s), may have asked the store.
      expect(calls.filter((method) => method !== 'listLivePublishableKeys')).toEqual([]);
    });
  });

  it('a value of another form is still looked up in the store (what the form check spares)', async () => {
    calls.length = 0;
    const answered = await server.send('GET', vouchersPath, { apiKey: 'some_key_never_issued_0001', bearer: session });
    expect(answered.status).toBe(401);
    expect(calls.length).toBeGreaterThan(0);
  });
});

if (source.kind === 'uri') {
  describe("generated keys on MongoDB, main's wiring: the driver's commands", () => {
    const dbName = uniqueDbName('keyformatcmds');
    let process: MonitoredProcess;
    let secret: IssuedKey;
    let session: string;

    beforeAll(async () => {
      process = await startMonitoredProcess(source.uri, dbName, 6000);
      await process.store.ensureIndexes();
      await loadFixture(process.store, parseFixture(fixture), new Date());
      secret = await createKeyService({ store: process.store, clock: () => new Date() }).create('partner-app');
      const started = await fetch(`${process.base}${sessionsPath}`, { method: 'POST', headers: { 'x-api-key': secret.apiKey, 'x-identifier-type': 'CARD_NUMBER' } });
      session = ((await started.json()) as { sessionToken: string }).sessionToken;
    }, 60_000);
    afterAll(async () => {
      await process?.close();
      await dropTestDatabase(source.uri, dbName);
    });

    it('the key changed in one character at each of its places, with a valid session: 62 requests, no command', async () => {
      const values = changeablePlaces.map((index) => changedAt(secret.apiKey, index));
      process.sent.length = 0;
      const statuses = new Set<number>();
      for (const value of values) {
        statuses.add((await fetch(`${process.base}${vouchersPath}`, { headers: { 'x-api-key': value, authorization: `Bearer ${session}` } })).status);
      }
      expect(statuses).toEqual(new Set([401]));
      // Without the outbox's sweep, which runs every 30 s whatever the traffic (none has run so soon after the start).
      expect(process.sent.filter((c) => c.event.commandName !== 'ping').map((c) => c.name)).toEqual([]);
    });
  });
}
