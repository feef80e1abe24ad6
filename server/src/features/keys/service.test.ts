import { MemoryStore } from '../../store/memory/memory-store';
import { hashSecret } from '../../domain/secrets';
import { loadFixture } from '../load/load-fixture';
import { fixtureClient } from '../../test-support/fixture-entries';
import { createAuthService } from '../sessions/auth-service';
import { SessionState } from '../sessions/session-state';
import { maxLivePublishableKeys } from '../../domain/limits';
import { createKeyService, KeyAdminError, maxLiveKeysPerClient, type KeyService } from './service';

const start = new Date('2030-01-01T00:00:00.000Z');

async function setUp() {
  let now = start;
  const clock = () => now;
  const store = new MemoryStore({ clock, sessionSweepIntervalMs: 0 });
  await loadFixture(store, { clients: [fixtureClient('partner-app', 'pk_fixture_0001')] }, start);
  const keys = createKeyService({ store, clock });
  const auth = createAuthService({ store, clock, sessionState: new SessionState({ store, clock }) });
  const authenticates = async (apiKey: string) => (await auth.authenticateClient(apiKey))?.client.clientId === 'partner-app';
  return { store, keys, authenticates, advance: (seconds: number) => (now = new Date(now.getTime() + seconds * 1000)) };
}

describe('API keys of a client', () => {
  it('creates a random key, shown once, stored as its digest only, that authenticates the client', async () => {
    const { store, keys, authenticates } = await setUp();
    const issued = await keys.create('partner-app');
    expect(issued).toEqual({
      clientId: 'partner-app',
      keyId: expect.stringMatching(/^key_[0-9a-f]{12}$/),
      apiKey: expect.any(String),
      kind: 'secret',
      origins: [],
      createdAt: start,
      expiresAt: null,
    });
    // A secret key says so (lsk_), then its public id's digits; the rest is 256 random bits (43 base62 characters) and a checksum.
    expect(issued.apiKey).toMatch(new RegExp(`^lsk_${issued.keyId.slice(4)}_[0-9A-Za-z]{49}$`));
    expect((await store.listApiKeys('partner-app')).find((k) => k.keyId === issued.keyId)?.digest).toBe(hashSecret(issued.apiKey));
    expect(JSON.stringify(await keys.list('partner-app'))).not.toContain(issued.apiKey.slice(17));
    expect(await authenticates(issued.apiKey)).toBe(true);
    expect(await authenticates('pk_fixture_0001')).toBe(true);
  });

  it('makes a key that expires after --expires-in', async () => {
    const { keys, authenticates, advance } = await setUp();
    const issued = await keys.create('partner-app', { expiresInSeconds: 60 });
    expect(issued.expiresAt).toEqual(new Date(start.getTime() + 60_000));
    advance(59);
    expect(await authenticates(issued.apiKey)).toBe(true);
    advance(1);
    expect(await authenticates(issued.apiKey)).toBe(false);
  });

  it('rolls: a new key, and every other live key keeps working for the grace only', async () => {
    const { keys, authenticates, advance } = await setUp();
    advance(1);
    const earlier = await keys.create('partner-app', { expiresInSeconds: 30 });
    advance(1);
    const rolled = await keys.roll('partner-app', { graceSeconds: 600 });
    const listed = await keys.list('partner-app');
    // The fixture's key gets the grace; one expiring sooner keeps its own expiry.
    expect(listed.map((k) => [k.keyId, k.expiresAt])).toEqual([
      [expect.stringMatching(/^key_fx/), new Date(start.getTime() + 602_000)],
      [earlier.keyId, new Date(start.getTime() + 31_000)],
      [rolled.keyId, null],
    ]);
    advance(599);
    expect(await authenticates('pk_fixture_0001')).toBe(true);
    advance(1);
    expect(await authenticates('pk_fixture_0001')).toBe(false);
    expect(await authenticates(rolled.apiKey)).toBe(true);
  });

  it('rolls with a grace of a day by default', async () => {
    const { keys } = await setUp();
    const rolled = await keys.roll('partner-app');
    const fixtureKey = (await keys.list('partner-app')).find((k) => k.keyId !== rolled.keyId);
    expect(fixtureKey?.expiresAt).toEqual(new Date(start.getTime() + 86_400_000));
  });

  it('revokes a key at once; revoking it again keeps the first time', async () => {
    const { keys, authenticates, advance } = await setUp();
    const issued = await keys.create('partner-app');
    expect(await keys.revoke('partner-app', issued.keyId)).toEqual({ keyId: issued.keyId, revokedAt: start });
    expect(await authenticates(issued.apiKey)).toBe(false);
    advance(10);
    expect(await keys.revoke('partner-app', issued.keyId)).toEqual({ keyId: issued.keyId, revokedAt: start });
  });

  it.each<[string, string, (keys: KeyService) => Promise<unknown>]>([
    ['create on an unknown client', 'CLIENT_NOT_FOUND', (k: Awaited<ReturnType<typeof setUp>>['keys']) => k.create('nobody')],
    ['roll on an unknown client', 'CLIENT_NOT_FOUND', (k: Awaited<ReturnType<typeof setUp>>['keys']) => k.roll('nobody')],
    ['list of an unknown client', 'CLIENT_NOT_FOUND', (k: Awaited<ReturnType<typeof setUp>>['keys']) => k.list('nobody')],
    ['revoke of an unknown key', 'KEY_NOT_FOUND', (k: Awaited<ReturnType<typeof setUp>>['keys']) => k.revoke('partner-app', 'key_000000000000')],
    ['roll of an unknown key', 'KEY_NOT_FOUND', (k: Awaited<ReturnType<typeof setUp>>['keys']) => k.roll('partner-app', { keyId: 'key_000000000000' })],
    ...(
      [
        ['no origin', []],
        ['an origin with a path', ['https://app.example.com/shop']],
        ['an origin named twice', ['https://app.example.com', 'https://app.example.com']],
        ['eleven origins', Array.from({ length: 11 }, (_, i) => `https://app${i}.example.com`)],
      ] as const
    ).map(([what, origins]): [string, string, (keys: KeyService) => Promise<unknown>] => [
      `a publishable key with ${what}`,
      'INVALID_ORIGINS',
      (k) => k.create('partner-app', { kind: 'publishable', origins: [...origins] }),
    ]),
  ])('%s: %s', async (_case, code, call) => {
    const { keys } = await setUp();
    await expect(call(keys)).rejects.toMatchObject({ code });
  });

  it(`refuses a live key past ${maxLiveKeysPerClient}, and makes one again once one is revoked`, async () => {
    const { keys } = await setUp();
    const made = [];
    // The fixture's key is the first.
    for (let i = 1; i < maxLiveKeysPerClient; i++) made.push(await keys.create('partner-app'));
    await expect(keys.create('partner-app')).rejects.toThrow(KeyAdminError);
    await expect(keys.roll('partner-app')).rejects.toMatchObject({ code: 'TOO_MANY_KEYS' });
    await keys.revoke('partner-app', made[0]!.keyId);
    await expect(keys.create('partner-app')).resolves.toMatchObject({ clientId: 'partner-app' });
  });

  it(`counts keys of both kinds towards the ${maxLiveKeysPerClient} live keys of a client`, async () => {
    const { keys } = await setUp();
    for (let i = 1; i < maxLiveKeysPerClient; i++) await keys.create('partner-app', { kind: 'publishable', origins: ['https://app.example.com'] });
    await expect(keys.create('partner-app')).rejects.toMatchObject({ code: 'TOO_MANY_KEYS' });
  });
});

