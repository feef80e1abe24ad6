import type { Clock } from '../../domain/clock';
import { isLiveKey, type ApiKeyRecord, type ClientRecord, type SessionRecord } from '../../domain/model';
import { hashSecret, sameDigest } from '../../domain/secrets';
import type { AuthService } from '../../domain/services';
import type { Store } from '../../store/port';

/** Longer credentials are rejected before hashing: no key or token of ours is this long. */
const maxCredentialLength = 256;

export function createAuthService(deps: { store: Store; clock: Clock }): AuthService {
  const { store, clock } = deps;

  return {
    async lookUpSession(bearerToken) {
      if (!bearerToken || bearerToken.length > maxCredentialLength) return null;
      const found = await store.findSessionContext(hashSecret(bearerToken));
      return found ? { bearerToken, ...found } : null;
    },

    async authenticateClient(apiKey, lookup) {
      if (!apiKey || apiKey.length > maxCredentialLength) return null;
      const digest = hashSecret(apiKey);
      // The key that started the session, when it is this key; any other key is looked up.
      const found =
        lookup?.key && lookup.client && sameDigest(lookup.key.digest, digest) ? { key: lookup.key, client: lookup.client } : await store.findApiKey(digest);
      // The lookup is by digest; the constant-time comparison keeps the final
      // decision free of timing differences whatever the store does.
      if (!found?.client || !sameDigest(found.key.digest, digest) || !isLiveKey(found.key, clock())) return null;
      return { client: found.client, key: found.key };
    },

    async authenticateSession(client, bearerToken, correlationId, lookup) {
      if (!bearerToken || bearerToken.length > maxCredentialLength) return null;
      const found = lookup?.bearerToken === bearerToken ? lookup : await store.findSessionContext(hashSecret(bearerToken));
      if (!found) return null;
      return isValidFor(found.session, found.key, client, correlationId, clock()) ? found.session : null;
    },
  };
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
