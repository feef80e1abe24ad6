import { LoyaltyRequestError } from '../errors';
import { REQUEST_ID_HEADER } from '../request-id';
import { untilAborted } from './abort';
import { AttemptFailure, attemptOnce, type FetchFn } from './attempt';
import { backoffDelay, parseRetryAfter, type RetryPolicy } from './backoff';

/*
 * Why retries and timeouts live in a fetch function, not in openapi-fetch
 * middleware: openapi-fetch calls `fetch` once per call and its middleware can
 * only edit the request before that call or the response after it. A retry
 * has to send the request again, with a new deadline each time, after the
 * body stream of the first request has been consumed. A transport passed as
 * `createClient({ fetch })` owns exactly that step, so the layers stay apart:
 *
 *   SDK method -> openapi-fetch -> middleware (onRequest: request id,
 *   User-Agent, API key, session) -> transport (attempts, timeout, backoff)
 *   -> the caller's fetch, once per attempt -> middleware (onResponse)
 *
 * Headers are set once, before the transport, so every attempt carries the
 * same request id and credentials. The transport is a plain
 * `(Request) => Promise<Response>` over an injected fetch, sleep and random,
 * which is what the unit tests drive; and a caller who wants to observe or
 * change each attempt wraps its own `fetch` and passes it in.
 */

/** Methods that RFC 9110 defines as idempotent: sending them twice is safe. */
const IDEMPOTENT_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE', 'TRACE']);

/** Answers that mean "not now" rather than "no": rate limit and gateway/overload. */
const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([429, 502, 503, 504]);

export interface TransportOptions {
  /** Deadline of each attempt, headers and body included; 0: none. */
  timeoutMs: number;
  retry: RetryPolicy;
}

export function createTransport(fetch: FetchFn, options: TransportOptions): FetchFn {
  const { timeoutMs, retry } = options;

  return async function transport(request: Request): Promise<Response> {
    // Start Session (POST) is not idempotent: a retry could start a second
    // session, so it gets exactly one attempt. End Session (DELETE) is
    // retried: ending a session twice leaves it ended. When an attempt whose
    // answer was lost had ended it, the retry's answer is `401 Invalid or
    // expired session`, handed back as it is: the caller treats that 401 as
    // signed out anyway, since another tab, the server or the session's
    // expiry can end it first too, and a made-up 204 would hide a real 401.
    const maxAttempts = IDEMPOTENT_METHODS.has(request.method.toUpperCase()) ? retry.limit + 1 : 1;
    // Read once and re-sent by every attempt. Read from a clone so that the
    // original stays usable as the template of each attempt in every runtime.
    const body = request.body === null ? undefined : await request.clone().arrayBuffer();

    const fail = (failure: AttemptFailure, attempts: number): LoyaltyRequestError =>
      new LoyaltyRequestError({
        reason: failure.reason,
        method: request.method,
        url: request.url,
        requestId: request.headers.get(REQUEST_ID_HEADER) ?? undefined,
        attempts,
        timeoutMs,
        status: failure.status,
        cause: failure.cause,
      });

    // Waits before the next attempt; the caller's signal cuts the wait short.
    const pause = async (ms: number, attempts: number): Promise<void> => {
      try {
        await untilAborted(retry.sleep(ms, request.signal), request.signal);
      } catch (cause) {
        if (request.signal.aborted) throw fail(new AttemptFailure('aborted', cause), attempts);
        throw cause;
      }
    };

    for (let attempt = 1; ; attempt++) {
      let response: Response;
      try {
        response = await attemptOnce(fetch, request, body, timeoutMs);
      } catch (error) {
        const failure = error instanceof AttemptFailure ? error : new AttemptFailure('network', error);
        // Timeouts are retried too: the method is idempotent, so a request
        // that did reach the server before the deadline is safe to repeat.
        // An aborted call or a non-JSON answer would not change by retrying.
        const retryable = failure.reason === 'network' || failure.reason === 'timeout';
        if (!retryable || attempt >= maxAttempts) throw fail(failure, attempt);
        await pause(backoffDelay(attempt, retry), attempt);
        continue;
      }

      if (attempt >= maxAttempts || !RETRYABLE_STATUSES.has(response.status)) return response;
      const retryAfter = parseRetryAfter(response.headers.get('Retry-After'), Date.now());
      // The server said when to come back. If that is further away than the
      // caller agreed to wait, hand its answer back rather than sleep on it.
      if (retryAfter !== undefined && retryAfter > retry.maxRetryAfterMs) return response;
      await pause(retryAfter ?? backoffDelay(attempt, retry), attempt);
    }
  };
}
