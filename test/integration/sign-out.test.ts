import { randomBytes } from 'node:crypto';
import { createKeyService } from '../../server/src/features/keys/service';
import { fixtureKeyId, hashSecret } from '../../server/src/domain/secrets';
import { wrapStore } from '../../server/src/store/store-wrapper';
import { MemoryStore } from '../../server/src/store/memory/memory-store';
import { MongoStore } from '../../server/src/store/mongo/mongo-store';
import { rolledSessionKey } from '../../server/src/domain/session-keys';
import type { Store, StoreMethod } from '../../server/src/store/port';
import { sessionRecord } from '../../server/src/store/test-support/records';
import { connectTestStore, dropTestDatabase, testMongoSource, uniqueDbName, type TestMongoStore } from '../../server/src/store/test-support/mongo-test-server';
import { startTestApp, type TestApp, type TestAppOptions } from '../../server/src/test-support/app-harness';
import { send, type SendInit } from '../../server/src/test-support/api-client';
import { integrationFixture, keys, t0 } from '../support/fixture';

/*
 * Sealed session tokens and sign-out over HTTP, on the embedded store and
 * on MongoDB (MONGODB_URI), with two processes on one store as a fleet
 * runs: Start Session writes nothing; a token opens on any process with no
 * read of it; a token nobody issued, or one character changed, costs no
 * store call; sign-out ends a session at once on its process and on the
 * other within 2 s; what ended stays ended; tokens of the release before
 * keep working until they expire. Every store call is counted.
 */

jest.setTimeout(60_000);

const page = 'https://app.partner.example';
const publishable = 'publishable_test_signout_0001';
const fixture = {
  ...integrationFixture,
  clients: integrationFixture.clients.map((client) => (client.clientId === 'partner-app' ? { ...client, publishableKeys: [{ apiKey: publishable, origins: [page] }] } : client)),
};

const vouchers = (member = 'm-alice') => `/client/users/${member}/voucher-definitions`;
const current = (member = 'm-alice') => `/client/users/${member}/sessions/current`;
const asServer = (token: string): SendInit => ({ apiKey: keys.partner, bearer: token });
const asPage = (token: string): SendInit => ({ apiKey: publishable, bearer: token, headers: { origin: page } });

/** Ended sessions the deployment keeps at most, here (the bound's test). */
const maxEndedSessions = 3;

const source = testMongoSource();
const stores: Array<[string, () => Promise<{ store: Store; cleanup: () => Promise<void> }>]> = [
  ['the embedded store', async () => ({ store: new MemoryStore({ clock: () => new Date(t0) }), cleanup: async () => undefined })],
];
if (source.kind === 'uri') {
  stores.push([
    'MongoDB',
    async () => {
      const mongo: TestMongoStore = await connectTestStore(source.uri, 'signout');
      // The app closes the store; the database is dropped after.
      return { store: mongo.store, cleanup: () => dropTestDatabase(source.uri, mongo.dbName) };
    },
  ]);
}

