import type { SessionRecord } from '../../domain/model';
import { MemoryStore } from '../../store/memory/memory-store';
import { loadFixture } from '../load/load-fixture';
import { fixtureClient, fixtureMember } from '../../test-support/fixture-entries';
import { createKeyService } from '../keys/service';
import { createAuthService } from './auth-service';
import { createSessionService } from './service';
import { SessionState } from './session-state';

const start = new Date('2030-01-01T00:00:00.000Z');

/** A client with its fixture key and one key made by an operator, a member, and a session started with the operator's key. */
async function setUp() {
  let now = start;
  const clock = () => now;
  // No session key: sessions stored by their token's digest, as before sealed tokens (sealed-sessions.test.ts has those).
  const store = new MemoryStore({ clock, sessionSweepIntervalMs: 0, firstSessionKey: null });
  const sessionState = new SessionState({ store, clock });
  await loadFixture(
    store,
    {
      clients: [fixtureClient('partner-app', 'pk_partner_fixture_1', { sessionTtlSeconds: 3600 }), fixtureClient('other-app', 'pk_other_fixture_1')],
      members: [fixtureMember('m-alice', 100)],
    },
    start,
  );
  const auth = createAuthService({ store, clock, sessionState });
  const keys = createKeyService({ store, clock });
  const operatorKey = await keys.create('partner-app', { expiresInSeconds: 600 });
  const client = (await store.findClient('partner-app'))!;
  const session = await createSessionService({ store, clock, sessionState }).startSession(client, operatorKey.keyId, 'm-alice', 'EMAIL');
  /** Whether the session still authenticates, through the combined lookup (A and B) and without it. */
  const sessionWorks = async () => {
    const lookup = await auth.lookUpSession(session.sessionToken);
    const withLookup = await auth.authenticateSession(client, session.sessionToken, 'm-alice', lookup);
    const alone = await auth.authenticateSession(client, session.sessionToken, 'm-alice');
    expect(withLookup?.sessionId ?? null).toBe(alone?.sessionId ?? null);
    return withLookup !== null;
  };
  return { auth, keys, store, client, operatorKey, sessionWorks, sessionState, advance: (seconds: number) => (now = new Date(now.getTime() + seconds * 1000)) };
}

