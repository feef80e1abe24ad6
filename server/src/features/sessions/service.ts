import { randomUUID } from 'node:crypto';
import type { Clock } from '../../domain/clock';
import { AppError, serviceUnavailable, unauthorized, unauthorizedMessages } from '../../domain/errors';
import { defaultMaxEndedSessions, maxSessionTtlSeconds } from '../../domain/limits';
import type { ClientRecord, IdentifierType, MemberRecord, SessionRecord } from '../../domain/model';
import { hashSecret, newSessionToken } from '../../domain/secrets';
import { sealSession, type SealingKey } from '../../domain/session-tokens';
import type { SessionService, StartedSession } from '../../domain/services';
import type { AuthStore, SessionStateStore } from '../../store/port';
import { ReadCache, type ReadCacheSettings } from '../../caching/read-cache';
import type { KeepStarted } from './auth-service';
import type { SessionState } from './session-state';

export interface SessionServiceDeps {
  store: Pick<AuthStore, 'findMember' | 'insertSession'> & Pick<SessionStateStore, 'endSession'>;
  clock: Clock;
  /** The session keys and the ended sessions, as this process knows them. */
  sessionState: SessionState;
  /** Asked before each start reads its member; told of the session started, with that member (the process keeps both: CredentialService.startingSession). */
  startingSession?: () => KeepStarted;
  /** Keep the members starts read for a moment (processes sharing a database; 2 s); absent: read every time. */
  memberCaching?: ReadCacheSettings & { now?: () => number };
  /** Ended sessions the deployment keeps at most; a sign-out past it is refused (503) until some expire. Default `defaultMaxEndedSessions`. */
  maxEndedSessions?: number;
}

/**
 * Start Session and sign-out. A session started once the store holds a
 * session key is sealed into its token (session-tokens.ts) and written
 * nowhere: the start costs the member's read at most, and none when this
 * process read that member within 2 s. Until the store holds a key (a
 * fleet that may still run the release before sealed tokens: see
 * docs/operating.md), sessions are stored as before, by their token's digest.
 */
export function createSessionService(deps: SessionServiceDeps): SessionService {
  const { store, clock, sessionState } = deps;
  const maxEnded = deps.maxEndedSessions ?? defaultMaxEndedSessions;
  const members = deps.memberCaching ? new ReadCache<MemberRecord | null>((correlationId) => store.findMember(correlationId), deps.memberCaching) : null;
  const findMember = (correlationId: string) => (members ? members.get(correlationId) : store.findMember(correlationId));

  /** A session of the release before sealed tokens: a random token, its digest stored. */
  async function storedSession(started: StartingSession, keep: KeepStarted | undefined): Promise<StartedSession> {
    const sessionToken = newSessionToken();
    // Only the token's digest is stored: a leaked session collection gives no usable token.
    const session: SessionRecord = { ...started.session, tokenHash: hashSecret(sessionToken), sessionId: randomUUID() };
    await store.insertSession(session);
    keep?.(session, started.member);
    return { sessionToken, sessionId: session.sessionId, identifierType: session.identifierType, expiresAt: session.expiresAt };
  }

  function sealedSession(key: SealingKey, started: StartingSession, keep: KeepStarted | undefined): StartedSession {
    const { token, session } = sealSession(key, { ...started.session, issuedAt: started.issuedAt });
    keep?.(session, started.member);
    return { sessionToken: token, sessionId: session.sessionId, identifierType: session.identifierType, expiresAt: session.expiresAt };
  }

  return {
    async startSession(client, keyId, correlationId, identifierType) {
      const keep = deps.startingSession?.();
      const member = await findMember(correlationId);
      if (!member) throw new AppError('MEMBER_NOT_FOUND', 'Member not found');
      await sessionState.ready();
      const started = startingSession(client, keyId, member, identifierType, clock());
      const key = sessionState.signingKey();
      return key ? sealedSession(key, started, keep) : storedSession(started, keep);
    },

    async endSession(session) {
      await sessionState.ready();
      // Every ended session is kept until its token expires: past the bound, no more sign-outs until some do.
      if (sessionState.endedCount >= maxEnded) throw serviceUnavailable();
      if (!(await store.endSession({ sessionId: session.sessionId, expiresAt: session.expiresAt }))) throw unauthorized(unauthorizedMessages.invalidSession);
      sessionState.ended(session.sessionId, session.expiresAt);
    },
  };
}

/** What a session starting now is, whichever token will carry it. */
interface StartingSession {
  issuedAt: Date;
  member: MemberRecord;
  session: { clientId: string; keyId: string; correlationId: string; identifierType: IdentifierType; expiresAt: Date; walletId: string };
}

function startingSession(client: ClientRecord, keyId: string, member: MemberRecord, identifierType: IdentifierType, now: Date): StartingSession {
  // Bounded here too: a client stored before the bound may carry a longer lifetime.
  const expiresAt = new Date(now.getTime() + Math.min(client.sessionTtlSeconds, maxSessionTtlSeconds) * 1000);
  return {
    issuedAt: now,
    member,
    // Where Operation B finds the member's wallet, with the member, in one read.
    session: { clientId: client.clientId, keyId, correlationId: member.correlationId, identifierType, expiresAt, walletId: member.walletId },
  };
}
