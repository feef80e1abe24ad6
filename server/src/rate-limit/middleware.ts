import type { NextFunction, RequestHandler, Response } from 'express';
import { boundedCache } from '../caching/bounded-cache';
import { AppError } from '../domain/errors';
import { authenticatedKey, memberSession } from '../http/locals';
import { inProcessCounter, type InProcessCounter, type RequestCounter, type WindowCount } from './counter';
import { keyPolicy, secondsBefore, sessionPolicy, setRateLimitHeaders, type LimitPolicy, type LimitState } from './headers';

/** Keys whose `RateLimit-Policy` item is kept; past it the least recently used is computed again. */
const maxCachedPolicies = 10_000;

/** Which limit refused a request (metrics). */
export type LimitName = 'key' | 'session' | 'refused_credentials';

export interface RateLimitSettings {
  /** Requests per API key and minute (`RATE_LIMIT_PER_MINUTE`); 0: none. */
  keyPerMinute: number;
  /** Requests per session and minute with a publishable key (`SESSION_RATE_LIMIT_PER_MINUTE`); 0: none. */
  sessionPerMinute: number;
  /** Counts the keys' requests: by default in this process; on MongoDB, for the fleet (block-quota.ts). */
  keyCounter?: RequestCounter;
  /** Counts the sessions' requests, always in this process (default: `inProcessCounter()`). */
  sessionCounter?: InProcessCounter;
  /** Told of each refusal (metrics). */
  onLimited?: (limit: LimitName) => void;
}

/** The rate limit's middleware for a route: `perSession` on the routes of Operations A and B, which have a session. */
export type RateLimitOf = (route: { perSession: boolean }) => RequestHandler | null;

/**
 * The rate limit, mounted after the credentials are checked, so that a
 * request refused for them counts against nothing. Each API key has its own
 * count, `keyPerMinute` a minute; a request with a publishable key, on a
 * route with a session, first counts against its session, `sessionPerMinute`
 * a minute in this process, so that one member's page cannot spend the
 * page key's count for everyone else (a session spread over N processes gets
 * at most N times that; the key's count caps it all). Past either, `429`
 * with `Retry-After`, its `errorMessage` and headers naming the limit hit;
 * every other answer carries the IETF draft-8 `RateLimit` and
 * `RateLimit-Policy` headers of the limits it met (the key's, then the
 * session's). Null when both limits are 0.
 *
 * The key's count, as `keyCounter` keeps it: in this process the window
 * starts at the key's first request and `hits` is exact; on MongoDB the
 * windows are fixed per key and `hits` is this process's best knowledge
 * (block-quota.ts). A session's count costs no store command.
 */
export function rateLimit(settings: RateLimitSettings): RateLimitOf {
  const { keyPerMinute, sessionPerMinute, onLimited = () => undefined } = settings;
  if (keyPerMinute === 0 && sessionPerMinute === 0) return () => null;
  const keyCounter = settings.keyCounter ?? inProcessCounter();
  const sessionCounter = settings.sessionCounter ?? inProcessCounter();
  // A key's policy never changes: computed once per key.
  const keyPolicies = boundedCache<string, LimitPolicy>({ maxEntries: maxCachedPolicies });
  const policyOfKey = (keyId: string): LimitPolicy => {
    let policy = keyPolicies.get(keyId);
    if (policy === undefined) keyPolicies.set(keyId, (policy = keyPolicy(keyPerMinute, keyId)));
    return policy;
  };
  const ofSessions = sessionPerMinute === 0 ? null : sessionPolicy(sessionPerMinute);

  const refuse = (res: Response, state: LimitState, limit: LimitName, next: NextFunction): void => {
    onLimited(limit);
    setRateLimitHeaders(res, [state], secondsBefore(state.msBeforeReset));
    next(new AppError('TOO_MANY_REQUESTS', state.policy.refusal));
  };

  /** The key's count, once the session's (if any) let the request through. */
  const answer = (res: Response, keyId: string, count: WindowCount, session: LimitState | null, next: NextFunction): void => {
    const key = stateOf(policyOfKey(keyId), count);
    if (count.hits > keyPerMinute) return refuse(res, key, 'key', next);
    setRateLimitHeaders(res, session ? [key, session] : [key]);
    next();
  };

  return ({ perSession }) => {
    const sessionPolicyHere = perSession ? ofSessions : null;
    return (_req, res, next) => {
      const key = authenticatedKey(res);
      let session: LimitState | null = null;
      if (sessionPolicyHere && key.kind === 'publishable') {
        session = stateOf(sessionPolicyHere, sessionCounter.hit(memberSession(res).sessionId));
        if (session.remaining < 0) return refuse(res, session, 'session', next);
      }
      if (keyPerMinute === 0) {
        if (session) setRateLimitHeaders(res, [session]);
        return next();
      }
      const counted = keyCounter.hit(key.keyId);
      // The in-process count needs no promise (the hot path of the embedded store).
      if (counted instanceof Promise) counted.then((count) => answer(res, key.keyId, count, session, next), next);
      else answer(res, key.keyId, counted, session, next);
    };
  };
}

/** A count against a limit, as the headers say it: `remaining` below 0 once past it. */
function stateOf(policy: LimitPolicy, count: WindowCount): LimitState {
  return { policy, remaining: policy.quota - count.hits, msBeforeReset: count.msBeforeReset };
}
