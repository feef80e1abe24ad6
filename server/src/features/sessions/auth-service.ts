import type { Clock } from '../../domain/clock';
import { isLiveKey, type ApiKeyRecord, type ClientRecord, type SessionRecord } from '../../domain/model';
import { hashSecret, sameDigest } from '../../domain/secrets';
import type { AuthService } from '../../domain/services';
import type { ApiKeyContext, SessionContext, Store } from '../../store/port';
import { ReadCache, type ReadCacheSettings } from '../read-cache';

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
  store: Pick<Store, 'findApiKey' | 'findSessionContext'>;
  clock: Clock;
  /** Absent: every lookup asks the store (the embedded store, whose reads cost nothing). */
  credentialCaching?: CredentialCaching;
}

export function createAuthService(deps: AuthServiceDeps): AuthService {
  const { clock } = deps;
  const { findApiKey, findSessionContext } = credentialReads(deps);

  return {
    async lookUpSession(bearerToken) {
      if (!bearerToken || bearerToken.length > maxCredentialLength) return null;
      const found = await findSessionContext(hashSecret(bearerToken));
      return found ? { bearerToken, ...found } : null;
    },

    async authenticateClient(apiKey, lookup) {
      if (!apiKey || apiKey.length > maxCredentialLength) return null;
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
  findApiKey(digest: string): Promise<ApiKeyContext | null>;
  findSessionContext(tokenHash: string): Promise<SessionContext | null>;
}

/** The store's reads of credentials, through a cache of each when caching is asked for. */
function credentialReads(deps: AuthServiceDeps): CredentialReads {
  const { store, credentialCaching: caching } = deps;
  if (!caching) {
    return { findApiKey: (digest) => store.findApiKey(digest), findSessionContext: (tokenHash) => store.findSessionContext(tokenHash) };
  }
  const now = caching.now ? { now: caching.now } : {};
  const apiKeys = new ReadCache((digest) => store.findApiKey(digest), {
    ...caching.apiKeys,
    ...now,
    onLookup: (hit) => caching.onLookup?.('apiKeys', hit),
  });
  const sessions = new ReadCache((tokenHash) => store.findSessionContext(tokenHash), {
    ...caching.sessions,
    ...now,
    onLookup: (hit) => caching.onLookup?.('sessions', hit),
  });
  return { findApiKey: (digest) => apiKeys.get(digest), findSessionContext: (tokenHash) => sessions.get(tokenHash) };
}

/** A session lives no longer than the key that started it (revoked or expired). */
function isValidFor(session: SessionRecord, key: ApiKeyRecord | null, client: ClientRecord, correlationId: string, now: Date): boolean {
  return (
    session.clientId === client.clientId &&
    session.correlationId === correlationId &&
    session.expiresAt.getTime() > now.getTime() &&
    key !== null &&
    key.keyId === session.keyId &&
    key.clientId === client.clientId &&
    isLiveKey(key, now)
  );
}
