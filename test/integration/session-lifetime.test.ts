import { maxSessionTtlSeconds } from '../../server/src/domain/limits';
import { MemoryStore } from '../../server/src/store/memory/memory-store';
import { connectTestStore, testMongoSource } from '../../server/src/store/test-support/mongo-test-server';
import type { Store } from '../../server/src/store/port';
import { startTestApp, type TestApp } from '../../server/src/test-support/app-harness';
import { fixtureClient, fixtureMember } from '../../server/src/test-support/fixture-entries';

/*
 * A session lives a day at most, whatever its client says. A fixture or a
 * load refuses a longer `sessionTtlSeconds` (fixture.test.ts,
 * start-failures.test.ts, admin-cli.test.ts); a client stored before the
 * bound existed, with a longer one, gets sessions of a day.
 */

type StoreFactory = () => Promise<{ store: Store; cleanup: () => Promise<void> }>;

const key = 'demo_secret_lifetime_app_0001';
const t0 = Date.parse('2026-11-21T12:00:00.000Z');

const mongo = testMongoSource();
const variants: Array<[string, StoreFactory]> = [['the embedded store', async () => ({ store: new MemoryStore(), cleanup: async () => undefined })]];
if (mongo.kind === 'uri') variants.push(['MongoDB', () => connectTestStore(mongo.uri, 'session-ttl')]);
else it.skip(`a session's lifetime on MongoDB: skipped, ${mongo.reason}`, () => undefined);

describe.each(variants)('a client stored with a session lifetime past a day, on %s', (_name, factory) => {
  let app: TestApp;
  let cleanup: () => Promise<void>;

  beforeEach(async () => {
    let store: Store;
    ({ store, cleanup } = await factory());
    app = await startTestApp({ store, startAt: t0, fixture: { clients: [fixtureClient('lifetime-app', key)], members: [fixtureMember('m-alice', 100)] } });
  });
  afterEach(async () => {
    await app.close();
    await cleanup();
  });

  it.each([
    ['longer than a day', 100_000, maxSessionTtlSeconds],
    ['of exactly a day', maxSessionTtlSeconds, maxSessionTtlSeconds],
    ['shorter', 600, 600],
  ])('a lifetime %s gives sessions of what it says, a day at most', async (_case, storedSeconds, expectedSeconds) => {
    // Written as data of an earlier server would be: through the store, past the fixture's schema.
    const stored = (await app.store.findClient('lifetime-app'))!;
    await app.store.upsertClients([{ ...stored, sessionTtlSeconds: storedSeconds }]);
    expect((await app.store.findClient('lifetime-app'))?.sessionTtlSeconds).toBe(storedSeconds);

    const response = await app.send('POST', '/client/users/m-alice/sessions', { apiKey: key, headers: { 'x-identifier-type': 'CARD_NUMBER' } });
    expect(response.status).toBe(201);
    expect(response.body.expiresAt).toBe(new Date(t0 + expectedSeconds * 1000).toISOString());
  });
});
