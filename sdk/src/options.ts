import { sleep } from './transport/abort';
import type { FetchFn } from './transport/attempt';
import type { RetryPolicy } from './transport/backoff';
import type { TracePropagation } from './middleware/trace-context';
import { userAgentHeader } from './middleware/user-agent';

/** Fine-tuning of retries; every field is optional. */
export interface RetryOptions {
  /** Retries after the first attempt. Default 2; 0 turns retries off. */
  limit?: number;
  /** Ceiling of the first retry's delay, doubled on each retry. Default 200 ms. */
  baseDelayMs?: number;
  /** Largest delay between two attempts, before jitter. Default 5,000 ms. */
  maxDelayMs?: number;
  /**
   * Longest `Retry-After` the SDK waits for; a longer one returns the 429 or
   * 503 to the caller at once. Default 30,000 ms.
   */
  maxRetryAfterMs?: number;
  /** Jitter source in [0, 1). Default `Math.random`; inject for tests. */
  random?: () => number;
  /** Wait between attempts. Default `setTimeout`; inject for tests. Must reject when `signal` aborts. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

export interface LoyaltyClientOptions {
  /** Root URL of the API, such as `https://loyalty.example.com`. */
  baseUrl: string;
  /** The client application's key, sent as `X-Api-Key` on every call. */
  apiKey: string;
  /**
   * The `fetch` to use, called once per attempt with a `Request`. Default:
   * the global `fetch` (Node 20+, browsers, edge runtimes), looked up at each
   * call so that polyfills and test doubles installed later are used.
   */
  fetch?: (request: Request) => Promise<Response>;
  /** Deadline of each attempt (connection, headers and body), in ms. Default 10,000; 0 or Infinity: none. */
  timeoutMs?: number;
  /** Retries of idempotent calls (GET, PUT): a count, or {@link RetryOptions}. Default 2. */
  retries?: number | RetryOptions;
  /** Your app's product token, sent before the SDK's in `User-Agent` (outside browsers), e.g. `my-app/1.4.0`. */
  userAgent?: string;
  /**
   * Asked once per call for the W3C trace context of your current span,
   * sent as `traceparent` (and `tracestate`), so that the API's trace of the
   * call continues yours. With OpenTelemetry:
   * `() => { const headers = {}; propagation.inject(context.active(), headers); return headers; }`.
   * Default: none sent.
   */
  tracePropagation?: TracePropagation;
}

export const DEFAULT_TIMEOUT_MS = 10_000;
export const DEFAULT_RETRY: Omit<RetryPolicy, 'random' | 'sleep'> = {
  limit: 2,
  baseDelayMs: 200,
  maxDelayMs: 5_000,
  maxRetryAfterMs: 30_000,
};

export interface ResolvedOptions {
  baseUrl: string;
  apiKey: string;
  fetch: FetchFn;
  timeoutMs: number;
  retry: RetryPolicy;
  userAgent: string;
  tracePropagation: TracePropagation | null;
}

function nonNegative(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || Number.isNaN(value) || value < 0) {
    throw new RangeError(`${name} must be a number >= 0, got ${String(value)}`);
  }
  return value;
}

// Bad header values would otherwise surface as a TypeError on the first call.
// The message never repeats the value: it may be a secret.
function assertHeaderValue(name: string, value: string): void {
  try {
    new Headers([[name, value]]);
  } catch {
    throw new TypeError(`${name} contains characters that are not allowed in an HTTP header`);
  }
}

/** How a secret key made by the API's operators starts (a publishable key starts `lpk_`). */
const SECRET_KEY_PREFIX = 'lsk_';

/**
 * A secret key in a web page is a leaked key: anyone who opens the page can
 * read it and act for any member. So, as Stripe.js does, the SDK refuses to
 * be made with one where a `document` is: the partner sees it on the first
 * load in development, before any request, rather than the API's `403` on
 * each call. Only a `document` counts: workers and edge runtimes (which may
 * hold a partner's server code) are left alone, as is any key of another
 * form (keys made before keys said their kind). The message never repeats
 * the key.
 */
function assertNoSecretKeyInPage(apiKey: string): void {
  if (!apiKey.startsWith(SECRET_KEY_PREFIX) || (globalThis as { document?: unknown }).document === undefined) return;
  throw new TypeError(
    `createLoyaltyClient: apiKey is a secret key (${SECRET_KEY_PREFIX}...), which must never be in a web page: anyone can read it there. ` +
      "Use the client's publishable key (lpk_...) in the page, and start members' sessions on the partner's server with the secret key.",
  );
}

/** Checks the options once, when the client is made, and fills in defaults. */
export function resolveOptions(options: LoyaltyClientOptions): ResolvedOptions {
  if (typeof options?.baseUrl !== 'string' || options.baseUrl.trim() === '') {
    throw new TypeError('createLoyaltyClient: baseUrl is required');
  }
  if (typeof options.apiKey !== 'string' || options.apiKey.trim() === '') {
    throw new TypeError('createLoyaltyClient: apiKey is required');
  }
  assertHeaderValue('X-Api-Key', options.apiKey);
  assertNoSecretKeyInPage(options.apiKey.trim());
  const userAgent = userAgentHeader(options.userAgent);
  assertHeaderValue('User-Agent', userAgent);

  const custom = options.fetch;
  if (custom === undefined && typeof globalThis.fetch !== 'function') {
    throw new TypeError('createLoyaltyClient: no global fetch in this runtime; pass the `fetch` option');
  }
  // Never call `options.fetch(...)` as a method: a browser's `window.fetch`
  // called on another object throws "Illegal invocation".
  const fetch: FetchFn = custom ?? ((request) => globalThis.fetch(request));

  if (options.tracePropagation !== undefined && typeof options.tracePropagation !== 'function') {
    throw new TypeError('createLoyaltyClient: tracePropagation must be a function returning { traceparent, tracestate }');
  }

  const retries = typeof options.retries === 'number' ? { limit: options.retries } : (options.retries ?? {});
  const limit = nonNegative('retries', retries.limit, DEFAULT_RETRY.limit);
  if (!Number.isInteger(limit)) throw new RangeError(`retries must be a whole number, got ${limit}`);

  return {
    baseUrl: options.baseUrl.trim(),
    apiKey: options.apiKey.trim(),
    fetch,
    timeoutMs: nonNegative('timeoutMs', options.timeoutMs, DEFAULT_TIMEOUT_MS),
    userAgent,
    tracePropagation: options.tracePropagation ?? null,
    retry: {
      limit,
      baseDelayMs: nonNegative('retries.baseDelayMs', retries.baseDelayMs, DEFAULT_RETRY.baseDelayMs),
      maxDelayMs: nonNegative('retries.maxDelayMs', retries.maxDelayMs, DEFAULT_RETRY.maxDelayMs),
      maxRetryAfterMs: nonNegative('retries.maxRetryAfterMs', retries.maxRetryAfterMs, DEFAULT_RETRY.maxRetryAfterMs),
      random: retries.random ?? Math.random,
      sleep: retries.sleep ?? sleep,
    },
  };
}
