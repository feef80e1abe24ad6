/** Why a request got no HTTP answer. */
export type RequestFailureReason =
  /** No complete answer within `timeoutMs`, on the last attempt. */
  | 'timeout'
  /** The connection failed: DNS, refused, reset, TLS, CORS, offline... */
  | 'network'
  /** The caller's `signal` aborted the call. Never retried. */
  | 'aborted'
  /**
   * A 2xx answer whose body is not JSON: not the API's answer (a captive
   * portal or a misrouted proxy, say). Never retried.
   */
  | 'invalid-response';

export interface LoyaltyRequestErrorInit {
  reason: RequestFailureReason;
  method: string;
  url: string;
  requestId: string | undefined;
  attempts: number;
  timeoutMs: number;
  /** The HTTP status, for `invalid-response`. */
  status?: number;
  cause: unknown;
}

const MESSAGES: Record<RequestFailureReason, (init: LoyaltyRequestErrorInit) => string> = {
  timeout: (i) => `${i.method} request timed out after ${i.timeoutMs} ms`,
  network: (i) => `${i.method} request failed: network error`,
  aborted: (i) => `${i.method} request aborted by the caller`,
  'invalid-response': (i) => `${i.method} request got an answer that is not JSON (HTTP ${i.status ?? '?'})`,
};

/**
 * The one error a call rejects with: the request got no answer from the API.
 * HTTP error statuses do not throw; they come back as `{ error, response }`.
 *
 * The message names the method, the reason, the attempts and the request id,
 * but not the URL: its path holds the member's correlation id and the
 * reservation token, and error messages end up in logs. `url` is there for
 * callers who decide to log it.
 */
export class LoyaltyRequestError extends Error {
  // On the prototype rather than as a field, so that it is already set when
  // Error's constructor writes the first line of `stack`.
  static {
    Object.defineProperty(this.prototype, 'name', { value: 'LoyaltyRequestError', writable: true, configurable: true });
  }
  declare readonly name: 'LoyaltyRequestError';
  readonly reason: RequestFailureReason;
  readonly method: string;
  readonly url: string;
  /** The `X-Request-Id` sent with every attempt; quote it to the API's operators. */
  readonly requestId: string | undefined;
  /** How many attempts were made (1 when nothing was retried). */
  readonly attempts: number;
  /** The HTTP status of an `invalid-response`; undefined for the other reasons. */
  readonly status: number | undefined;

  constructor(init: LoyaltyRequestErrorInit) {
    const detail = `${init.attempts} attempt${init.attempts === 1 ? '' : 's'}, request id ${init.requestId ?? 'none'}`;
    super(`${MESSAGES[init.reason](init)} (${detail})`, { cause: init.cause });
    this.reason = init.reason;
    this.method = init.method;
    this.url = init.url;
    this.requestId = init.requestId;
    this.attempts = init.attempts;
    this.status = init.status;
  }
}

/**
 * `instanceof` fails when an app ends up with both the ESM and the CommonJS
 * copy of this package (the dual-package hazard), so this also accepts an
 * error that only looks like ours.
 */
export function isLoyaltyRequestError(value: unknown): value is LoyaltyRequestError {
  if (value instanceof LoyaltyRequestError) return true;
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as { name?: unknown; reason?: unknown };
  return candidate.name === 'LoyaltyRequestError' && typeof candidate.reason === 'string';
}
