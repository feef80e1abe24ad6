/**
 * Start Session (`POST /client/users/{correlation_id}/sessions`) as the SDK's
 * `startSession` calls it: every status the spec documents.
 */
import type { IdentifierType } from '@loyalty/sdk';
import { apiKeys, clientIds, states } from '../shared/contract';
import {
  apiKeyHeader,
  createPact,
  dateTimePattern,
  errorBody,
  exampleSessionId,
  interaction,
  jsonContentType,
  regex,
  requestIdHeader,
  retryAfterHeader,
  sdk,
  settled,
  state,
  string,
  successHeaders,
  uuidPattern,
} from './support';

const pact = createPact();
const alice = 'm-alice';
const path = `/client/users/${alice}/sessions`;
const aliceExists = state(states.memberExists, { correlationId: alice, pointBalance: 50000 });

function sessionRequest(identifierType: string, requestId: string, apiKey: string = apiKeys.partner) {
  return {
    ...apiKeyHeader(apiKey),
    'X-Identifier-Type': identifierType,
    ...requestIdHeader(requestId),
  };
}

describe('startSession', () => {
  it('201: starts a session for a known member', () => {
    const requestId = 'contract-start-session-201';
    return interaction(pact, 'a request to start a CARD_NUMBER session for a known member', aliceExists)
      .withRequest('POST', path, (req) => req.headers(sessionRequest('CARD_NUMBER', requestId)))
      .willRespondWith(201, (res) =>
        res.headers(successHeaders(requestId)).jsonBody({
          sessionToken: string('st_9kq3ZbJ0m4W2yQ8vT1xH5cN7rL6pD0sA'),
          sessionId: regex(uuidPattern, exampleSessionId),
          identifierType: 'CARD_NUMBER',
          expiresAt: regex(dateTimePattern, '2026-11-21T21:00:00.000Z'),
        }),
      )
      .executeTest(settled(async (mock) => {
        const result = await sdk(mock.url).startSession({ correlationId: alice, identifierType: 'CARD_NUMBER', requestId });
        expect(result.response.status).toBe(201);
        expect(result.error).toBeUndefined();
        expect(result.data).toEqual({
          sessionToken: 'st_9kq3ZbJ0m4W2yQ8vT1xH5cN7rL6pD0sA',
          sessionId: exampleSessionId,
          identifierType: 'CARD_NUMBER',
          expiresAt: '2026-11-21T21:00:00.000Z',
        });
        expect(result.requestId).toBe(requestId);
      }));
  });

  it('400: refuses an identifier type the spec does not list', () => {
    const requestId = 'contract-start-session-400';
    return interaction(pact, 'a request to start a session with an unknown identifier type', aliceExists)
      .withRequest('POST', path, (req) => req.headers(sessionRequest('PASSPORT', requestId)))
      .willRespondWith(400, (res) =>
        res
          .headers(jsonContentType)
          .jsonBody(errorBody(400, 'INVALID_REQUEST', { example: 'Invalid header x-identifier-type: must be equal to one of the allowed values' })),
      )
      .executeTest(settled(async (mock) => {
        const result = await sdk(mock.url).startSession({
          correlationId: alice,
          // The SDK's types refuse it; a partner app built without them may still send it.
          identifierType: 'PASSPORT' as IdentifierType,
          requestId,
        });
        expect(result.response.status).toBe(400);
        expect(result.error?.errorCode).toBe('INVALID_REQUEST');
      }));
  });

  it('401: refuses an unknown API key', () => {
    const requestId = 'contract-start-session-401';
    return interaction(pact, 'a request to start a session with an unknown API key', aliceExists)
      .withRequest('POST', path, (req) => req.headers(sessionRequest('CARD_NUMBER', requestId, apiKeys.unknown)))
      .willRespondWith(401, (res) =>
        res.headers(jsonContentType).jsonBody(errorBody(401, 'UNAUTHORIZED', { example: 'Missing or unknown API key' })),
      )
      .executeTest(settled(async (mock) => {
        const result = await sdk(mock.url, apiKeys.unknown).startSession({ correlationId: alice, identifierType: 'CARD_NUMBER', requestId });
        expect(result.response.status).toBe(401);
        expect(result.error?.errorCode).toBe('UNAUTHORIZED');
      }));
  });

  it('404: answers MEMBER_NOT_FOUND for an unknown member', () => {
    const requestId = 'contract-start-session-404';
    return interaction(pact, 'a request to start a session for an unknown member', state(states.memberIsUnknown, { correlationId: 'm-nobody' }))
      .withRequest('POST', '/client/users/m-nobody/sessions', (req) => req.headers(sessionRequest('EMAIL', requestId)))
      .willRespondWith(404, (res) =>
        res.headers(jsonContentType).jsonBody(errorBody(404, 'MEMBER_NOT_FOUND', { example: 'Member not found' })),
      )
      .executeTest(settled(async (mock) => {
        const result = await sdk(mock.url).startSession({ correlationId: 'm-nobody', identifierType: 'EMAIL', requestId });
        expect(result.response.status).toBe(404);
        expect(result.error?.errorCode).toBe('MEMBER_NOT_FOUND');
      }));
  });

  it('429: answers TOO_MANY_REQUESTS once the client used up its rate limit', () => {
    const requestId = 'contract-start-session-429';
    return interaction(
      pact,
      'a request to start a session from a client over its rate limit',
      aliceExists,
      state(states.rateLimitUsedUp, { clientId: clientIds.throttled }),
    )
      .withRequest('POST', path, (req) => req.headers(sessionRequest('CARD_NUMBER', requestId, apiKeys.throttled)))
      .willRespondWith(429, (res) =>
        res.headers({ ...jsonContentType, ...retryAfterHeader }).jsonBody(errorBody(429, 'TOO_MANY_REQUESTS', { example: 'Too many requests' })),
      )
      .executeTest(settled(async (mock) => {
        const result = await sdk(mock.url, apiKeys.throttled).startSession({ correlationId: alice, identifierType: 'CARD_NUMBER', requestId });
        expect(result.response.status).toBe(429);
        expect(result.error?.errorCode).toBe('TOO_MANY_REQUESTS');
        expect(result.response.headers.get('Retry-After')).toBe('1');
      }));
  });

  it('500: answers INTERNAL_ERROR when the store fails unexpectedly', () => {
    const requestId = 'contract-start-session-500';
    return interaction(pact, 'a request to start a session while the store fails', aliceExists, state(states.storeFails, {}))
      .withRequest('POST', path, (req) => req.headers(sessionRequest('CARD_NUMBER', requestId)))
      .willRespondWith(500, (res) =>
        res.headers(jsonContentType).jsonBody(errorBody(500, 'INTERNAL_ERROR', { example: 'Internal error' })),
      )
      .executeTest(settled(async (mock) => {
        const result = await sdk(mock.url).startSession({ correlationId: alice, identifierType: 'CARD_NUMBER', requestId });
        expect(result.response.status).toBe(500);
        expect(result.error?.errorCode).toBe('INTERNAL_ERROR');
      }));
  });

  it('503: answers SERVICE_UNAVAILABLE when the store is unavailable', () => {
    const requestId = 'contract-start-session-503';
    return interaction(pact, 'a request to start a session while the store is unavailable', aliceExists, state(states.storeUnavailable, {}))
      .withRequest('POST', path, (req) => req.headers(sessionRequest('CARD_NUMBER', requestId)))
      .willRespondWith(503, (res) =>
        res
          .headers({ ...jsonContentType, ...retryAfterHeader })
          .jsonBody(errorBody(503, 'SERVICE_UNAVAILABLE', { example: 'Service unavailable' })),
      )
      .executeTest(settled(async (mock) => {
        const result = await sdk(mock.url).startSession({ correlationId: alice, identifierType: 'CARD_NUMBER', requestId });
        expect(result.response.status).toBe(503);
        expect(result.error?.errorCode).toBe('SERVICE_UNAVAILABLE');
      }));
  });
});
