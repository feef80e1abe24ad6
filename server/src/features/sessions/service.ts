import { randomUUID } from 'node:crypto';
import type { Clock } from '../../domain/clock';
import { AppError } from '../../domain/errors';
import { maxSessionTtlSeconds } from '../../domain/limits';
import type { SessionRecord } from '../../domain/model';
import { hashSecret, newSessionToken } from '../../domain/secrets';
import type { SessionService } from '../../domain/services';
import type { AuthStore } from '../../store/port';
import type { KeepStarted } from './auth-service';

export interface SessionServiceDeps {
  store: Pick<AuthStore, 'findMember' | 'insertSession'>;
  clock: Clock;
  /** Asked before each start reads its member; told of the session started, with that member (the process keeps both: CredentialService.startingSession). */
  startingSession?: () => KeepStarted;
}

export function createSessionService(deps: SessionServiceDeps): SessionService {
  const { store, clock } = deps;

  return {
    async startSession(client, keyId, correlationId, identifierType) {
      const keepStarted = deps.startingSession?.();
      const member = await store.findMember(correlationId);
      if (!member) throw new AppError('MEMBER_NOT_FOUND', 'Member not found');

      const sessionToken = newSessionToken();
      const sessionId = randomUUID();
      // Bounded here too: a client stored before the bound may carry a longer lifetime.
      const expiresAt = new Date(clock().getTime() + Math.min(client.sessionTtlSeconds, maxSessionTtlSeconds) * 1000);
      // Only the token's digest is stored: a leaked session collection gives no usable token.
      const session: SessionRecord = {
        tokenHash: hashSecret(sessionToken),
        sessionId,
        clientId: client.clientId,
        keyId,
        correlationId,
        identifierType,
        expiresAt,
        // Where Operation B finds the member's wallet, with the member, in one read.
        walletId: member.walletId,
      };
      await store.insertSession(session);
      keepStarted?.(session, member);
      return { sessionToken, sessionId, identifierType, expiresAt };
    },
  };
}
