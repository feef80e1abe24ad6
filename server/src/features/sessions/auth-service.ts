import type { Clock } from '../../domain/clock';
import { isLiveKey, type ApiKeyRecord, type ClientRecord, type MemberRecord, type MemberSession, type SessionRecord } from '../../domain/model';
import { isRefusedByForm } from '../../domain/api-key-format';
import { hashSecret, sameDigest } from '../../domain/secrets';
import type { AuthService, CredentialLookupGate, SessionLookup } from '../../domain/services';
import type { ApiKeyContext, AuthStore, SessionContext } from '../../store/port';
import { boundedCache } from '../../caching/bounded-cache';
import { deepFreeze, ReadCache, type ReadCacheSettings } from '../../caching/read-cache';
import { maxLivePublishableKeys } from '../../domain/limits';
import { maxSealedTokenLength, sealedKidOf } from '../../domain/session-tokens';
import { openedTokens } from './opened-tokens';
import type { SessionState } from './session-state';

/** Longer keys and random tokens are rejected before hashing: none of ours is this long (a sealed token may be, up to its own bound). */
const maxCredentialLength = 256;

/**
 * Credentials a process remembers it found (their digests), so that their
 * lookups never wait for the gate of a client address over its budget of
 * refusals: at most this many (about 150 bytes each), each forgotten once
 * unused for `knownCredentialMs`. Only whoever holds a real key or token can
 * be among them; being known spares the gate, never a check.
 */
export const maxKnownCredentials = 100_000;
export const knownCredentialMs = 10 * 60_000;

/**
 * Keeping credentials for a moment (processes sharing a database): each API
 * key with its client, and each session with its client, member and key,
 * as read by digest, unknown ones included. A key's roll or revocation then
 * holds on this process once its entry is older than `ttlMs`; a session's
 * own expiry is still checked on every use.
 */
export interface CredentialCaching {
  apiKeys: ReadCacheSettings;
  sessions: ReadCacheSettings;
  /** Told of every lookup (metrics): which cache, and whether it answered without the store. */
  onLookup?: (cache: 'apiKeys' | 'sessions', hit: boolean) => void;
  /** Milliseconds of a monotonic clock (tests). */
  now?: () => number;
}

export interface AuthServiceDeps {
  store: Pick<AuthStore, 'findApiKey' | 'findApiKeyById' | 'findSessionContext' | 'listLivePublishableKeys'>;
  clock: Clock;
  /** The session keys and the ended sessions, as this process knows them. */
  sessionState: SessionState;
  /** Absent: every lookup asks the store (the embedded store, whose reads cost nothing). */
  credentialCaching?: CredentialCaching;
}

/** The authentication service, and what the session service tells it of the sessions this process starts. */
export interface CredentialService extends AuthService {
  /**
   * Called as this process starts a session, before it reads the member:
   * gives what to call with the session and that member once the session
   * is made. Both are then kept as a read asked at this call would have
   * kept them (a stored session until it expires, the member for what is
   * left of 2 s), so that the session's first use here reads nothing. Its
   * key is kept already: the start read it by digest.
   */
  startingSession: () => KeepStarted;
}

/** Keeps a session this process started (with its digest when it is stored), with the member read for it. */
export type KeepStarted = (session: MemberSession & { tokenHash?: string }, member: MemberRecord) => void;

