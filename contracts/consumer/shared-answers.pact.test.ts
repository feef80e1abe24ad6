/**
 * The answers every operation shares, one table: `401` (the API key, the
 * session: each message the spec lists where the operation can give it) and
 * `429` (the client over its rate limit), each as the SDK meets it on Start
 * Session, Operation A, Operation B and End Session. HEAD on Operation A has
 * them in its own table (voucher-definitions-head.pact.test.ts).
 */
import type { TemplateHeaders } from '@pact-foundation/pact';
import type { V4ResponseBuilder } from '@pact-foundation/pact/src/v4/http/types';
import type { LoyaltyClient } from '@loyalty/sdk';
import { apiKeys, clientIds, invalidSessionToken, placeholderSessionToken, states } from '../shared/contract';
import {
  alice,
  aliceExists,
  aliceHolds,
  apiKeyHeader,
  createPact,
  interaction,
  memberHeaders,
  requestIdHeader,
  reservationPath,
  sdk,
  settled,
  state,
  tooManyRequests,
  unauthorized,
  type StateSpec,
} from './support';

const pact = createPact();
const sessionsPath = `/client/users/${alice}/sessions`;
const vouchersPath = `/client/users/${alice}/voucher-definitions`;
const currentSessionPath = `/client/users/${alice}/sessions/current`;
const lowering = { reservationAmount: 7500 };
const overItsLimit = state(states.rateLimitUsedUp, { clientId: clientIds.throttled });

/** What a call through the SDK gave back: the response, and the error body the SDK typed. */
type SdkResult = { response: Response; error?: { errorCode?: string; errorMessage?: string } };

interface SharedCase {
  /** The interaction's description, as the pact holds it. */
  description: string;
  given: StateSpec[];
  request: { method: 'POST' | 'GET' | 'PUT' | 'DELETE'; path: string; headers: TemplateHeaders; body?: object };
  status: 401 | 429;
  answer: (res: V4ResponseBuilder) => V4ResponseBuilder;
  /** The 401's message, matched exactly; a 429's is matched by type. */
  errorMessage?: string;
  /** The call as a partner app makes it: the SDK's own method, or its raw client where the SDK would add the session. */
  send: (client: LoyaltyClient) => Promise<SdkResult>;
  apiKey?: string;
}

const missingSession = 'Missing session: send Authorization: Bearer <sessionToken>';

