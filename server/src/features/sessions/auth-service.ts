import type { Clock } from '../../domain/clock';
import { isLiveKey, type ApiKeyRecord, type ClientRecord, type MemberRecord, type SessionRecord } from '../../domain/model';
import { isRefusedByForm } from '../../domain/api-key-format';
import { hashSecret, sameDigest } from '../../domain/secrets';
import type { AuthService } from '../../domain/services';
import type { ApiKeyContext, AuthStore, SessionContext } from '../../store/port';
import { boundedCache } from '../../caching/bounded-cache';
import { deepFreeze, ReadCache, type ReadCacheSettings } from '../../caching/read-cache';
import { maxLivePublishableKeys } from '../../domain/limits';

/** Longer credentials are rejected before hashing: no key or token of ours is this long. */
const maxCredentialLength = 256;

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
  /** Absent: every lookup asks the store (the embedded store, whose reads cost nothing). */
  credentialCaching?: CredentialCaching;
}

/** The authentication service, and what the session service tells it of the sessions this process starts. */
export interface CredentialService extends AuthService {
  /**
   * Called as this process starts a session, before it reads the member:
   * gives what to call with the session and that member once the session
   * is stored. Both are then kept as a read of the session asked at this
   * call would have kept them (the session until it expires, the member for
   * what is left of 2 s), so that the session's first use here reads
   * nothing. Its key is kept already: the start read it by digest.
   */
  startingSession: () => KeepStarted;
}

/** Keeps a session this process started, with the member read for it. */
export type KeepStarted = (session: SessionRecord, member: MemberRecord) => void;

export function createAuthService(deps: AuthServiceDeps): CredentialService {
  const { clock } = deps;
  const { findApiKey, findSessionContext, publishableOrigins, startingSession } = credentialReads(deps);

  return {
    publishableOrigins,
    startingSession,

    async lookUpSession(bearerToken) {
      if (!bearerToken || bearerToken.length > maxCredentialLength) return null;
      const found = await findSessionContext(hashSecret(bearerToken));
      return found ? { bearerToken, ...found } : null;
    },

    async authenticateClient(apiKey, lookup) {
      if (!apiKey || apiKey.length > maxCredentialLength) return null;
      // A generated key's form with a wrong checksum matches no key: refused before any read or cache entry.
      if (isRefusedByForm(apiKey)) return null;
      const digest = hashSecret(apiKey);
      // The key that started the session, when it is this key; any other key is looked up.
      const found =
        lookup?.key && lookup.client && sameDigest(lookup.key.digest, digest) ? { key: lookup.key, client: lookup.client } : await findApiKey(digest);
      // The lookup is by digest; the constant-time comparison keeps the final
      // decision free of timing differences whatever the store does.
      if (!found?.client || !sameDigest(found.key.digest, digest) || !isLiveKey(found.key, clock())) return null;
      return { client: found.client, key: found.key };
    },

    async authenticateSession(client, bearerToken, correlationId, lookup) {
      if (!bearerToken || bearerToken.length > maxCredentialLength) return null;
      const found = lookup?.bearerToken === bearerToken ? lookup : await findSessionContext(hashSecret(bearerToken));
      if (!found) return null;
      return isValidFor(found.session, found.key, client, correlationId, clock()) ? found.session : null;
    },
  };
}

interface CredentialReads {
  findApiKey: (digest: string) => Promise<ApiKeyContext | null>;
  /** The origins of the live publishable keys. */
  publishableOrigins: () => Promise<ReadonlySet<string>>;
  /** As the store's, but the member may be left out (not read): see SessionLookup. */
  findSessionContext: (tokenHash: string) => Promise<(Omit<SessionContext, 'member'> & { member?: MemberRecord | null }) | null>;
  startingSession: () => KeepStarted;
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
  if (!caching) {
    return {
      findApiKey: (digest) => store.findApiKey(digest),
      findSessionContext: (tokenHash) => store.findSessionContext(tokenHash),
      publishableOrigins: readOrigins,
      startingSession: () => () => undefined,
    };
  }
  const now = caching.now ? { now: caching.now } : {};
  const monotonicMs = caching.now ?? (() => performance.now());
  const keyLookups = { ...caching.apiKeys, ...now, onLookup: (hit: boolean) => caching.onLookup?.('apiKeys', hit) };
  const keysById = new ReadCache<ApiKeyContext | null>((keyId) => store.findApiKeyById(keyId), keyLookups);
  const apiKeys = new ReadCache<ApiKeyContext | null>(async (digest, askedAt) => {
    const found = await store.findApiKey(digest);
    // The same key by its id (what the sessions it starts name), kept from when this read was asked.
    if (found) keysById.set(found.key.keyId, found, askedAt);
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
    findApiKey: (digest) => apiKeys.get(digest),
    publishableOrigins: () => origins.get(''),
    startingSession: () => {
      const askedAt = monotonicMs();
      return (session, member) => {
        sessions.set(session.tokenHash, session, askedAt);
        keepMember(session.correlationId, member, askedAt);
      };
    },
    findSessionContext: async (tokenHash) => {
      const session = await sessions.get(tokenHash);
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
function isValidFor(session: SessionRecord, key: ApiKeyRecord | null, client: ClientRecord, correlationId: string, now: Date): boolean {
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