export function createAuthService(deps: AuthServiceDeps): CredentialService {
  const { clock, sessionState } = deps;
  const { findApiKey, findApiKeyById, findSessionContext, keptMember, publishableOrigins, startingSession } = credentialReads(deps);
  const openSealed = openedTokens();

  /** A sealed token's session, opened with no store command; with its key and client (kept 2 s) and its member when kept. */
  async function lookUpSealed(bearerToken: string): Promise<SessionLookup | null> {
    const reading = sessionState.ready();
    if (reading) await reading;
    const kid = sealedKidOf(bearerToken);
    // Once ready, a key this process does not know seals no token it could be shown: none is read.
    const key = kid === null ? null : sessionState.keyOf(kid);
    const session = key ? openSealed(key, bearerToken) : null;
    if (!session) return null;
    const found = await findApiKeyById(session.keyId);
    const member = keptMember(session.correlationId);
    return { bearerToken, session, client: found?.client ?? null, key: found?.key ?? null, ...(member !== undefined && { member }) };
  }

  async function lookUp(bearerToken: string | undefined, gate: CredentialLookupGate | undefined): Promise<SessionLookup | null> {
    if (!bearerToken) return null;
    if (sealedKidOf(bearerToken) !== null) return lookUpSealed(bearerToken);
    if (bearerToken.length > maxCredentialLength) return null;
    const found = await findSessionContext(hashSecret(bearerToken), gate);
    return found ? { bearerToken, ...found } : null;
  }

  return {
    publishableOrigins,
    startingSession,

    lookUpSession: lookUp,

    async authenticateClient(apiKey, lookup, gate) {
      // A key whose form says it was generated, but whose checksum is wrong: refused unread (api-key-format.ts).
      if (!apiKey || apiKey.length > maxCredentialLength || isRefusedByForm(apiKey)) return null;
      const digest = hashSecret(apiKey);
      // The key that started the session, when it is this key; any other key is looked up.
      const found =
        lookup?.key && lookup.client && sameDigest(lookup.key.digest, digest) ? { key: lookup.key, client: lookup.client } : await findApiKey(digest, gate);
      // The lookup is by digest; the constant-time comparison keeps the final
      // decision free of timing differences whatever the store does.
      if (!found?.client || !sameDigest(found.key.digest, digest) || !isLiveKey(found.key, clock())) return null;
      return { client: found.client, key: found.key };
    },

    async authenticateSession(client, bearerToken, correlationId, lookup, gate) {
      if (!bearerToken || bearerToken.length > maxSealedTokenLength) return null;
      const found = lookup?.bearerToken === bearerToken ? lookup : await lookUp(bearerToken, gate);
      if (!found) return null;
      // Ended sessions of both kinds of token, as this process knows them within 2 s.
      const reading = sessionState.ready();
      if (reading) await reading;
      if (sessionState.isEnded(found.session.sessionId)) return null;
      return isValidFor(found.session, found.key, client, correlationId, clock()) ? found.session : null;
    },
  };
}

interface CredentialReads {
  /** `gate`: asked before the store is read for a key this process does not know. */
  findApiKey: (digest: string, gate?: CredentialLookupGate) => Promise<ApiKeyContext | null>;
  /** The key that started a session, by its id (a real key: no gate). */
  findApiKeyById: (keyId: string) => Promise<ApiKeyContext | null>;
  /** The member a read of late brought with a session or for a start (undefined: none kept; whoever needs it reads it). */
  keptMember: (correlationId: string) => MemberRecord | null | undefined;
  /** The origins of the live publishable keys. */
  publishableOrigins: () => Promise<ReadonlySet<string>>;
  /** As the store's, but the member may be left out (not read): see SessionLookup. `gate` as above, for a token. */
  findSessionContext: (tokenHash: string, gate?: CredentialLookupGate) => Promise<(Omit<SessionContext, 'member'> & { member?: MemberRecord | null }) | null>;
  startingSession: () => KeepStarted;
}

/**
 * The digests of the credentials reads found: a lookup of one of them
 * skips the gate (`gateFor`).
 */
function knownCredentials(now: { now?: () => number }) {
  const found = boundedCache<string, true>({ maxEntries: maxKnownCredentials, ttlMs: knownCredentialMs, ttlFromLastRead: true, ...now });
  return {
    found: (digest: string) => void found.set(digest, true),
    /** The gate a lookup of `digest` must pass: none when a read found it. */
    gateFor: (digest: string, gate: CredentialLookupGate | undefined) => (gate && found.get(digest) === undefined ? gate : undefined),
  };
}

/**
 * The store's reads of credentials, through caches when caching is asked
 * for. A session record never changes once made (it ends by its expiry or
 * with its key), so it is kept until it expires; what can change is kept
 * at most `ttlMs`: a key with its client (by digest, and by id for the
 * sessions it started), the member read with a session, and the origins of
 * the live publishable keys (one read for every preflight of that time). A
 * session this process starts is kept with its member as if read when its
 * start read the member (`startingSession`).
 */
