/**
 * Shared pieces of the consumer tests: the Pact instance, the SDK client
 * under test, provider states and the matchers that say what the SDK relies
 * on. Match loosely (types, regexes) unless the value itself is the contract:
 * status codes, error codes, Operation B's messages, values echoed from the
 * request.
 */
import { MatchersV3, PactV4 } from '@pact-foundation/pact';
import type { V4ResponseBuilder } from '@pact-foundation/pact/src/v4/http/types';
import { createLoyaltyClient, type ForbiddenErrorMessage, type LoyaltyClient, type UnauthorizedErrorMessage } from '@loyalty/sdk';
import {
  apiKeys,
  consumerName,
  type IdentifierTypeParam,
  pactOutputDir,
  pageOrigin,
  placeholderSessionToken,
  providerName,
  states,
  type StateName,
  type StateParams,
} from '../shared/contract';

const { regex, string } = MatchersV3;

/** One Pact per test file; every file writes (merges into) the same pact file, so run them in band. */
export function createPact(): PactV4 {
  return new PactV4({ consumer: consumerName, provider: providerName, dir: pactOutputDir(), logLevel: 'warn' });
}

/**
 * The real SDK against the mock server. No retries: each interaction is
 * exactly one request, also for the 429 and 503 answers the SDK would retry.
 * `fromOrigin`: as in a page on that origin, whose browser adds `Origin` to
 * every request.
 */
export function sdk(baseUrl: string, apiKey: string = apiKeys.partner, fromOrigin?: string): LoyaltyClient {
  const asPage = fromOrigin === undefined ? {} : { fetch: (request: Request) => (request.headers.set('Origin', fromOrigin), fetch(request)) };
  return createLoyaltyClient({ baseUrl, apiKey, retries: 0, timeoutMs: 10_000, userAgent: 'loyalty-contract-tests/1.0.0', ...asPage });
}

/** The SDK in the partner's page: its publishable key, sent from its origin. */
export function pageSdk(baseUrl: string, origin: string = pageOrigin): LoyaltyClient {
  return sdk(baseUrl, apiKeys.partnerPage, origin);
}

/**
 * How long a test waits, after its last request, before Pact asks the mock
 * server what it received. Pact 16.3+ records a matched request on an
 * asynchronous channel after the response has gone out, so under load an
 * interaction that was received and answered can be reported as "expected
 * but not received" (pact-foundation/pact-core-mock-server#13,
 * pact-reference#535, pact-js#1835). Drop this once that race is fixed.
 */
const mockServerSettleMs = 50;

/** Wraps an `executeTest` body so that the mock server's bookkeeping catches up before verification. */
export function settled<M>(test: (mock: M) => Promise<void>): (mock: M) => Promise<void> {
  return async (mock) => {
    await test(mock);
    await new Promise((resolve) => setTimeout(resolve, mockServerSettleMs));
  };
}

// --- provider states ---------------------------------------------------------

export type StateSpec = { [S in StateName]: readonly [S, StateParams[S]] }[StateName];
type UnconfiguredInteraction = ReturnType<PactV4['addInteraction']>;

/** A provider state with its parameters, typed by the state's sentence. */
export function state<S extends StateName>(name: S, params: StateParams[S]): readonly [S, StateParams[S]] {
  return [name, params] as const;
}

/** A new interaction in the given provider states, in order. */
export function interaction(pact: PactV4, description: string, ...given: StateSpec[]): UnconfiguredInteraction {
  let builder = pact.addInteraction();
  for (const [name, params] of given) {
    builder = builder.given(name, params);
  }
  return builder.uponReceiving(description);
}

/** The member most interactions are about, and the state that she exists. */
export const alice = 'm-alice';
export const aliceExists = state(states.memberExists, { correlationId: alice, pointBalance: 50000 });

/** That alice holds a reservation under `reservationToken`, of `reservationAmount` points. */
export const aliceHolds = (reservationToken: string, reservationAmount: number, identifierType: IdentifierTypeParam = 'CARD_NUMBER') =>
  state(states.memberHoldsReservation, { correlationId: alice, reservationToken, reservationAmount, identifierType });

/** Operation B's path. */
export const reservationPath = (correlationId: string, reservationToken: string) => `/client/users/${correlationId}/reservations/${reservationToken}`;

// --- request headers ---------------------------------------------------------

/** A short plain token: the server echoes such ids, and makes its own for anything else. */
export const requestIdPattern = '^[A-Za-z0-9._-]{1,128}$';

/**
 * A fixed id per interaction keeps the pact deterministic; the regex says
 * that any sane id will do.
 */
export function requestIdHeader(requestId: string) {
  return { 'X-Request-Id': regex(requestIdPattern, requestId) };
}

export function apiKeyHeader(apiKey: string = apiKeys.partner) {
  return { 'X-Api-Key': apiKey };
}

