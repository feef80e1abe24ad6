import { hash } from 'node:crypto';
import type { NextFunction, RequestHandler, Response } from 'express';
import { boundedCache } from '../caching/bounded-cache';
import { AppError } from '../domain/errors';
import { authenticatedClient } from '../http/locals';
import { inProcessCounter, type RequestCounter, type WindowCount } from './counter';
import { rateLimitWindowMs } from './windows';

const windowSeconds = rateLimitWindowMs / 1000;

/** Keys whose `RateLimit-Policy` value is kept; past it the least recently used is computed again. */
const maxCachedPolicies = 10_000;

/**
 * At most `perMinute` requests per client key and minute, or 429 with
 * `Retry-After`; every answer carries the IETF draft-8 `RateLimit` and
 * `RateLimit-Policy` headers. Null when `perMinute` is 0 (off). Mount after
 * `requireApiKey`: unknown keys are rejected before they count.
 *
 * `counter` counts: by default in this process (each instance of a scaled
 * deployment then allows `perMinute` on its own); on MongoDB, for every
 * process on the database, in blocks claimed from the database and spent in
 * memory (block-quota.ts). `onLimited` is told of each refusal (metrics).
 *
 * The headers of express-rate-limit (draft-8, named `"<limit>-in-1min"`,
 * partition key `pk` from the key's SHA-256): `r` is the limit less the
 * count's hits, `t` and `Retry-After` the seconds left of the key's window.
 * In this process the window starts at the key's first request and `hits`
 * is exact; on MongoDB the windows are fixed per key and `hits` is this
 * process's best knowledge (the limit less the tokens it holds and those
 * the window had left at its last claim; while MongoDB is away, the limit
 * less what is left of its own share).
 */
export function rateLimitPerClient(
  perMinute: number,
  counter: RequestCounter = inProcessCounter(),
  onLimited: () => void = () => undefined,
): RequestHandler | null {
  if (perMinute === 0) return null;
  const name = `"${perMinute}-in-1min"`;
  // A key's `RateLimit-Policy` value never changes: computed once per key.
  const policies = boundedCache<string, string>({ maxEntries: maxCachedPolicies });
  const policyOf = (key: string): string => {
    let policy = policies.get(key);
    if (policy === undefined) policies.set(key, (policy = `${name}; q=${perMinute}; w=${windowSeconds}; pk=:${partitionKey(key)}:`));
    return policy;
  };

  const answer = (res: Response, key: string, count: WindowCount, next: NextFunction): void => {
    const resetSeconds = Math.max(0, Math.ceil(count.msBeforeReset / 1000));
    res.setHeader('RateLimit', `${name}; r=${Math.max(perMinute - count.hits, 0)}; t=${resetSeconds}`);
    res.setHeader('RateLimit-Policy', policyOf(key));
    if (count.hits > perMinute) {
      onLimited();
      res.setHeader('Retry-After', String(resetSeconds));
      next(new AppError('TOO_MANY_REQUESTS', 'Too many requests'));
      return;
    }
    next();
  };

  return (_req, res, next) => {
    const key = authenticatedClient(res).clientId;
    const counted = counter.hit(key);
    // The in-process count needs no promise (the hot path of the embedded store).
    if (counted instanceof Promise) counted.then((count) => answer(res, key, count, next), next);
    else answer(res, key, counted, next);
  };
}

/** Identifies the key's partition without revealing it: as express-rate-limit computes it. */
function partitionKey(key: string): string {
  return Buffer.from(hash('sha256', key, 'hex').slice(0, 12)).toString('base64');
}