describe('authentication by API key', () => {
  it('authenticates a client by any of its live keys, naming the key', async () => {
    const { auth, operatorKey } = await setUp();
    expect(await auth.authenticateClient('pk_partner_fixture_1')).toMatchObject({ client: { clientId: 'partner-app' }, key: { clientId: 'partner-app' } });
    expect(await auth.authenticateClient(operatorKey.apiKey)).toMatchObject({ client: { clientId: 'partner-app' }, key: { keyId: operatorKey.keyId } });
    expect(await auth.authenticateClient('pk_unknown_0001')).toBeNull();
  });

  it('asks the gate before each read of a key or token no read has found yet, and never after: the embedded store reads on', async () => {
    const { auth, operatorKey } = await setUp();
    const closed = jest.fn(() => {
      throw new Error('closed');
    });
    await expect(auth.authenticateClient(operatorKey.apiKey, null, closed)).rejects.toThrow('closed');
    expect(await auth.authenticateClient(operatorKey.apiKey, null, () => undefined)).not.toBeNull();
    expect(await auth.authenticateClient(operatorKey.apiKey, null, closed)).not.toBeNull();
    await expect(auth.authenticateClient('pk_unknown_0001', null, closed)).rejects.toThrow('closed');
    expect(await auth.authenticateClient('pk_unknown_0001', null, () => undefined)).toBeNull();
    // Unknown it stays: nothing is remembered of a value no read found.
    await expect(auth.authenticateClient('pk_unknown_0001', null, closed)).rejects.toThrow('closed');
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

describe('authentication with credential caching (processes sharing a database)', () => {
  let now: Date;
  let monotonicMs: number;
  let reads: Record<'findApiKey' | 'findApiKeyById' | 'findSessionContext' | 'listLivePublishableKeys', number>;
  let store: MemoryStore;
  let sessionState: SessionState;
  let auth: ReturnType<typeof createAuthService>;
  let keys: ReturnType<typeof createKeyService>;
  let operatorKey: Awaited<ReturnType<ReturnType<typeof createKeyService>['create']>>;
  let sessionToken: string;
  let client: Awaited<ReturnType<MemoryStore['findClient']>>;
  const lookups: Array<[string, boolean]> = [];
  /** A slow store: the next session read takes the store's answer as it is when asked, and gives it when the test releases it. */
  let holdNextSessionRead: boolean;
  let releaseHeldRead: () => void;

  beforeEach(async () => {
    now = start;
    // Not 0: lru-cache takes an entry stored at time 0 for one without a ttl.
    monotonicMs = 1000;
    reads = { findApiKey: 0, findApiKeyById: 0, findSessionContext: 0, listLivePublishableKeys: 0 };
    holdNextSessionRead = false;
    releaseHeldRead = () => undefined;
    lookups.splice(0);
    const clock = () => now;
    store = new MemoryStore({ clock, sessionSweepIntervalMs: 0, firstSessionKey: null });
    sessionState = new SessionState({ store, clock });
    await loadFixture(store, { clients: [fixtureClient('partner-app', 'pk_partner_fixture_1', { sessionTtlSeconds: 60 })], members: [fixtureMember('m-alice', 100)] }, start);
    const counted = {
      findApiKey: (digest: string) => (reads.findApiKey++, store.findApiKey(digest)),
      findApiKeyById: (keyId: string) => (reads.findApiKeyById++, store.findApiKeyById(keyId)),
      findSessionContext: (tokenHash: string) => {
        reads.findSessionContext++;
        const answer = store.findSessionContext(tokenHash);
        if (!holdNextSessionRead) return answer;
        holdNextSessionRead = false;
        return new Promise<Awaited<typeof answer>>((resolve) => (releaseHeldRead = () => resolve(answer)));
      },
      listLivePublishableKeys: (now: Date, limit: number) => (reads.listLivePublishableKeys++, store.listLivePublishableKeys(now, limit)),
    };
    auth = createAuthService({
      sessionState,
      store: counted,
      clock,
      credentialCaching: {
        apiKeys: { ttlMs: 2000, maxEntries: 100 },
        sessions: { ttlMs: 2000, maxEntries: 100 },
        now: () => monotonicMs,
        onLookup: (cache, hit) => lookups.push([cache, hit]),
      },
    });
    keys = createKeyService({ store, clock });
    operatorKey = await keys.create('partner-app', {});
    client = await store.findClient('partner-app');
    sessionToken = (await createSessionService({ store, clock, sessionState }).startSession(client!, operatorKey.keyId, 'm-alice', 'EMAIL')).sessionToken;
  });
  afterEach(() => store.close());

  /** As Operations A and B ask: the session's lookup, then the key, then the session. */
  async function memberRequest(): Promise<boolean> {
    return memberRequestThrough(undefined);
  }

  /** A member request whose session read the store holds, then the key's revocation: the request is still under way. */
  async function revokedWhileAReadIsHeld(): Promise<{ inFlight: Promise<boolean> }> {
    holdNextSessionRead = true;
    const inFlight = memberRequest();
    await keys.revoke('partner-app', operatorKey.keyId);
    return { inFlight };
  }

  /** The same, each lookup behind `gate`. */
  async function memberRequestThrough(gate: (() => void) | undefined): Promise<boolean> {
    const lookup = await auth.lookUpSession(sessionToken, gate);
    const authenticated = await auth.authenticateClient(operatorKey.apiKey, lookup, gate);
    if (!authenticated) return false;
    return (await auth.authenticateSession(authenticated.client, sessionToken, 'm-alice', lookup, gate)) !== null;
  }

  it('reads a key once per 2 s, and a session once until it expires (it never changes), whatever the number of requests', async () => {
    for (let i = 0; i < 6; i++) {
      expect(await auth.authenticateClient(operatorKey.apiKey)).not.toBeNull();
      expect(await memberRequest()).toBe(true);
      monotonicMs += 500;
    }
    // Each read of the key by digest keeps it by id too (what the session names); the session is read once.
    expect(reads).toEqual({ findApiKey: 2, findApiKeyById: 0, findSessionContext: 1, listLivePublishableKeys: 0 });
    expect(lookups.filter(([, hit]) => !hit)).toEqual([
      ['apiKeys', false],
      ['sessions', false],
      ['apiKeys', false],
    ]);
  });

  it('uses a session this process started with no read: the session and member kept at the start, the key read by digest for it', async () => {
    const sessions = createSessionService({ store, clock: () => now, sessionState, startingSession: auth.startingSession });
    // As a start request does: its key authenticated first.
    expect(await auth.authenticateClient(operatorKey.apiKey)).not.toBeNull();
    const started = await sessions.startSession(client!, operatorKey.keyId, 'm-alice', 'EMAIL');
    const before = { ...reads };
    const lookup = await auth.lookUpSession(started.sessionToken);
    expect(lookup?.member?.correlationId).toBe('m-alice');
    expect(await auth.authenticateClient(operatorKey.apiKey, lookup)).not.toBeNull();
    expect(await auth.authenticateSession(client!, started.sessionToken, 'm-alice', lookup)).toMatchObject({ sessionId: started.sessionId });
    expect(reads).toEqual(before);
    // Its own expiry still holds.
    now = new Date(start.getTime() + 60_000);
    expect(await auth.authenticateSession(client!, started.sessionToken, 'm-alice')).toBeNull();
  });

  it("keeps what a start brought from when it asked for the member, not from the session's insert: a slow start leaves the member for what is left of 2 s", async () => {
    const slowMemberRead = {
      findMember: async (correlationId: string) => ((monotonicMs += 1500), store.findMember(correlationId)),
      insertSession: (session: SessionRecord) => store.insertSession(session),
      endSession: store.endSession.bind(store),
    };
    const sessions = createSessionService({ store: slowMemberRead, clock: () => now, sessionState, startingSession: auth.startingSession });
    const started = await sessions.startSession(client!, operatorKey.keyId, 'm-alice', 'EMAIL');
    const before = { ...reads };
    monotonicMs += 500;
    expect((await auth.lookUpSession(started.sessionToken))?.member?.correlationId).toBe('m-alice');
    monotonicMs += 1;
    const later = await auth.lookUpSession(started.sessionToken);
    // The session itself is still kept (it never changes): only the member is left to whoever needs it.
    expect(later?.session.sessionId).toBe(started.sessionId);
    expect(later?.member).toBeUndefined();
    expect(reads.findSessionContext).toBe(before.findSessionContext);
  });

  it('gives the member read with the session only while it is fresh (2 s): afterwards whoever needs it reads it', async () => {
    expect((await auth.lookUpSession(sessionToken))?.member?.correlationId).toBe('m-alice');
    monotonicMs += 2001;
    const later = await auth.lookUpSession(sessionToken);
    expect(later?.session.correlationId).toBe('m-alice');
    expect(later?.member).toBeUndefined();
  });

  it('gives the member a slow session read brought for what is left of 2 s from when the read was asked, not from its answer', async () => {
    holdNextSessionRead = true;
    const slow = auth.lookUpSession(sessionToken);
    monotonicMs += 1500;
    releaseHeldRead();
    expect((await slow)?.member?.correlationId).toBe('m-alice');
    monotonicMs += 500;
    expect((await auth.lookUpSession(sessionToken))?.member?.correlationId).toBe('m-alice');
    monotonicMs += 1;
    expect((await auth.lookUpSession(sessionToken))?.member).toBeUndefined();
    expect(reads.findSessionContext).toBe(1);
  });

  it('holds a revocation within 2 s: the key and its sessions are refused once their entries are older', async () => {
    expect(await auth.authenticateClient(operatorKey.apiKey)).not.toBeNull();
    expect(await memberRequest()).toBe(true);
    await keys.revoke('partner-app', operatorKey.keyId);
    monotonicMs += 2000;
    // Still kept: the contract allows this process 2 s.
    expect(await memberRequest()).toBe(true);
    monotonicMs += 1;
    expect(await auth.authenticateClient(operatorKey.apiKey)).toBeNull();
    expect(await memberRequest()).toBe(false);
  });

  it('holds a revocation within 2 s of it whatever the store takes: a slow read keeps what it brought 2 s from when it was asked', async () => {
    const { inFlight } = await revokedWhileAReadIsHeld();
    // The read asked before the revocation answers 3 s later (its own request, under way since before the revocation, may go either way).
    monotonicMs += 3000;
    releaseHeldRead();
    await inFlight;
    // The next request is refused: what that read brought is already older than 2 s, and is not kept.
    expect(await memberRequest()).toBe(false);
  });

  it('holds a revocation within 2 s of it whatever the store takes: a lookup does not join a read asked 2 s or more before it', async () => {
    const { inFlight } = await revokedWhileAReadIsHeld();
    monotonicMs += 2000;
    // The first read is still under way: this request reads again, and sees the revocation.
    expect(await memberRequest()).toBe(false);
    releaseHeldRead();
    await inFlight;
    // The old answer, arriving last, does not replace the newer one.
    expect(await memberRequest()).toBe(false);
    expect(reads.findSessionContext).toBe(2);
  });

  it("checks a session's own expiry on every use, kept or not", async () => {
    expect(await memberRequest()).toBe(true);
    now = new Date(start.getTime() + 60_000);
    expect(await memberRequest()).toBe(false);
    expect(reads.findSessionContext).toBe(1);
  });

  it('keeps an unknown key as unknown for 2 s (a flood of a wrong key reads it once per 2 s)', async () => {
    for (let i = 0; i < 10; i++) expect(await auth.authenticateClient('pk_unknown_0001')).toBeNull();
    expect(reads.findApiKey).toBe(1);
  });

  it('asks the gate before reading a key or token it does not know, and never for one a read found: a closed gate reads nothing', async () => {
    const closed = jest.fn(() => {
      throw new Error('closed');
    });
    const open = jest.fn();
    await expect(auth.authenticateClient('pk_unknown_0001', null, closed)).rejects.toThrow('closed');
    await expect(auth.lookUpSession(sessionToken, closed)).rejects.toThrow('closed');
    expect(reads).toMatchObject({ findApiKey: 0, findSessionContext: 0 });

    expect(await auth.authenticateClient(operatorKey.apiKey, null, open)).not.toBeNull();
    expect(await auth.lookUpSession(sessionToken, open)).not.toBeNull();
    expect(await auth.authenticateClient('pk_unknown_0001', null, open)).toBeNull();
    expect(open).toHaveBeenCalledTimes(3);
    // Within 2 s every answer is kept, "none" included: no read, no gate.
    expect(await auth.authenticateClient('pk_unknown_0001', null, closed)).toBeNull();
    // Once the reads are old, the credentials found still pass a closed gate (they are read again); the unknown one does not.
    monotonicMs += 2001;
    expect(await auth.authenticateClient(operatorKey.apiKey, null, closed)).not.toBeNull();
    expect(await memberRequestThrough(closed)).toBe(true);
    await expect(auth.authenticateClient('pk_unknown_0001', null, closed)).rejects.toThrow('closed');
    expect(reads).toMatchObject({ findApiKey: 3, findSessionContext: 1 });
  });

  it('remembers a session this process started as found: its first use passes a closed gate', async () => {
    const started = await createSessionService({ store, clock: () => now, sessionState, startingSession: auth.startingSession }).startSession(client!, operatorKey.keyId, 'm-alice', 'EMAIL');
    monotonicMs += 2001;
    const closed = () => {
      throw new Error('closed');
    };
    expect(await auth.lookUpSession(started.sessionToken, closed)).not.toBeNull();
  });

  it("keeps the publishable keys' origins for 2 s: one read for any number of preflights, then a new, rolled or revoked key shows", async () => {
    const page = 'https://app.example.com';
    const first = await keys.create('partner-app', { kind: 'publishable', origins: [page] });
    for (let i = 0; i < 10; i++) expect([...(await auth.publishableOrigins())]).toEqual([page]);
    expect(reads.listLivePublishableKeys).toBe(1);

    const mobile = await keys.create('partner-app', { kind: 'publishable', origins: ['https://m.example.com'] });
    await keys.revoke('partner-app', first.keyId);
    monotonicMs += 2000;
    // Still kept: the contract allows this process the keys' bound.
    expect([...(await auth.publishableOrigins())]).toEqual([page]);
    monotonicMs += 1;
    expect([...(await auth.publishableOrigins())]).toEqual(['https://m.example.com']);

    await keys.roll('partner-app', { keyId: mobile.keyId, graceSeconds: 1 });
    now = new Date(start.getTime() + 1000);
    monotonicMs += 2001;
    // The rolled key's origins live on in the new key.
    expect([...(await auth.publishableOrigins())]).toEqual(['https://m.example.com']);
    expect(reads.listLivePublishableKeys).toBe(3);
  });
});

describe('publishable keys and sessions', () => {
  it('reads the origins of the live publishable keys on every call without caching (the embedded store)', async () => {
    const store = new MemoryStore({ clock: () => start, sessionSweepIntervalMs: 0 });
    const sessionState = new SessionState({ store, clock: () => start });
    await loadFixture(
      store,
      { clients: [fixtureClient('web-app', 'sk_web_0001', { publishableKeys: [{ apiKey: 'pk_web_0001', origins: ['https://a.example.com', 'https://b.example.com'] }] })] },
      start,
    );
    const auth = createAuthService({ store, clock: () => start, sessionState });
    expect([...(await auth.publishableOrigins())].sort()).toEqual(['https://a.example.com', 'https://b.example.com']);
    const keys = createKeyService({ store, clock: () => start });
    const [key] = await store.listLivePublishableKeys(start, 1);
    await keys.revoke('web-app', key!.keyId);
    expect([...(await auth.publishableOrigins())]).toEqual([]);
  });

  it('trusts no session but one a secret key started: a session recorded as started by a publishable key counts for nothing', async () => {
    const { auth, keys, store, client, sessionState } = await setUp();
    const publishable = await keys.create('partner-app', { kind: 'publishable', origins: ['https://app.example.com'] });
    // Start Session refuses a publishable key over HTTP; the service below it would record one, as a store could hold it.
    const session = await createSessionService({ store, clock: () => start, sessionState }).startSession(client, publishable.keyId, 'm-alice', 'EMAIL');
    const lookup = await auth.lookUpSession(session.sessionToken);
    expect(lookup?.key?.kind).toBe('publishable');
    expect(await auth.authenticateSession(client, session.sessionToken, 'm-alice', lookup)).toBeNull();
    expect(await auth.authenticateSession(client, session.sessionToken, 'm-alice')).toBeNull();
  });
});