/** `Authorization: Bearer <token>`; the placeholder stands for a valid member session. */
function bearer(token: string = placeholderSessionToken) {
  return { Authorization: regex('^Bearer \\S+$', `Bearer ${token}`) };
}

/** The headers of Operations A and B: the client's key, a member session (the placeholder unless given) and the request id. */
export function memberHeaders(requestId: string, token?: string, apiKey: string = apiKeys.partner) {
  return { ...apiKeyHeader(apiKey), ...bearer(token), ...requestIdHeader(requestId) };
}

/** The headers of Operations A and B from the partner's page: its publishable key, its origin (or another), a member session. */
export function pageHeaders(requestId: string, origin: string = pageOrigin) {
  return { ...memberHeaders(requestId, undefined, apiKeys.partnerPage), Origin: origin };
}

// --- response matchers -------------------------------------------------------

export const uuidPattern = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';
export const dateTimePattern = '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d+)?(Z|[+-]\\d{2}:\\d{2})$';
export const exampleSessionId = '3f6c1c9e-8f0a-4b7e-9a52-5d1e2c7b8a90';

export const jsonContentType = { 'Content-Type': regex('^application/json(;.*)?$', 'application/json; charset=utf-8') };

/** The headers of every 2xx: JSON, and the request id echoed. */
export function successHeaders(requestId: string) {
  return { ...jsonContentType, ...requestIdHeader(requestId) };
}

/**
 * A listing's `ETag` and `Cache-Control` (the spec's `ListingETag`,
 * `ListingCacheControl`). Cache-Control exactly: Pact compares a header's
 * comma-separated values one by one, a pattern each.
 */
export const listingTagHeaders = {
  ETag: regex('^"[A-Za-z0-9_-]{22}"$', '"Ql3gS0pjXm3yS9fR0u8a2A"'),
  'Cache-Control': 'private, no-cache',
};

/** 429 and 503 tell the client when to try again; the SDK's retries honour it. */
const retryAfterHeader = { 'Retry-After': regex('^\\d+$', '1') };

/**
 * An error body: statusCode and errorCode are the contract; the message is
 * matched by type unless `message` is given (Operation B's messages are an
 * enum in the spec, so they are matched exactly).
 */
export function errorBody(statusCode: number, errorCode: string, message: string | { example: string }) {
  return {
    statusCode,
    errorCode,
    errorMessage: typeof message === 'string' ? message : string(message.example),
  };
}

// --- the answers every operation shares ---------------------------------------

/** 429: the client used up its rate limit. */
export const tooManyRequests = (res: V4ResponseBuilder) =>
  res.headers({ ...jsonContentType, ...retryAfterHeader }).jsonBody(errorBody(429, 'TOO_MANY_REQUESTS', { example: 'Too many requests with this API key: at most 200 a minute' }));

/** 500: the store failed unexpectedly. */
export const internalError = (res: V4ResponseBuilder) =>
  res.headers(jsonContentType).jsonBody(errorBody(500, 'INTERNAL_ERROR', { example: 'Internal error' }));

/** 503: the store is unavailable. */
export const serviceUnavailable = (res: V4ResponseBuilder) =>
  res.headers({ ...jsonContentType, ...retryAfterHeader }).jsonBody(errorBody(503, 'SERVICE_UNAVAILABLE', { example: 'Service unavailable' }));

/** 431: the request's headers are over the server's 16 KiB. */
export const headersTooLarge = (res: V4ResponseBuilder) =>
  res.headers(jsonContentType).jsonBody(errorBody(431, 'REQUEST_HEADERS_TOO_LARGE', { example: 'Request headers are too large' }));

/**
 * A header that takes a request over the server's 16 KiB of headers: what a
 * partner app sends when it forwards, say, a grown cookie or context header.
 */
export const oversizedHeader = { 'X-Partner-Context': 'x'.repeat(17 * 1024) };

/** The one wording of a schema error on every operation; `details` says what is wrong. */
export const schemaMismatch = 'Request does not match the API specification';

/** 401: the credentials do not allow the call; the message (an enum of the spec) says what to fix. */
export const unauthorized = (message: UnauthorizedErrorMessage) => (res: V4ResponseBuilder) =>
  res.headers(jsonContentType).jsonBody(errorBody(401, 'UNAUTHORIZED', message));

/** 403: the key may not be used for this request; the message (an enum of the spec) says what to do instead. */
export const forbidden = (message: ForbiddenErrorMessage) => (res: V4ResponseBuilder) =>
  res.headers(jsonContentType).jsonBody(errorBody(403, 'FORBIDDEN', message));

/** What the SDK made of an error answer: its status and errorCode. */
export function expectError(result: { response: Response; error?: { errorCode?: string } }, status: number, errorCode: string): void {
  expect(result.response.status).toBe(status);
  expect(result.error?.errorCode).toBe(errorCode);
}

export { regex, string };
