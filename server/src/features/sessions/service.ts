import { randomUUID } from 'node:crypto';
import type { Clock } from '../../domain/clock';
import { AppError } from '../../domain/errors';
import { hashSecret, newSessionToken } from '../../domain/secrets';
import type { SessionService } from '../../domain/services';
import type { AuthStore } from '../../store/port';

export function createSessionService(deps: { store: AuthStore; clock: Clock }): SessionService {
  const { store, clock } = deps;

  return {
    async startSession(client, keyId, correlationId, identifierType) {
      const member = await store.findMember(correlationId);
      if (!member) throw new AppError('MEMBER_NOT_FOUND', 'Member not found');

      const sessionToken = newSessionToken();
      const sessionId = randomUUID();
      const expiresAt = new Date(clock().getTime() + client.sessionTtlSeconds * 1000);
      // Only the token's digest is stored: a leaked session collection gives no usable token.
      await store.insertSession({
        tokenHash: hashSecret(sessionToken),
        sessionId,
        clientId: client.clientId,
        keyId,
        correlationId,
        identifierType,
        expiresAt,
        // Where Operation B finds the member's wallet, with the member, in one read.
        walletId: member.walletId,
      });
      return { sessionToken, sessionId, identifierType, expiresAt };
    },
  };
}
