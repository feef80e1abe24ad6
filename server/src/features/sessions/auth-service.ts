import type { Clock } from '../../domain/clock';
import type { ClientRecord, SessionRecord } from '../../domain/model';
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
      const apiKeyHash = hashSecret(apiKey);
      // The session's own client, when the key is its key; any other key is looked up.
      const client = lookup?.client && sameDigest(lookup.client.apiKeyHash, apiKeyHash) ? lookup.client : await store.findClientByApiKeyHash(apiKeyHash);
      // The lookup is by digest; the constant-time comparison keeps the final
      // decision free of timing differences whatever the store does.
      return client && sameDigest(client.apiKeyHash, apiKeyHash) ? client : null;
    },

    async authenticateSession(client, bearerToken, correlationId, lookup) {
      if (!bearerToken || bearerToken.length > maxCredentialLength) return null;
      const session = lookup?.bearerToken === bearerToken ? lookup.session : await store.findSession(hashSecret(bearerToken));
      return session && isValidFor(session, client, correlationId, clock()) ? session : null;
    },
  };
}

function isValidFor(session: SessionRecord, client: ClientRecord, correlationId: string, now: Date): boolean {
  return (
    session.clientId === client.clientId &&
    session.correlationId === correlationId &&
    session.expiresAt.getTime() > now.getTime()
  );
}
