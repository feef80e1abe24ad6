import type { RequestHandler } from 'express';
import { rateLimit } from 'express-rate-limit';
import { AppError } from '../domain/errors';
import { authenticatedClient } from './locals';

const oneMinuteMs = 60_000;

/**
 * At most `perMinute` requests per client key and minute, or 429 with
 * `Retry-After` and the standard `RateLimit` headers; null when `perMinute`
 * is 0 (off). Mount after `requireApiKey`: unknown keys are rejected before
 * they count. Counters live in this process, so each instance of a scaled
 * deployment allows `perMinute` on its own.
 */
export function rateLimitPerClient(perMinute: number): RequestHandler | null {
  if (perMinute === 0) return null;
  return rateLimit({
    windowMs: oneMinuteMs,
    limit: perMinute,
    standardHeaders: 'draft-8',
    legacyHeaders: false,
    keyGenerator: (_req, res) => authenticatedClient(res).clientId,
    handler: (_req, _res, next) => next(new AppError('TOO_MANY_REQUESTS', 'Too many requests')),
    // The key is the client, not the caller's IP address: proxy settings do not matter to it.
    validate: { trustProxy: false, xForwardedForHeader: false },
  });
}
