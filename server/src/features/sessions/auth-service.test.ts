import { MemoryStore } from '../../store/memory/memory-store';
import { loadFixture } from '../../store/fixture';
import { createKeyService } from '../keys/service';
import { createAuthService } from './auth-service';
import { createSessionService } from './service';

const start = new Date('2030-01-01T00:00:00.000Z');

/** A client with its fixture key and one key made by an operator, a member, and a session started with the operator's key. */
async function setUp() {
  let now = start;
  const clock = () => now;
  const store = new MemoryStore({ clock, sessionSweepIntervalMs: 0 });
  await loadFixture(
    store,
    {
      clients: [
        { clientId: 'partner-app', apiKeys: ['pk_partner_fixture_1'], enabledBusinessUnits: ['LCL'], sessionTtlSeconds: 3600 },
        { clientId: 'other-app', apiKey: 'pk_other_fixture_1', enabledBusinessUnits: ['LCL'] },
      ],
      members: [{ correlationId: 'm-alice', pointBalance: 100 }],
    },
    start,
  );
  const auth = createAuthService({ store, clock });
  const keys = createKeyService({ store, clock });
  const operatorKey = await keys.create('partner-app', { expiresInSeconds: 600 });
  const client = (await store.findClient('partner-app'))!;
  const session = await createSessionService({ store, clock }).startSession(client, operatorKey.keyId, 'm-alice', 'EMAIL');
  /** Whether the session still authenticates, through the combined lookup (A and B) and without it. */
  const sessionWorks = async () => {
    const lookup = await auth.lookUpSession(session.sessionToken);
    const withLookup = await auth.authenticateSession(client, session.sessionToken, 'm-alice', lookup);
    const alone = await auth.authenticateSession(client, session.sessionToken, 'm-alice');
    expect(withLookup?.sessionId ?? null).toBe(alone?.sessionId ?? null);
    return withLookup !== null;
  };
  return { auth, keys, operatorKey, sessionWorks, advance: (seconds: number) => (now = new Date(now.getTime() + seconds * 1000)) };
}

describe('authentication by API key', () => {
  it('authenticates a client by any of its live keys, naming the key', async () => {
    const { auth, operatorKey } = await setUp();
    expect(await auth.authenticateClient('pk_partner_fixture_1')).toMatchObject({ client: { clientId: 'partner-app' }, key: { clientId: 'partner-app' } });
    expect(await auth.authenticateClient(operatorKey.apiKey)).toMatchObject({ client: { clientId: 'partner-app' }, key: { keyId: operatorKey.keyId } });
    expect(await auth.authenticateClient('pk_unknown_0001')).toBeNull();
  });

  it('refuses a revoked key, and ends the sessions it started', async () => {
    const { auth, keys, operatorKey, sessionWorks } = await setUp();
    expect(await sessionWorks()).toBe(true);
    await keys.revoke('partner-app', operatorKey.keyId);
    expect(await auth.authenticateClient(operatorKey.apiKey)).toBeNull();
    expect(await sessionWorks()).toBe(false);
    // The client's other key still works; the session stays ended with it too.
    expect(await auth.authenticateClient('pk_partner_fixture_1')).not.toBeNull();
  });

  it('ends the sessions of a key once the key has expired, before their own expiry', async () => {
    const { auth, operatorKey, sessionWorks, advance } = await setUp();
    advance(599);
    expect(await sessionWorks()).toBe(true);
    advance(1);
    expect(await auth.authenticateClient(operatorKey.apiKey)).toBeNull();
    expect(await sessionWorks()).toBe(false);
  });

  it("keeps a session alive through a roll's grace, whatever live key the client sends", async () => {
    const { auth, keys, operatorKey, sessionWorks, advance } = await setUp();
    const rolled = await keys.roll('partner-app', { graceSeconds: 60 });
    expect(await auth.authenticateClient(rolled.apiKey)).not.toBeNull();
    expect(await auth.authenticateClient(operatorKey.apiKey)).not.toBeNull();
    expect(await sessionWorks()).toBe(true);
    advance(60);
    expect(await auth.authenticateClient(operatorKey.apiKey)).toBeNull();
    expect(await sessionWorks()).toBe(false);
  });
});
