import { MemoryStore } from '../../store/memory/memory-store';
import { hashSecret } from '../../domain/secrets';
import { loadFixture } from '../../store/fixture';
import { fixtureClient } from '../../store/test-support/records';
import { createAuthService } from '../sessions/auth-service';
import { createKeyService, KeyAdminError, maxLiveKeysPerClient } from './service';

const start = new Date('2030-01-01T00:00:00.000Z');

async function setUp() {
  let now = start;
  const clock = () => now;
  const store = new MemoryStore({ clock, sessionSweepIntervalMs: 0 });
  await loadFixture(store, { clients: [fixtureClient('partner-app', 'pk_fixture_0001')] }, start);
  const keys = createKeyService({ store, clock });
  const auth = createAuthService({ store, clock });
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
    // The public id is the key's prefix; the rest is 256 random bits (43 base64url characters).
    expect(issued.apiKey).toMatch(new RegExp(`^${issued.keyId}\\.[A-Za-z0-9_-]{43}$`));
    expect((await store.listApiKeys('partner-app')).find((k) => k.keyId === issued.keyId)?.digest).toBe(hashSecret(issued.apiKey));
    expect(JSON.stringify(await keys.list('partner-app'))).not.toContain(issued.apiKey.split('.')[1]);
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

  it.each([
    ['create on an unknown client', 'CLIENT_NOT_FOUND', (k: Awaited<ReturnType<typeof setUp>>['keys']) => k.create('nobody')],
    ['roll on an unknown client', 'CLIENT_NOT_FOUND', (k: Awaited<ReturnType<typeof setUp>>['keys']) => k.roll('nobody')],
    ['list of an unknown client', 'CLIENT_NOT_FOUND', (k: Awaited<ReturnType<typeof setUp>>['keys']) => k.list('nobody')],
    ['revoke of an unknown key', 'KEY_NOT_FOUND', (k: Awaited<ReturnType<typeof setUp>>['keys']) => k.revoke('partner-app', 'key_000000000000')],
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
});