describe('publishable keys', () => {
  const page = 'https://app.example.com';

  it('makes a publishable key bound to its origins, listed with its kind and origins; it authenticates the client', async () => {
    const { store, keys, authenticates } = await setUp();
    const issued = await keys.create('partner-app', { kind: 'publishable', origins: [page, 'http://127.0.0.1:5173'] });
    expect(issued).toMatchObject({ clientId: 'partner-app', kind: 'publishable', origins: [page, 'http://127.0.0.1:5173'], expiresAt: null });
    expect(issued.apiKey).toMatch(new RegExp(`^lpk_${issued.keyId.slice(4)}_[0-9A-Za-z]{49}$`));
    expect(await authenticates(issued.apiKey)).toBe(true);
    const listed = Object.fromEntries((await keys.list('partner-app')).map(({ keyId, kind, origins }) => [keyId, { kind, origins }]));
    expect(Object.keys(listed)).toHaveLength(2);
    expect(listed[issued.keyId]).toEqual({ kind: 'publishable', origins: [page, 'http://127.0.0.1:5173'] });
    expect(Object.values(listed)).toContainEqual({ kind: 'secret', origins: [] });
    expect(await store.listLivePublishableKeys(start, 10)).toMatchObject([{ keyId: issued.keyId, origins: [page, 'http://127.0.0.1:5173'] }]);
  });

  it("rolls one publishable key: the new key keeps its origins, the old one expires after the grace, the client's other keys stay", async () => {
    const { keys, authenticates, advance } = await setUp();
    const other = await keys.create('partner-app', { kind: 'publishable', origins: ['https://other.example.com'] });
    const old = await keys.create('partner-app', { kind: 'publishable', origins: [page] });
    const rolled = await keys.roll('partner-app', { keyId: old.keyId, graceSeconds: 60 });
    expect(rolled).toMatchObject({ kind: 'publishable', origins: [page], expiresAt: null });
    const expiries = Object.fromEntries((await keys.list('partner-app')).map((k) => [k.keyId, k.expiresAt]));
    expect(expiries[old.keyId]).toEqual(new Date(start.getTime() + 60_000));
    expect(expiries[other.keyId]).toBeNull();
    advance(60);
    expect(await authenticates(old.apiKey)).toBe(false);
    for (const apiKey of [rolled.apiKey, other.apiKey, 'pk_fixture_0001']) expect(await authenticates(apiKey)).toBe(true);
  });

  it("a roll without a key replaces the client's secret keys only: its publishable keys keep working", async () => {
    const { keys, authenticates, advance } = await setUp();
    const publishable = await keys.create('partner-app', { kind: 'publishable', origins: [page] });
    const rolled = await keys.roll('partner-app', { graceSeconds: 60 });
    expect(rolled).toMatchObject({ kind: 'secret', origins: [] });
    advance(60);
    expect(await authenticates('pk_fixture_0001')).toBe(false);
    expect(await authenticates(publishable.apiKey)).toBe(true);
  });

  it('rolls one secret key by its id, leaving the other secret keys as they are', async () => {
    const { keys, advance, authenticates } = await setUp();
    const kept = await keys.create('partner-app');
    const old = await keys.create('partner-app');
    const rolled = await keys.roll('partner-app', { keyId: old.keyId, graceSeconds: 1 });
    expect(rolled).toMatchObject({ kind: 'secret' });
    advance(1);
    expect(await authenticates(old.apiKey)).toBe(false);
    expect(await authenticates(kept.apiKey)).toBe(true);
  });

  it('revokes a publishable key: it stops at once and leaves the live publishable keys', async () => {
    const { store, keys, authenticates } = await setUp();
    const issued = await keys.create('partner-app', { kind: 'publishable', origins: [page] });
    await keys.revoke('partner-app', issued.keyId);
    expect(await authenticates(issued.apiKey)).toBe(false);
    expect(await store.listLivePublishableKeys(start, 10)).toEqual([]);
  });

  it(`refuses a live publishable key past ${maxLivePublishableKeys} in the deployment, whatever the client, until one is revoked`, async () => {
    const { store, keys } = await setUp();
    // Spread over clients: one client holds few live keys.
    const perClient = maxLiveKeysPerClient - 1;
    const clients = Array.from({ length: Math.ceil(maxLivePublishableKeys / perClient) + 1 }, (_, i) => fixtureClient(`web-${i}`, `sk_web_secret_${i}`));
    await loadFixture(store, { clients }, start);
    const made = [];
    for (let i = 0; made.length < maxLivePublishableKeys; i++) {
      made.push(await keys.create(`web-${Math.floor(i / perClient)}`, { kind: 'publishable', origins: [`https://web${i}.example.com`] }));
    }
    const fresh = `web-${clients.length - 1}`;
    await expect(keys.create(fresh, { kind: 'publishable', origins: [page] })).rejects.toMatchObject({ code: 'TOO_MANY_KEYS', message: expect.stringContaining('1000 live publishable keys') });
    // Secret keys are not bounded by it.
    await expect(keys.create(fresh)).resolves.toMatchObject({ kind: 'secret' });
    await keys.revoke(made[0]!.clientId, made[0]!.keyId);
    await expect(keys.create(fresh, { kind: 'publishable', origins: [page] })).resolves.toMatchObject({ kind: 'publishable' });
  });

  it(`refuses a fixture that would make more than ${maxLivePublishableKeys} live publishable keys, writing nothing`, async () => {
    const { store, keys } = await setUp();
    await keys.create('partner-app', { kind: 'publishable', origins: [page] });
    const client = (i: number) =>
      fixtureClient(`web-${i}`, `sk_web_secret_${i}`, { publishableKeys: Array.from({ length: 10 }, (_, j) => ({ apiKey: `pk_web_${i}_${j}`, origins: [page] })) });
    const fixture = { clients: Array.from({ length: maxLivePublishableKeys / 10 }, (_, i) => client(i)) };
    await expect(loadFixture(store, fixture, start)).rejects.toThrow('/clients: would make 1001 live publishable keys; a deployment holds at most 1000');
    expect(await store.findClient('web-0')).toBeNull();
    // Without the operator's key, the same fixture fits exactly.
    await keys.revoke('partner-app', (await store.listLivePublishableKeys(start, 1))[0]!.keyId);
    await loadFixture(store, fixture, start);
    expect(await store.listLivePublishableKeys(start, maxLivePublishableKeys + 1)).toHaveLength(maxLivePublishableKeys);
  });
});