describe.each(stores)('sealed sessions and sign-out, on %s', (_name, makeStore) => {
  let app: TestApp;
  let cleanup: () => Promise<void>;
  const calls: StoreMethod[] = [];
  const counted = (method: StoreMethod) => calls.filter((m) => m === method).length;

  beforeEach(async () => {
    const made = await makeStore();
    cleanup = made.cleanup;
    calls.length = 0;
    const options: TestAppOptions = {
      store: made.store,
      fixture,
      startAt: t0,
      instances: 2,
      config: { maxEndedSessions },
      wrapStore: (store) =>
        wrapStore(store, async (method, _args, call) => {
          calls.push(method);
          return call();
        }),
    };
    app = await startTestApp(options);
  });
  afterEach(async () => {
    await app.close();
    await cleanup();
  });

  /** Requests to one process of the two (0 is the one `app.send` and `app.api` reach). */
  const on = (instance: number) => (method: string, path: string, init?: SendInit) => send(app.urls[instance]!, method, path, init);

  it('Start Session writes nothing, and the token opens on the other process with no read of any session', async () => {
    const token = await app.api.startSession(keys.partner, 'm-alice');
    expect(token).toMatch(/^st2\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(counted('insertSession')).toBe(0);
    const other = on(1);
    expect((await other('GET', vouchers(), asServer(token))).status).toBe(200);
    expect(counted('findSession') + counted('findSessionContext')).toBe(0);
  });

  it('a token nobody issued, or a real one with a character changed, is refused with no read of a session or its key', async () => {
    const token = await app.api.startSession(keys.partner, 'm-alice');
    // The key and the listing read once; then nothing but what is measured.
    expect((await app.send('GET', vouchers(), asServer(token))).status).toBe(200);
    const at = token.length - 5;
    const altered = token.slice(0, at) + (token[at] === 'A' ? 'B' : 'A') + token.slice(at + 1);
    const forged = `st2.k0.${randomBytes(120).toString('base64url')}`;
    const unknownKid = `st2.nokey.${randomBytes(120).toString('base64url')}`;
    calls.length = 0;
    for (const bad of [altered, forged, unknownKid]) {
      const response = await app.send('GET', vouchers(), asServer(bad));
      expect(response.status).toBe(401);
      expect(response.body.errorMessage).toBe('Invalid or expired session');
    }
    // The API key is read as for any request (the embedded store keeps none; on MongoDB it is kept 2 s: mongo-commands.test.ts).
    expect(calls.filter((m) => m !== 'findApiKey' && m !== 'readSessionState')).toEqual([]);
  });

  it('sign-out from the partner\'s server: 204, then 401 at once on that process and on the other within 2 s; a second sign-out is 401', async () => {
    const token = await app.api.startSession(keys.partner, 'm-alice');
    const other = on(1);
    expect((await other('GET', vouchers(), asServer(token))).status).toBe(200);
    const ended = await app.send('DELETE', current(), asServer(token));
    expect(ended.status).toBe(204);
    expect(ended.text).toBe('');
    expect((await app.send('GET', vouchers(), asServer(token))).status).toBe(401);
    app.advance(2);
    expect((await other('GET', vouchers(), asServer(token))).status).toBe(401);
    expect((await other('PUT', '/client/users/m-alice/reservations/rt-alice-1', { ...asServer(token), json: { reservationAmount: 7500 } })).status).toBe(401);
    expect((await app.send('DELETE', current(), asServer(token))).status).toBe(401);
    expect((await other('DELETE', current(), asServer(token))).status).toBe(401);
  });

  it('sign-out from the page, with the publishable key from its origin: 204; another member\'s path is 401 and ends nothing', async () => {
    const token = await app.api.startSession(keys.partner, 'm-alice');
    expect((await app.send('DELETE', current('m-solo'), asPage(token))).status).toBe(401);
    expect((await app.send('GET', vouchers(), asPage(token))).status).toBe(200);
    expect((await app.send('DELETE', current(), { ...asPage(token), headers: { origin: 'https://evil.example' } })).status).toBe(403);
    expect((await app.send('DELETE', current(), asPage(token))).status).toBe(204);
    expect((await app.send('GET', vouchers(), asPage(token))).status).toBe(401);
  });

  it('a session still ends at its expiry and with the key that started it', async () => {
    const expiring = await app.api.startSession(keys.partner, 'm-alice');
    app.advance(3600);
    expect((await app.send('GET', vouchers(), asServer(expiring))).status).toBe(401);
    const token = await app.api.startSession(keys.partner, 'm-alice');
    await createKeyService({ store: app.store, clock: app.now }).revoke('partner-app', fixtureKeyId('partner-app', 0));
    app.advance(2);
    const refused = await app.send('GET', vouchers(), { apiKey: publishable, bearer: token, headers: { origin: page } });
    expect(refused.status).toBe(401);
  });

  it('a token of the release before (random, its session stored) keeps working until it expires, and signs out', async () => {
    const token = `st_${randomBytes(24).toString('base64url')}`;
    await app.store.insertSession(
      sessionRecord(hashSecret(token), { clientId: 'partner-app', keyId: fixtureKeyId('partner-app', 0), correlationId: 'm-alice', expiresAt: new Date(t0 + 600_000) }),
    );
    expect((await app.send('GET', vouchers(), asServer(token))).status).toBe(200);
    expect((await app.send('DELETE', current(), asServer(token))).status).toBe(204);
    expect((await app.send('GET', vouchers(), asServer(token))).status).toBe(401);
    app.advance(2);
    expect((await on(1)('GET', vouchers(), asServer(token))).status).toBe(401);
  });

  it(`keeps every ended session until its token expires: past MAX_ENDED_SESSIONS (${maxEndedSessions}) a sign-out is 503, and the token still works, until ended ones expire`, async () => {
    const short = async () => app.api.startSession(keys.partner, 'm-alice');
    for (let i = 0; i < maxEndedSessions; i++) expect((await app.send('DELETE', current(), asServer(await short()))).status).toBe(204);
    const kept = await short();
    const refused = await app.send('DELETE', current(), asServer(kept));
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect((await app.send('GET', vouchers(), asServer(kept))).status).toBe(200);
    // The ended sessions' tokens expire with the client's lifetime (an hour); a session started later lives on.
    app.advance(1800);
    const later = await short();
    app.advance(1801 + 60);
    expect((await app.send('DELETE', current(), asServer(later))).status).toBe(204);
    expect((await app.send('GET', vouchers(), asServer(later))).status).toBe(401);
  });
});

describe('from stored sessions to sealed tokens (a fleet deployed over the release before)', () => {
  let app: TestApp;
  beforeEach(async () => {
    // A store of the release before: no session key.
    app = await startTestApp({ store: new MemoryStore({ clock: () => new Date(t0), firstSessionKey: null }), fixture, startAt: t0, instances: 2 });
  });
  afterEach(() => app.close());

  it('keeps issuing stored sessions until the first roll takes effect, then seals; a stored session keeps working throughout', async () => {
    const stored = await app.api.startSession(keys.partner, 'm-alice');
    // The release before can read it: a random token, its session stored.
    expect(stored).toMatch(/^st_[A-Za-z0-9_-]{32}$/);
    expect(await app.store.findSession(hashSecret(stored))).not.toBeNull();
    const { key, retireOthersAt } = rolledSessionKey(app.now());
    await app.store.addSessionKey(key, retireOthersAt);
    app.advance(2);
    // Every process knows the key now, and none seals with it yet.
    expect(await app.api.startSession(keys.partner, 'm-alice')).toMatch(/^st_/);
    app.advance(3);
    const sealed = await app.api.startSession(keys.partner, 'm-alice');
    expect(sealed).toMatch(/^st2\./);
    for (const instance of [0, 1]) {
      for (const token of [stored, sealed]) expect((await send(app.urls[instance]!, 'GET', vouchers(), asServer(token))).status).toBe(200);
    }
  });
});

if (source.kind === 'uri') {
  const uri = source.uri;
  describe('sealed sessions across restarts, on MongoDB', () => {
    const dbName = uniqueDbName('restarts');
    afterAll(() => dropTestDatabase(uri, dbName));
    const serve = async () => startTestApp({ store: await MongoStore.connect({ uri, dbName, serverSelectionTimeoutMS: 10_000 }), startAt: t0, instances: 2 });

    it('a session started before both processes restart is valid after, on either; one signed out before stays ended', async () => {
      const before = await startTestApp({ store: await MongoStore.connect({ uri, dbName, serverSelectionTimeoutMS: 10_000 }), fixture, startAt: t0, instances: 2 });
      const kept = await before.api.startSession(keys.partner, 'm-alice');
      const ended = await before.api.startSession(keys.partner, 'm-alice');
      expect((await before.send('DELETE', current(), asServer(ended))).status).toBe(204);
      await before.close();
      const after = await serve();
      try {
        for (const url of after.urls) {
          expect((await send(url, 'GET', vouchers(), asServer(kept))).status).toBe(200);
          expect((await send(url, 'GET', vouchers(), asServer(ended))).status).toBe(401);
        }
      } finally {
        await after.close();
      }
    });
  });
}

