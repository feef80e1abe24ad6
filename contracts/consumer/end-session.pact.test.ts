/**
 * End Session (`DELETE /client/users/{correlation_id}/sessions/current`), the
 * sign-out, as the SDK's `endSession` calls it: from the partner's server
 * (secret key) and from its page (publishable key, from its origin), and
 * every status the spec documents (the 401s and the 429 every operation
 * shares: shared-answers.pact.test.ts).
 */
import { MatchersV3 } from '@pact-foundation/pact';
import { sessionAuth } from '@loyalty/sdk';
import { placeholderSessionToken, states } from '../shared/contract';
import {
  alice,
  aliceExists,
  createPact,
  errorBody,
  expectError,
  forbidden,
  headersTooLarge,
  interaction,
  internalError,
  jsonContentType,
  memberHeaders,
  oversizedHeader,
  pageHeaders,
  pageSdk,
  requestIdHeader,
  schemaMismatch,
  sdk,
  serviceUnavailable,
  settled,
  state,
  string,
} from './support';

const { eachLike } = MatchersV3;

const pact = createPact();
const path = `/client/users/${alice}/sessions/current`;

describe('endSession', () => {
  it("204: ends the member's session, from the partner's server", () => {
    const requestId = 'contract-end-session-204';
    return interaction(pact, 'a request to end a valid member session', aliceExists)
      .withRequest('DELETE', path, (req) => req.headers(memberHeaders(requestId)))
      .willRespondWith(204, (res) => res.headers(requestIdHeader(requestId)))
      .executeTest(settled(async (mock) => {
        const result = await sdk(mock.url).endSession({ correlationId: alice, sessionToken: placeholderSessionToken, requestId });
        expect(result.response.status).toBe(204);
        expect(result.error).toBeUndefined();
        expect(result.data).toBeUndefined();
        expect(result.requestId).toBe(requestId);
      }));
  });

  it("204: ends it from the partner's page, with its publishable key from its origin", () => {
    const requestId = 'contract-end-session-204-page';
    return interaction(pact, "a request from the partner's page to end a valid member session", aliceExists)
      .withRequest('DELETE', path, (req) => req.headers(pageHeaders(requestId)))
      .willRespondWith(204, (res) => res.headers(requestIdHeader(requestId)))
      .executeTest(settled(async (mock) => {
        // The token the partner's server started with its secret key and handed to the page.
        const result = await pageSdk(mock.url).endSession({ correlationId: alice, sessionToken: placeholderSessionToken, requestId });
        expect(result.response.status).toBe(204);
        expect(result.error).toBeUndefined();
      }));
  });

  it('400: refuses a query parameter (the operation defines none)', () => {
    const requestId = 'contract-end-session-400';
    return interaction(pact, 'a request to end a member session with a query parameter', aliceExists)
      .withRequest('DELETE', path, (req) => req.headers(memberHeaders(requestId)).query({ all: '1' }))
      .willRespondWith(400, (res) =>
        res.headers(jsonContentType).jsonBody({
          ...errorBody(400, 'INVALID_REQUEST', schemaMismatch),
          details: eachLike({ path: string('/query/all'), message: string("Unknown query parameter 'all'") }),
        }),
      )
      .executeTest(settled(async (mock) => {
        // The raw client: the SDK's endSession sends no query; a partner's code "ending all sessions" might.
        const result = await sdk(mock.url).raw.DELETE('/client/users/{correlation_id}/sessions/current', {
          params: { path: { correlation_id: alice } },
          querySerializer: () => 'all=1',
          headers: { 'X-Request-Id': requestId },
          middleware: [sessionAuth(placeholderSessionToken)],
        });
        expectError(result, 400, 'INVALID_REQUEST');
      }));
  });

  it('403: refuses the publishable key from an origin it does not name', () => {
    const requestId = 'contract-end-session-403-origin';
    const elsewhere = 'https://elsewhere.example';
    return interaction(pact, 'a request to end a member session with the publishable key from another origin', aliceExists)
      .withRequest('DELETE', path, (req) => req.headers(pageHeaders(requestId, elsewhere)))
      .willRespondWith(403, forbidden('A publishable key works only from a page on one of its origins'))
      .executeTest(settled(async (mock) => {
        const result = await pageSdk(mock.url, elsewhere).endSession({ correlationId: alice, sessionToken: placeholderSessionToken, requestId });
        expectError(result, 403, 'FORBIDDEN');
        expect(result.error?.errorMessage).toBe('A publishable key works only from a page on one of its origins');
      }));
  });

  it('431: refuses headers over 16 KiB', () => {
    const requestId = 'contract-end-session-431';
    return interaction(pact, 'a request to end a member session with headers over 16 KiB', aliceExists)
      .withRequest('DELETE', path, (req) => req.headers({ ...memberHeaders(requestId), ...oversizedHeader }))
      .willRespondWith(431, headersTooLarge)
      .executeTest(settled(async (mock) => {
        // The raw client: the SDK's own calls send no header of the app's.
        const result = await sdk(mock.url).raw.DELETE('/client/users/{correlation_id}/sessions/current', {
          params: { path: { correlation_id: alice } },
          headers: { 'X-Request-Id': requestId, ...oversizedHeader },
          middleware: [sessionAuth(placeholderSessionToken)],
        });
        expectError(result, 431, 'REQUEST_HEADERS_TOO_LARGE');
      }));
  });

  it('500: answers INTERNAL_ERROR when the store fails unexpectedly', () => {
    const requestId = 'contract-end-session-500';
    return interaction(pact, 'a request to end a member session while the store fails', aliceExists, state(states.storeFails, {}))
      .withRequest('DELETE', path, (req) => req.headers(memberHeaders(requestId)))
      .willRespondWith(500, internalError)
      .executeTest(settled(async (mock) => {
        const result = await sdk(mock.url).endSession({ correlationId: alice, sessionToken: placeholderSessionToken, requestId });
        expectError(result, 500, 'INTERNAL_ERROR');
      }));
  });

  it('503: answers SERVICE_UNAVAILABLE when the store is unavailable', () => {
    const requestId = 'contract-end-session-503';
    return interaction(pact, 'a request to end a member session while the store is unavailable', aliceExists, state(states.storeUnavailable, {}))
      .withRequest('DELETE', path, (req) => req.headers(memberHeaders(requestId)))
      .willRespondWith(503, serviceUnavailable)
      .executeTest(settled(async (mock) => {
        const result = await sdk(mock.url).endSession({ correlationId: alice, sessionToken: placeholderSessionToken, requestId });
        expectError(result, 503, 'SERVICE_UNAVAILABLE');
      }));
  });
});
