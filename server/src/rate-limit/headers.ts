import { hash } from 'node:crypto';
import type { Response } from 'express';
import { rateLimitWindowMs } from './windows';

const windowSeconds = rateLimitWindowMs / 1000;

/**
 * One limit as the IETF draft-8 `RateLimit` headers name it, and as its
 * `429` says it: every limit is per minute.
 */
export interface LimitPolicy {
  /** Its name in both headers, quoted: `"6000-in-1min"`. */
  readonly name: string;
  /** Requests a window allows. */
  readonly quota: number;
  /** Its item of `RateLimit-Policy`: `"6000-in-1min"; q=6000; w=60`, and the partition when it has one. */
  readonly item: string;
  /** The `errorMessage` of the `429` this limit answers. */
  readonly refusal: string;
}

/** Where a request stands against one limit. */
export interface LimitState {
  policy: LimitPolicy;
  /** Requests the window still allows. */
  remaining: number;
  msBeforeReset: number;
}

function policy(name: string, quota: number, refusal: string, partition?: string): LimitPolicy {
  const quoted = `"${name}"`;
  return { name: quoted, quota, refusal, item: `${quoted}; q=${quota}; w=${windowSeconds}${partition === undefined ? '' : `; pk=:${partition}:`}` };
}

/**
 * The API key's limit, fleet-wide (`RATE_LIMIT_PER_MINUTE`): named as
 * express-rate-limit names it, its partition (`pk`) the key's id hashed as
 * express-rate-limit hashes a key, which identifies it without naming it.
 */
export function keyPolicy(perMinute: number, keyId: string): LimitPolicy {
  return policy(`${perMinute}-in-1min`, perMinute, `Too many requests with this API key: at most ${perMinute} a minute`, partitionOf(keyId));
}

/** A session's own limit with a publishable key (`SESSION_RATE_LIMIT_PER_MINUTE`), in each process. */
export function sessionPolicy(perMinute: number): LimitPolicy {
  return policy(`session-${perMinute}-in-1min`, perMinute, `Too many requests in this session: at most ${perMinute} a minute`);
}

/** A client address's requests refused for their credentials (`AUTH_FAILURES_PER_MINUTE`), in each process. */
export function refusedCredentialsPolicy(perMinute: number): LimitPolicy {
  return policy(
    `refused-credentials-${perMinute}-in-1min`,
    perMinute,
    `Too many requests refused for their credentials from this address: past ${perMinute} a minute, one unknown key or session is looked up a second`,
  );
}

/**
 * The `RateLimit` and `RateLimit-Policy` headers of the limits a request
 * met, in that order; with `retryAfterSeconds`, the `Retry-After` of a `429`
 * (the limit that refused it is then the only one named).
 */
export function setRateLimitHeaders(res: Response, states: readonly LimitState[], retryAfterSeconds?: number): void {
  let rateLimit = '';
  let policies = '';
  for (const { policy: limit, remaining, msBeforeReset } of states) {
    const separator = rateLimit === '' ? '' : ', ';
    rateLimit += `${separator}${limit.name}; r=${Math.max(remaining, 0)}; t=${secondsBefore(msBeforeReset)}`;
    policies += `${separator}${limit.item}`;
  }
  res.setHeader('RateLimit', rateLimit);
  res.setHeader('RateLimit-Policy', policies);
  if (retryAfterSeconds !== undefined) res.setHeader('Retry-After', String(retryAfterSeconds));
}

/** Whole seconds until a window resets, as the headers and `Retry-After` give it. */
export function secondsBefore(msBeforeReset: number): number {
  return Math.max(0, Math.ceil(msBeforeReset / 1000));
}

/** Identifies the key's partition without revealing it: as express-rate-limit computes it. */
function partitionOf(key: string): string {
  return Buffer.from(hash('sha256', key, 'hex').slice(0, 12)).toString('base64');
}
