/**
 * Start Session (`POST /client/users/{correlation_id}/sessions`) as the SDK's
 * `startSession` calls it: every status the spec documents (the 401 and 429
 * every operation shares: shared-answers.pact.test.ts).
 */
import { MatchersV3 } from '@pact-foundation/pact';
import type { IdentifierType } from '@loyalty/sdk';
import { apiKeys, pageOrigin, states } from '../shared/contract';
import {
  alice,
  aliceExists,
  apiKeyHeader,
  createPact,
  dateTimePattern,
  errorBody,
  exampleSessionId,
  expectError,
  forbidden,
  headersTooLarge,
  interaction,
  internalError,
  jsonContentType,
  regex,
  oversizedHeader,
  pageSdk,
  requestIdHeader,
  schemaMismatch,
  sdk,
  serviceUnavailable,
  settled,
  state,
  string,
  successHeaders,
  uuidPattern,
} from './support';

const { eachLike } = MatchersV3;

const pact = createPact();
const path = `/client/users/${alice}/sessions`;

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
          .jsonBody({
            ...errorBody(400, 'INVALID_REQUEST', schemaMismatch),
            details: eachLike({ path: string('/headers/x-identifier-type'), message: string('must be equal to one of the allowed values') }),
          }),
      )
      .executeTest(settled(async (mock) => {
        const result = await sdk(mock.url).startSession({
          correlationId: alice,
          // The SDK's types refuse it; a partner app built without them may still send it.
          identifierType: 'PASSPORT' as IdentifierType,
          requestId,
        });
        expectError(result, 400, 'INVALID_REQUEST');
      }));
  });

  it('403: refuses to start a session with the publishable key, from its own page', () => {
    const requestId = 'contract-start-session-403-publishable';
    return interaction(pact, "a request to start a session with the partner page's publishable key", aliceExists)
      .withRequest('POST', path, (req) => req.headers({ ...sessionRequest('CARD_NUMBER', requestId, apiKeys.partnerPage), Origin: pageOrigin }))
      .willRespondWith(403, forbidden("Sessions are started by the partner's server with a secret key, never with a publishable key"))
      .executeTest(settled(async (mock) => {
        const result = await pageSdk(mock.url).startSession({ correlationId: alice, identifierType: 'CARD_NUMBER', requestId });
        expectError(result, 403, 'FORBIDDEN');
        expect(result.error?.errorMessage).toBe("Sessions are started by the partner's server with a secret key, never with a publishable key");
      }));
  });

  it('403: refuses a secret key sent from a page', () => {
    const requestId = 'contract-start-session-403-secret-from-page';
    return interaction(pact, 'a request to start a session with the secret key, sent from a page', aliceExists)
      .withRequest('POST', path, (req) => req.headers({ ...sessionRequest('CARD_NUMBER', requestId), Origin: pageOrigin }))
      .willRespondWith(403, forbidden('Secret keys must not be sent from a web page: use a publishable key there'))
      .executeTest(settled(async (mock) => {
        const result = await sdk(mock.url, apiKeys.partner, pageOrigin).startSession({ correlationId: alice, identifierType: 'CARD_NUMBER', requestId });
        expectError(result, 403, 'FORBIDDEN');
        expect(result.error?.errorMessage).toBe('Secret keys must not be sent from a web page: use a publishable key there');
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
        expectError(result, 404, 'MEMBER_NOT_FOUND');
      }));
  });

  it('431: refuses headers over 16 KiB', () => {
    const requestId = 'contract-start-session-431';
    return interaction(pact, 'a request to start a session with headers over 16 KiB', aliceExists)
      .withRequest('POST', path, (req) => req.headers({ ...sessionRequest('CARD_NUMBER', requestId), ...oversizedHeader }))
      .willRespondWith(431, headersTooLarge)
      .executeTest(settled(async (mock) => {
        // The raw client: the SDK's own calls send no header of the app's.
        const result = await sdk(mock.url).raw.POST('/client/users/{correlation_id}/sessions', {
          params: { path: { correlation_id: alice }, header: { 'X-Identifier-Type': 'CARD_NUMBER' } },
          headers: { 'X-Request-Id': requestId, ...oversizedHeader },
        });
        expectError(result, 431, 'REQUEST_HEADERS_TOO_LARGE');
      }));
  });

  it('500: answers INTERNAL_ERROR when the store fails unexpectedly', () => {
    const requestId = 'contract-start-session-500';
    return interaction(pact, 'a request to start a session while the store fails', aliceExists, state(states.storeFails, {}))
      .withRequest('POST', path, (req) => req.headers(sessionRequest('CARD_NUMBER', requestId)))
      .willRespondWith(500, internalError)
      .executeTest(settled(async (mock) => {
        const result = await sdk(mock.url).startSession({ correlationId: alice, identifierType: 'CARD_NUMBER', requestId });
        expectError(result, 500, 'INTERNAL_ERROR');
      }));
  });

  it('503: answers SERVICE_UNAVAILABLE when the store is unavailable', () => {
    const requestId = 'contract-start-session-503';
    return interaction(pact, 'a request to start a session while the store is unavailable', aliceExists, state(states.storeUnavailable, {}))
      .withRequest('POST', path, (req) => req.headers(sessionRequest('CARD_NUMBER', requestId)))
      .willRespondWith(503, serviceUnavailable)
      .executeTest(settled(async (mock) => {
        const result = await sdk(mock.url).startSession({ correlationId: alice, identifierType: 'CARD_NUMBER', requestId });
        expectError(result, 503, 'SERVICE_UNAVAILABLE');
      }));
  });
});