function credentialReads(deps: AuthServiceDeps): CredentialReads {
  const { store, credentialCaching: caching } = deps;
  const readOrigins = async (): Promise<ReadonlySet<string>> =>
    new Set((await store.listLivePublishableKeys(deps.clock(), maxLivePublishableKeys)).flatMap((key) => key.origins));
  const now = caching?.now ? { now: caching.now } : {};
  const known = knownCredentials(now);
  /** Reads `digest` past its gate; remembers it when the read found it. */
  const readKnown = async <T>(digest: string, gate: CredentialLookupGate | undefined, read: () => Promise<T | null>): Promise<T | null> => {
    known.gateFor(digest, gate)?.();
    const found = await read();
    if (found) known.found(digest);
    return found;
  };
  if (!caching) {
    return {
      findApiKey: (digest, gate) => readKnown(digest, gate, () => store.findApiKey(digest)),
      findApiKeyById: (keyId) => store.findApiKeyById(keyId),
      findSessionContext: (tokenHash, gate) => readKnown(tokenHash, gate, () => store.findSessionContext(tokenHash)),
      keptMember: () => undefined,
      publishableOrigins: readOrigins,
      startingSession: () => (session) => session.tokenHash !== undefined && known.found(session.tokenHash),
    };
  }
  const monotonicMs = caching.now ?? (() => performance.now());
  const keyLookups = { ...caching.apiKeys, ...now, onLookup: (hit: boolean) => caching.onLookup?.('apiKeys', hit) };
  const keysById = new ReadCache<ApiKeyContext | null>((keyId) => store.findApiKeyById(keyId), keyLookups);
  const apiKeys = new ReadCache<ApiKeyContext | null>(async (digest, askedAt) => {
    const found = await store.findApiKey(digest);
    // The same key by its id (what the sessions it starts name), kept from when this read was asked.
    if (found) {
      keysById.set(found.key.keyId, found, askedAt);
      known.found(digest);
    }
    return found;
  }, keyLookups);
  // Members as a session's read brought them (never read by themselves): kept as long as a key is, then read with the wallet.
  const membersReadWithSessions = boundedCache<string, { member: MemberRecord | null }>({ maxEntries: caching.sessions.maxEntries, ttlMs: caching.sessions.ttlMs, ...now });
  /** Keeps a member a read asked at `askedAt` brought, for what is left of its time from then. */
  const keepMember = (correlationId: string, member: MemberRecord | null, askedAt: number) => {
    const ttl = Math.floor(caching.sessions.ttlMs - (monotonicMs() - askedAt));
    if (ttl > 0) membersReadWithSessions.set(correlationId, { member: deepFreeze(member) }, { ttl });
  };
  const wallClock = deps.clock;
  const sessions = new ReadCache<SessionRecord | null>(
    async (tokenHash, askedAt) => {
      const found = await store.findSessionContext(tokenHash);
      if (!found) return null;
      known.found(tokenHash);
      // What the same read brought: the key with its client, and the member,
      // each kept as long as they may be from when the read was asked (a slow
      // read must not stretch how long a revoked key is honoured).
      if (found.key) keysById.set(found.key.keyId, { key: found.key, client: found.client }, askedAt);
      keepMember(found.session.correlationId, found.member, askedAt);
      return found.session;
    },
    {
      ...caching.sessions,
      ...now,
      // A known session until it expires; an unknown token no longer than anything else (it may be started meanwhile).
      ttlOf: (session) => (session ? session.expiresAt.getTime() - wallClock().getTime() : caching.sessions.ttlMs),
      onLookup: (hit) => caching.onLookup?.('sessions', hit),
    },
  );
  // One entry, the whole set: read again once it is older than a key may be kept.
  const origins = new ReadCache<ReadonlySet<string>>(readOrigins, { ...caching.apiKeys, maxEntries: 1, ...now });
  return {
    findApiKey: (digest, gate) => apiKeys.get(digest, known.gateFor(digest, gate)),
    findApiKeyById: (keyId) => keysById.get(keyId),
    keptMember: (correlationId) => membersReadWithSessions.get(correlationId)?.member,
    publishableOrigins: () => origins.get(''),
    startingSession: () => {
      const askedAt = monotonicMs();
      return (session, member) => {
        // A sealed token's session is opened, never read: only a stored one is kept.
        if (session.tokenHash !== undefined) {
          sessions.set(session.tokenHash, { ...session, tokenHash: session.tokenHash }, askedAt);
          known.found(session.tokenHash);
        }
        keepMember(session.correlationId, member, askedAt);
      };
    },
    findSessionContext: async (tokenHash, gate) => {
      const session = await sessions.get(tokenHash, known.gateFor(tokenHash, gate));
      if (!session) return null;
      const key = await keysById.get(session.keyId);
      // The member only while it is fresh: absent, whoever needs it reads it (Operation B, with its wallet).
      const member = membersReadWithSessions.get(session.correlationId)?.member;
      return { session, client: key?.client ?? null, key: key?.key ?? null, ...(member !== undefined && { member }) };
    },
  };
}

/**
 * A session lives no longer than the key that started it (revoked or
 * expired), and counts only when a secret key started it: no other kind
 * starts one.
 */
function isValidFor(session: MemberSession, key: ApiKeyRecord | null, client: ClientRecord, correlationId: string, now: Date): boolean {
  return (
    session.clientId === client.clientId &&
    session.correlationId === correlationId &&
    session.expiresAt.getTime() > now.getTime() &&
    key !== null &&
    key.keyId === session.keyId &&
    key.clientId === client.clientId &&
    key.kind === 'secret' &&
    isLiveKey(key, now)
  );
}
