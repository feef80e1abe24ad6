import createClient from 'openapi-fetch';

/* Built from sdk/src by tsup (npm run build -w @loyalty/sdk). Do not edit: commit what the build writes. */


// src/middleware/credentials.ts
function apiKeyMiddleware(apiKey) {
  return {
    onRequest({ request }) {
      request.headers.set("X-Api-Key", apiKey);
      return void 0;
    }
  };
}
function sessionAuth(sessionToken) {
  return {
    onRequest({ request }) {
      request.headers.set("Authorization", `Bearer ${sessionToken}`);
      return void 0;
    }
  };
}

// src/response.ts
var NULL_BODY_STATUSES = /* @__PURE__ */ new Set([101, 103, 204, 205, 304]);
function withBody(response, body, headers = response.headers) {
  const copy = new Response(NULL_BODY_STATUSES.has(response.status) ? null : body, {
    status: response.status,
    statusText: response.statusText,
    headers
  });
  Object.defineProperties(copy, {
    url: { value: response.url, enumerable: true },
    redirected: { value: response.redirected, enumerable: true }
  });
  return copy;
}

// src/middleware/error-body.ts
var BODY_EXCERPT_LENGTH = 1e3;
function isApiErrorBody(text) {
  let parsed;
  try {
    parsed = JSON.parse(text);
  } catch {
    return false;
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return false;
  const body = parsed;
  return typeof body.statusCode === "number" && typeof body.errorCode === "string" && typeof body.errorMessage === "string";
}
function errorBodyMiddleware() {
  return {
    async onResponse({ request, response }) {
      if (NULL_BODY_STATUSES.has(response.status)) return withEmptyBody(response);
      if (response.ok || request.method === "HEAD") return void 0;
      const text = await response.clone().text();
      if (isApiErrorBody(text)) return void 0;
      const body = {
        statusCode: response.status,
        errorCode: "UNEXPECTED_RESPONSE",
        errorMessage: `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ""}: not an error body of the loyalty API`,
        body: text.slice(0, BODY_EXCERPT_LENGTH)
      };
      const headers = new Headers(response.headers);
      headers.set("Content-Type", "application/json");
      headers.delete("Content-Length");
      headers.delete("Content-Encoding");
      return withBody(response, JSON.stringify(body), headers);
    }
  };
}
function withEmptyBody(response) {
  if (response.headers.get("Content-Length") === "0") return void 0;
  const headers = new Headers(response.headers);
  headers.set("Content-Length", "0");
  return withBody(response, null, headers);
}

// src/request-id.ts
var REQUEST_ID_HEADER = "X-Request-Id";
function newRequestId() {
  const webCrypto = globalThis.crypto;
  if (typeof webCrypto?.randomUUID === "function") return webCrypto.randomUUID();
  const bytes = new Uint8Array(16);
  if (typeof webCrypto?.getRandomValues === "function") webCrypto.getRandomValues(bytes);
  else for (let i = 0; i < bytes.length; i++) bytes[i] = Math.floor(Math.random() * 256);
  bytes[6] = (bytes[6] ?? 0) & 15 | 64;
  bytes[8] = (bytes[8] ?? 0) & 63 | 128;
  const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
var sentIds = /* @__PURE__ */ new WeakMap();
function rememberRequestId(response, requestId) {
  sentIds.set(response, requestId);
}
function requestIdOf(response) {
  return sentIds.get(response);
}

// src/middleware/request-id.ts
function requestIdMiddleware() {
  return {
    onRequest({ request }) {
      if (!request.headers.has(REQUEST_ID_HEADER)) request.headers.set(REQUEST_ID_HEADER, newRequestId());
      return void 0;
    },
    // Registered first, so its onResponse runs last (openapi-fetch runs them
    // in reverse) and sees the response the caller will get.
    onResponse({ request, response }) {
      const requestId = request.headers.get(REQUEST_ID_HEADER);
      if (requestId !== null) rememberRequestId(response, requestId);
      return void 0;
    }
  };
}

// src/middleware/trace-context.ts
var traceparentFormat = /^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/;
var maxTracestateLength = 512;
function traceContextMiddleware(tracePropagation) {
  return {
    onRequest({ request }) {
      if (request.headers.has("traceparent")) return void 0;
      const { traceparent, tracestate } = currentTraceHeaders(tracePropagation);
      if (!isTraceparent(traceparent)) return void 0;
      request.headers.set("traceparent", traceparent);
      if (typeof tracestate === "string" && tracestate !== "" && tracestate.length <= maxTracestateLength && isHeaderValue(tracestate)) {
        request.headers.set("tracestate", tracestate);
      }
      return void 0;
    }
  };
}
function currentTraceHeaders(tracePropagation) {
  try {
    const headers = tracePropagation();
    return typeof headers === "object" && headers !== null ? headers : {};
  } catch {
    return {};
  }
}
function isTraceparent(value) {
  if (typeof value !== "string" || !traceparentFormat.test(value)) return false;
  const [version, traceId, parentId] = value.split("-");
  return version !== "ff" && !/^0+$/.test(traceId ?? "") && !/^0+$/.test(parentId ?? "");
}
function isHeaderValue(value) {
  try {
    new Headers([["tracestate", value]]);
    return true;
  } catch {
    return false;
  }
}

// src/version.ts
var SDK_VERSION = "1.1.0-unreleased";
var SDK_PRODUCT = `loyalty-sdk-js/${SDK_VERSION}`;

// src/middleware/user-agent.ts
function userAgentHeader(appUserAgent) {
  const app = appUserAgent?.trim();
  return app ? `${app} ${SDK_PRODUCT}` : SDK_PRODUCT;
}
function userAgentMiddleware(userAgent) {
  return {
    onRequest({ request }) {
      request.headers.set("User-Agent", userAgent);
      return void 0;
    }
  };
}
function runsInBrowser() {
  const scope = globalThis;
  return scope.document !== void 0 || typeof scope.WorkerGlobalScope === "function";
}

// src/transport/abort.ts
function untilAborted(work, signal) {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}
var MAX_TIMER_MS = 2147483647;
function sleep(ms, signal) {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, Math.min(ms, MAX_TIMER_MS));
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

// src/options.ts
var DEFAULT_TIMEOUT_MS = 1e4;
var DEFAULT_RETRY = {
  limit: 2,
  baseDelayMs: 200,
  maxDelayMs: 5e3,
  maxRetryAfterMs: 3e4
};
function nonNegative(name, value, fallback) {
  if (value === void 0) return fallback;
  if (typeof value !== "number" || Number.isNaN(value) || value < 0) {
    throw new RangeError(`${name} must be a number >= 0, got ${String(value)}`);
  }
  return value;
}
function assertHeaderValue(name, value) {
  try {
    new Headers([[name, value]]);
  } catch {
    throw new TypeError(`${name} contains characters that are not allowed in an HTTP header`);
  }
}
var SECRET_KEY_PREFIX = "lsk_";
function assertNoSecretKeyInPage(apiKey) {
  if (!apiKey.startsWith(SECRET_KEY_PREFIX) || globalThis.document === void 0) return;
  throw new TypeError(
    `createLoyaltyClient: apiKey is a secret key (${SECRET_KEY_PREFIX}...), which must never be in a web page: anyone can read it there. Use the client's publishable key (lpk_...) in the page, and start members' sessions on the partner's server with the secret key.`
  );
}
function resolveOptions(options) {
  if (typeof options?.baseUrl !== "string" || options.baseUrl.trim() === "") {
    throw new TypeError("createLoyaltyClient: baseUrl is required");
  }
  if (typeof options.apiKey !== "string" || options.apiKey.trim() === "") {
    throw new TypeError("createLoyaltyClient: apiKey is required");
  }
  assertHeaderValue("X-Api-Key", options.apiKey);
  assertNoSecretKeyInPage(options.apiKey.trim());
  const userAgent = userAgentHeader(options.userAgent);
  assertHeaderValue("User-Agent", userAgent);
  const custom = options.fetch;
  if (custom === void 0 && typeof globalThis.fetch !== "function") {
    throw new TypeError("createLoyaltyClient: no global fetch in this runtime; pass the `fetch` option");
  }
  const fetch = custom ?? ((request) => globalThis.fetch(request));
  if (options.tracePropagation !== void 0 && typeof options.tracePropagation !== "function") {
    throw new TypeError("createLoyaltyClient: tracePropagation must be a function returning { traceparent, tracestate }");
  }
  const retries = typeof options.retries === "number" ? { limit: options.retries } : options.retries ?? {};
  const limit = nonNegative("retries", retries.limit, DEFAULT_RETRY.limit);
  if (!Number.isInteger(limit)) throw new RangeError(`retries must be a whole number, got ${limit}`);
  return {
    baseUrl: options.baseUrl.trim(),
    apiKey: options.apiKey.trim(),
    fetch,
    timeoutMs: nonNegative("timeoutMs", options.timeoutMs, DEFAULT_TIMEOUT_MS),
    userAgent,
    tracePropagation: options.tracePropagation ?? null,
    retry: {
      limit,
      baseDelayMs: nonNegative("retries.baseDelayMs", retries.baseDelayMs, DEFAULT_RETRY.baseDelayMs),
      maxDelayMs: nonNegative("retries.maxDelayMs", retries.maxDelayMs, DEFAULT_RETRY.maxDelayMs),
      maxRetryAfterMs: nonNegative("retries.maxRetryAfterMs", retries.maxRetryAfterMs, DEFAULT_RETRY.maxRetryAfterMs),
      random: retries.random ?? Math.random,
      sleep: retries.sleep ?? sleep
    }
  };
}

// src/errors.ts
var MESSAGES = {
  timeout: (i) => `${i.method} request timed out after ${i.timeoutMs} ms`,
  network: (i) => `${i.method} request failed: network error`,
  aborted: (i) => `${i.method} request aborted by the caller`,
  "invalid-response": (i) => `${i.method} request got an answer that is not JSON (HTTP ${i.status ?? "?"})`
};
var LoyaltyRequestError = class extends Error {
  static {
    Object.defineProperty(this.prototype, "name", { value: "LoyaltyRequestError", writable: true, configurable: true });
  }
  reason;
  method;
  url;
  /** The `X-Request-Id` sent with every attempt; quote it to the API's operators. */
  requestId;
  /** How many attempts were made (1 when nothing was retried). */
  attempts;
  /** The HTTP status of an `invalid-response`; undefined for the other reasons. */
  status;
  constructor(init) {
    const detail = `${init.attempts} attempt${init.attempts === 1 ? "" : "s"}, request id ${init.requestId ?? "none"}`;
    super(`${MESSAGES[init.reason](init)} (${detail})`, { cause: init.cause });
    this.reason = init.reason;
    this.method = init.method;
    this.url = init.url;
    this.requestId = init.requestId;
    this.attempts = init.attempts;
    this.status = init.status;
  }
};
function isLoyaltyRequestError(value) {
  if (value instanceof LoyaltyRequestError) return true;
  if (typeof value !== "object" || value === null) return false;
  const candidate = value;
  return candidate.name === "LoyaltyRequestError" && typeof candidate.reason === "string";
}

// src/transport/attempt.ts
var AttemptFailure = class {
  constructor(reason, cause, status) {
    this.reason = reason;
    this.cause = cause;
    this.status = status;
  }
  reason;
  cause;
  status;
};
function assertJson(bytes, status) {
  if (bytes.byteLength === 0) return;
  try {
    JSON.parse(new TextDecoder().decode(bytes));
  } catch (cause) {
    throw new AttemptFailure("invalid-response", cause, status);
  }
}
async function attemptOnce(fetch, request, body, timeoutMs) {
  const callerSignal = request.signal;
  if (callerSignal.aborted) throw new AttemptFailure("aborted", callerSignal.reason);
  const controller = new AbortController();
  let abortedBy;
  const onCallerAbort = () => {
    abortedBy ??= "aborted";
    controller.abort(callerSignal.reason);
  };
  callerSignal.addEventListener("abort", onCallerAbort, { once: true });
  const timer = timeoutMs > 0 && timeoutMs < Infinity ? setTimeout(
    () => {
      abortedBy ??= "timeout";
      controller.abort(new Error(`No answer within ${timeoutMs} ms`));
    },
    Math.min(timeoutMs, MAX_TIMER_MS)
  ) : void 0;
  try {
    const attempt = new Request(request, { body, signal: controller.signal });
    const response = await untilAborted(fetch(attempt), controller.signal);
    if (response.body === null) return response;
    const bytes = await untilAborted(response.arrayBuffer(), controller.signal);
    if (response.ok) assertJson(bytes, response.status);
    return withBody(response, bytes);
  } catch (cause) {
    if (cause instanceof AttemptFailure) throw cause;
    throw new AttemptFailure(abortedBy ?? "network", cause);
  } finally {
    clearTimeout(timer);
    callerSignal.removeEventListener("abort", onCallerAbort);
  }
}

// src/transport/backoff.ts
function backoffDelay(retry, policy) {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (retry - 1));
  const jitter = Math.min(Math.max(policy.random(), 0), 1);
  return Math.round(jitter * ceiling);
}
function parseRetryAfter(value, now) {
  if (value === null) return void 0;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1e3;
  if (!/^[A-Za-z]{3}/.test(text)) return void 0;
  const date = Date.parse(text);
  if (Number.isNaN(date)) return void 0;
  return Math.max(0, date - now);
}

// src/transport/transport.ts
var IDEMPOTENT_METHODS = /* @__PURE__ */ new Set(["GET", "HEAD", "OPTIONS", "PUT", "DELETE", "TRACE"]);
var RETRYABLE_STATUSES = /* @__PURE__ */ new Set([429, 502, 503, 504]);
function createTransport(fetch, options) {
  const { timeoutMs, retry } = options;
  return async function transport(request) {
    const maxAttempts = IDEMPOTENT_METHODS.has(request.method.toUpperCase()) ? retry.limit + 1 : 1;
    const body = request.body === null ? void 0 : await request.clone().arrayBuffer();
    const fail = (failure, attempts) => new LoyaltyRequestError({
      reason: failure.reason,
      method: request.method,
      url: request.url,
      requestId: request.headers.get(REQUEST_ID_HEADER) ?? void 0,
      attempts,
      timeoutMs,
      status: failure.status,
      cause: failure.cause
    });
    const pause = async (ms, attempts) => {
      try {
        await untilAborted(retry.sleep(ms, request.signal), request.signal);
      } catch (cause) {
        if (request.signal.aborted) throw fail(new AttemptFailure("aborted", cause), attempts);
        throw cause;
      }
    };
    for (let attempt = 1; ; attempt++) {
      let response;
      try {
        response = await attemptOnce(fetch, request, body, timeoutMs);
      } catch (error) {
        const failure = error instanceof AttemptFailure ? error : new AttemptFailure("network", error);
        const retryable = failure.reason === "network" || failure.reason === "timeout";
        if (!retryable || attempt >= maxAttempts) throw fail(failure, attempt);
        await pause(backoffDelay(attempt, retry), attempt);
        continue;
      }
      if (attempt >= maxAttempts || !RETRYABLE_STATUSES.has(response.status)) return response;
      const retryAfter = parseRetryAfter(response.headers.get("Retry-After"), Date.now());
      if (retryAfter !== void 0 && retryAfter > retry.maxRetryAfterMs) return response;
      await pause(retryAfter ?? backoffDelay(attempt, retry), attempt);
    }
  };
}

// src/client.ts
function pathSegment(name, value) {
  if (typeof value !== "string" || value === "" || value === "." || value === "..") {
    throw new TypeError(`${name} must be a non-empty string other than "." and ".."`);
  }
  return value;
}
function callInit(args, middleware) {
  const requestId = args.requestId ?? newRequestId();
  return { requestId, init: { signal: args.signal, headers: { [REQUEST_ID_HEADER]: requestId }, middleware } };
}
function createLoyaltyClient(options) {
  const resolved = resolveOptions(options);
  const raw = createClient({
    baseUrl: resolved.baseUrl,
    fetch: createTransport(resolved.fetch, { timeoutMs: resolved.timeoutMs, retry: resolved.retry })
  });
  raw.use(
    requestIdMiddleware(),
    ...resolved.tracePropagation ? [traceContextMiddleware(resolved.tracePropagation)] : [],
    ...runsInBrowser() ? [] : [userAgentMiddleware(resolved.userAgent)],
    apiKeyMiddleware(resolved.apiKey),
    errorBodyMiddleware()
  );
  return {
    raw,
    async startSession(args) {
      const { requestId, init } = callInit(args, []);
      const result = await raw.POST("/client/users/{correlation_id}/sessions", {
        params: {
          path: { correlation_id: pathSegment("correlationId", args.correlationId) },
          header: { "X-Identifier-Type": args.identifierType }
        },
        ...init
      });
      return { ...result, requestId };
    },
    async listVoucherDefinitions(args) {
      const { requestId, init } = callInit(args, [sessionAuth(args.sessionToken)]);
      const result = await raw.GET("/client/users/{correlation_id}/voucher-definitions", {
        params: {
          path: { correlation_id: pathSegment("correlationId", args.correlationId) },
          query: { businessUnit: args.businessUnit }
        },
        ...init
      });
      return { ...result, requestId };
    },
    async updateReservation(args) {
      const { requestId, init } = callInit(args, [sessionAuth(args.sessionToken)]);
      const result = await raw.PUT("/client/users/{correlation_id}/reservations/{reservation_token}", {
        params: {
          path: {
            correlation_id: pathSegment("correlationId", args.correlationId),
            reservation_token: pathSegment("reservationToken", args.reservationToken)
          }
        },
        body: args.body,
        ...init
      });
      return { ...result, requestId };
    },
    async endSession(args) {
      const { requestId, init } = callInit(args, [sessionAuth(args.sessionToken)]);
      const result = await raw.DELETE("/client/users/{correlation_id}/sessions/current", {
        params: { path: { correlation_id: pathSegment("correlationId", args.correlationId) } },
        ...init
      });
      return { ...result, requestId };
    }
  };
}

export { LoyaltyRequestError, SDK_VERSION, createLoyaltyClient, isLoyaltyRequestError, requestIdOf, sessionAuth };
