import { hash } from 'node:crypto';
import type { RequestHandler } from 'express';
import { AppError } from '../domain/errors';
import { authenticatedClient } from './locals';
import { addResponseHeader } from './response-headers';

const oneMinuteMs = 60_000;

/**
 * At most `perMinute` requests per client key and minute, or 429 with
 * `Retry-After`; every answer carries the IETF draft-8 `RateLimit` and
 * `RateLimit-Policy` headers. Null when `perMinute` is 0 (off). Mount after
 * `requireApiKey`: unknown keys are rejected before they count. Counters live
 * in this process, so each instance of a scaled deployment allows
 * `perMinute` on its own.
 *
 * The behaviour and headers of express-rate-limit (fixed window per key,
 * starting at the key's first request; draft-8 headers named
 * `"<limit>-in-1min"`, partition key `pk` from the key's SHA-256), written
 * out because that library's generality (a dozen awaits, validations and
 * a hash per request) cost more than the rest of the limit check together.
 */
export function rateLimitPerClient(perMinute: number): RequestHandler | null {
  if (perMinute === 0) return null;
  const name = `"${perMinute}-in-1min"`;
  const windowSeconds = Math.ceil(oneMinuteMs / 1000);
  const windows = new FixedWindows(oneMinuteMs, (key) => `${name}; q=${perMinute}; w=${windowSeconds}; pk=:${partitionKey(key)}:`);
  return (_req, res, next) => {
    const key = authenticatedClient(res).clientId;
    const now = Date.now();
    const window = windows.hit(key, now);
    const resetSeconds = Math.max(0, Math.ceil((window.resetAt - now) / 1000));
    addResponseHeader(res, 'RateLimit', `${name}; r=${Math.max(perMinute - window.hits, 0)}; t=${resetSeconds}`);
    addResponseHeader(res, 'RateLimit-Policy', window.policy);
    if (window.hits > perMinute) {
      addResponseHeader(res, 'Retry-After', String(resetSeconds));
      next(new AppError('TOO_MANY_REQUESTS', 'Too many requests'));
      return;
    }
    next();
  };
}

/** Identifies the key's partition without revealing it: as express-rate-limit computes it. */
function partitionKey(key: string): string {
  return Buffer.from(hash('sha256', key, 'hex').slice(0, 12)).toString('base64');
}

interface Window {
  hits: number;
  /** Epoch ms when the window ends and the count starts again. */
  resetAt: number;
  /** The key's `RateLimit-Policy` header value (it never changes). */
  policy: string;
}

/**
 * Hit counters per key. Keys seen in the last period live in `current`;
 * every period the maps rotate, so a key silent for a whole period is
 * forgotten and memory follows the number of active keys.
 */
class FixedWindows {
  private current = new Map<string, Window>();
  private previous = new Map<string, Window>();

  /** `policyOf` gives a key's `RateLimit-Policy` value, computed once per window. */
  constructor(
    private readonly windowMs: number,
    private readonly policyOf: (key: string) => string,
  ) {
    const rotation = setInterval(() => {
      this.previous = this.current;
      this.current = new Map();
    }, windowMs);
    // Housekeeping must never keep the process alive.
    rotation.unref();
  }

  hit(key: string, now: number): Window {
    let window = this.current.get(key);
    if (!window) {
      window = this.previous.get(key) ?? { hits: 0, resetAt: now + this.windowMs, policy: this.policyOf(key) };
      this.previous.delete(key);
      this.current.set(key, window);
    }
    if (window.resetAt <= now) {
      window.hits = 0;
      window.resetAt = now + this.windowMs;
    }
    window.hits++;
    return window;
  }
}