const cases: Array<[title: string, SharedCase]> = [
  [
    'Start Session, 401: an unknown API key',
    {
      description: 'a request to start a session with an unknown API key',
      given: [aliceExists],
      request: { method: 'POST', path: sessionsPath, headers: sessionHeaders('contract-start-session-401', apiKeys.unknown) },
      status: 401,
      answer: unauthorized('Missing or unknown API key'),
      errorMessage: 'Missing or unknown API key',
      apiKey: apiKeys.unknown,
      send: (client) => client.startSession({ correlationId: alice, identifierType: 'CARD_NUMBER', requestId: 'contract-start-session-401' }),
    },
  ],
  [
    'Start Session, 429: a client over its rate limit',
    {
      description: 'a request to start a session from a client over its rate limit',
      given: [aliceExists, overItsLimit],
      request: { method: 'POST', path: sessionsPath, headers: sessionHeaders('contract-start-session-429', apiKeys.throttled) },
      status: 429,
      answer: tooManyRequests,
      apiKey: apiKeys.throttled,
      send: (client) => client.startSession({ correlationId: alice, identifierType: 'CARD_NUMBER', requestId: 'contract-start-session-429' }),
    },
  ],
  [
    'Operation A, 401: a token that is no session',
    {
      description: 'a request to list voucher definitions with an invalid session token',
      given: [aliceExists],
      request: { method: 'GET', path: vouchersPath, headers: memberHeaders('contract-list-vouchers-401', invalidSessionToken) },
      status: 401,
      answer: unauthorized('Invalid or expired session'),
      errorMessage: 'Invalid or expired session',
      send: (client) => client.listVoucherDefinitions({ correlationId: alice, sessionToken: invalidSessionToken, requestId: 'contract-list-vouchers-401' }),
    },
  ],
  [
    'Operation A, 401: no session, saying how to send one',
    {
      description: 'a request to list voucher definitions without a session',
      given: [aliceExists],
      request: { method: 'GET', path: vouchersPath, headers: { ...apiKeyHeader(), ...requestIdHeader('contract-list-vouchers-401-no-session') } },
      status: 401,
      answer: unauthorized(missingSession),
      errorMessage: missingSession,
      send: (client) =>
        client.raw.GET('/client/users/{correlation_id}/voucher-definitions', {
          params: { path: { correlation_id: alice } },
          headers: { 'X-Request-Id': 'contract-list-vouchers-401-no-session' },
        }),
    },
  ],
  [
    'Operation A, 429: a client over its rate limit',
    {
      description: 'a request to list voucher definitions from a client over its rate limit',
      given: [aliceExists, overItsLimit],
      request: { method: 'GET', path: vouchersPath, headers: memberHeaders('contract-list-vouchers-429', undefined, apiKeys.throttled) },
      status: 429,
      answer: tooManyRequests,
      apiKey: apiKeys.throttled,
      send: (client) => client.listVoucherDefinitions({ correlationId: alice, sessionToken: placeholderSessionToken, requestId: 'contract-list-vouchers-429' }),
    },
  ],
  [
    'Operation B, 401: a token that is no session',
    {
      description: 'a request to update a reservation with an invalid session token',
      given: [aliceHolds('rt-alice-1', 10000)],
      request: { method: 'PUT', path: reservationPath(alice, 'rt-alice-1'), headers: memberHeaders('contract-update-401', invalidSessionToken), body: lowering },
      status: 401,
      answer: unauthorized('Invalid or expired session'),
      errorMessage: 'Invalid or expired session',
      send: (client) =>
        client.updateReservation({ correlationId: alice, reservationToken: 'rt-alice-1', sessionToken: invalidSessionToken, body: lowering, requestId: 'contract-update-401' }),
    },
  ],
  [
    'Operation B, 401: no session, saying how to send one',
    {
      description: 'a request to update a reservation without a session',
      given: [aliceHolds('rt-alice-1', 10000)],
      request: {
        method: 'PUT',
        path: reservationPath(alice, 'rt-alice-1'),
        headers: { ...apiKeyHeader(), ...requestIdHeader('contract-update-401-no-session') },
        body: lowering,
      },
      status: 401,
      answer: unauthorized(missingSession),
      errorMessage: missingSession,
      send: (client) =>
        client.raw.PUT('/client/users/{correlation_id}/reservations/{reservation_token}', {
          params: { path: { correlation_id: alice, reservation_token: 'rt-alice-1' } },
          body: lowering,
          headers: { 'X-Request-Id': 'contract-update-401-no-session' },
        }),
    },
  ],
  [
    'Operation B, 429: a client over its rate limit',
    {
      description: 'a request to update a reservation from a client over its rate limit',
      given: [aliceHolds('rt-alice-1', 10000), overItsLimit],
      request: {
        method: 'PUT',
        path: reservationPath(alice, 'rt-alice-1'),
        headers: memberHeaders('contract-update-429', undefined, apiKeys.throttled),
        body: lowering,
      },
      status: 429,
      answer: tooManyRequests,
      apiKey: apiKeys.throttled,
      send: (client) =>
        client.updateReservation({
          correlationId: alice,
          reservationToken: 'rt-alice-1',
          sessionToken: placeholderSessionToken,
          body: lowering,
          requestId: 'contract-update-429',
        }),
    },
  ],
  [
    'End Session, 401: a token that is no session (never one, or one that has ended)',
    {
      description: 'a request to end a member session with an invalid session token',
      given: [aliceExists],
      request: { method: 'DELETE', path: currentSessionPath, headers: memberHeaders('contract-end-session-401', invalidSessionToken) },
      status: 401,
      answer: unauthorized('Invalid or expired session'),
      errorMessage: 'Invalid or expired session',
      send: (client) => client.endSession({ correlationId: alice, sessionToken: invalidSessionToken, requestId: 'contract-end-session-401' }),
    },
  ],
  [
    'End Session, 401: no session, saying how to send one',
    {
      description: 'a request to end a member session without a session',
      given: [aliceExists],
      request: { method: 'DELETE', path: currentSessionPath, headers: { ...apiKeyHeader(), ...requestIdHeader('contract-end-session-401-no-session') } },
      status: 401,
      answer: unauthorized(missingSession),
      errorMessage: missingSession,
      send: (client) =>
        client.raw.DELETE('/client/users/{correlation_id}/sessions/current', {
          params: { path: { correlation_id: alice } },
          headers: { 'X-Request-Id': 'contract-end-session-401-no-session' },
        }),
    },
  ],
  [
    'End Session, 429: a client over its rate limit',
    {
      description: 'a request to end a member session from a client over its rate limit',
      given: [aliceExists, overItsLimit],
      request: { method: 'DELETE', path: currentSessionPath, headers: memberHeaders('contract-end-session-429', undefined, apiKeys.throttled) },
      status: 429,
      answer: tooManyRequests,
      apiKey: apiKeys.throttled,
      send: (client) => client.endSession({ correlationId: alice, sessionToken: placeholderSessionToken, requestId: 'contract-end-session-429' }),
    },
  ],
];

/** Start Session's headers: the key, an identifier type, the request id. */
function sessionHeaders(requestId: string, apiKey: string) {
  return { ...apiKeyHeader(apiKey), 'X-Identifier-Type': 'CARD_NUMBER', ...requestIdHeader(requestId) };
}

describe('the answers every operation shares', () => {
  it.each(cases)('%s', (_title, c) =>
    interaction(pact, c.description, ...c.given)
      .withRequest(c.request.method, c.request.path, (req) => {
        req.headers(c.request.headers);
        if (c.request.body) req.jsonBody(c.request.body);
      })
      .willRespondWith(c.status, c.answer)
      .executeTest(settled(async (mock) => {
        const result = await c.send(sdk(mock.url, c.apiKey));
        expect(result.response.status).toBe(c.status);
        expect(result.error?.errorCode).toBe(c.status === 401 ? 'UNAUTHORIZED' : 'TOO_MANY_REQUESTS');
        if (c.errorMessage) expect(result.error?.errorMessage).toBe(c.errorMessage);
        // The SDK's retries wait as long as a 429 says.
        if (c.status === 429) expect(result.response.headers.get('Retry-After')).toBe('1');
      })),
  );
});
