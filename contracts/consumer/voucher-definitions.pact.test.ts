/**
 * Operation A (`GET /client/users/{correlation_id}/voucher-definitions`) as
 * the SDK's `listVoucherDefinitions` calls it: every documented status (the
 * 401 and 429 every operation shares: shared-answers.pact.test.ts), the
 * default and an explicit business unit, each of the operation's error codes.
 */
import { MatchersV3 } from '@pact-foundation/pact';
import { sessionAuth } from '@loyalty/sdk';
import { apiKeys, pageOrigin, placeholderListingTag, placeholderSessionToken, states } from '../shared/contract';
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
  listingTagHeaders,
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
  successHeaders,
  type StateSpec,
} from './support';

const { eachLike, like, equal, string, number } = MatchersV3;

const pact = createPact();
const path = `/client/users/${alice}/voucher-definitions`;
const partnerUnits = (defaultBusinessUnit: string | null) =>
  state(states.clientBusinessUnits, { enabledBusinessUnits: ['LCL', 'SDM', 'GAS'], defaultBusinessUnit });
/** Alice, her client defaulting to LCL, and one definition published there: the listing's 200s and 304. */
const aliceWithOneLclDefinition: StateSpec[] = [
  aliceExists,
  partnerUnits('LCL'),
  state(states.voucherDefinitionPublished, { businessUnit: 'LCL', voucherDefinitionId: 'vd-0001' }),
];

/**
 * A summary as members see it. The business unit is the resolved one, so it
 * is matched exactly; everything else by type.
 */
function summary(voucherDefinitionId: string, businessUnit: string) {
  return {
    voucherDefinitionId: string(voucherDefinitionId),
    businessUnit: equal(businessUnit),
    definitionName: string('$5 off your order'),
    rewardType: string('DOLLAR_OFF'),
    rewardValue: number(5),
    rewardMetadata: like({ amount: 5, unit: 'FLAT' }),
    scope: string('CART'),
    expiryRule: like({ type: 'ROLLING', rollingDays: 30 }),
    creative: like({
      'en-CA': { shortDescription1: '$5 off', smallImageURI: 'https://cdn.example.com/v/5off-en.png' },
    }),
    pointValue: number(5000),
    redeemableValue: number(5000),
  };
}

describe('listVoucherDefinitions', () => {
  it('200: lists the definitions of the client default business unit', () => {
    const requestId = 'contract-list-vouchers-200-default';
    return interaction(
      pact,
      'a request to list voucher definitions of the default business unit',
      ...aliceWithOneLclDefinition,
    )
      .withRequest('GET', path, (req) => req.headers(memberHeaders(requestId)))
      .willRespondWith(200, (res) => res.headers({ ...successHeaders(requestId), ...listingTagHeaders }).jsonBody(eachLike(summary('vd-0001', 'LCL'))))
      .executeTest(settled(async (mock) => {
        const result = await sdk(mock.url).listVoucherDefinitions({ correlationId: alice, sessionToken: placeholderSessionToken, requestId });
        expect(result.response.status).toBe(200);
        expect(result.data).toHaveLength(1);
        expect(result.data?.[0]).toMatchObject({ voucherDefinitionId: 'vd-0001', businessUnit: 'LCL', pointValue: 5000 });
        expect(result.data?.[0]?.creative['en-CA']?.shortDescription1).toBe('$5 off');
      }));
  });

  it('304: the list the client holds is still current (If-None-Match), no body', () => {
    const requestId = 'contract-list-vouchers-304';
    return interaction(
      pact,
      'a request to list voucher definitions with the tag of the current list',
      ...aliceWithOneLclDefinition,
    )
      .withRequest('GET', path, (req) => req.headers({ ...memberHeaders(requestId), 'If-None-Match': placeholderListingTag }))
      .willRespondWith(304, (res) => res.headers({ ...requestIdHeader(requestId), ...listingTagHeaders }))
      .executeTest(settled(async (mock) => {
        const result = await sdk(mock.url).raw.GET('/client/users/{correlation_id}/voucher-definitions', {
          params: { path: { correlation_id: alice }, header: { 'If-None-Match': placeholderListingTag } },
          headers: { 'X-Request-Id': requestId },
          middleware: [sessionAuth(placeholderSessionToken)],
        });
        expect(result.response.status).toBe(304);
        expect(result.data).toBeUndefined();
        expect(result.error).toBeUndefined();
        expect(result.response.headers.get('ETag')).toMatch(/^"[A-Za-z0-9_-]{22}"$/);
      }));
  });

  it("200: lists them for the partner's page, with its publishable key from its origin", () => {
    const requestId = 'contract-list-vouchers-200-page';
    return interaction(
      pact,
      "a request from the partner's page to list voucher definitions of the default business unit",
      ...aliceWithOneLclDefinition,
    )
      .withRequest('GET', path, (req) => req.headers(pageHeaders(requestId)))
      .willRespondWith(200, (res) => res.headers({ ...successHeaders(requestId), ...listingTagHeaders }).jsonBody(eachLike(summary('vd-0001', 'LCL'))))
      .executeTest(settled(async (mock) => {
        // The session token the partner's server started with its secret key, handed to the page.
        const result = await pageSdk(mock.url).listVoucherDefinitions({ correlationId: alice, sessionToken: placeholderSessionToken, requestId });
        expect(result.response.status).toBe(200);
        expect(result.data?.[0]).toMatchObject({ voucherDefinitionId: 'vd-0001', businessUnit: 'LCL' });
      }));
  });

  it('200: lists the definitions of an explicit business unit', () => {
    const requestId = 'contract-list-vouchers-200-explicit';
    return interaction(
      pact,
      'a request to list voucher definitions of an explicit business unit',
      aliceExists,
      partnerUnits('LCL'),
      state(states.voucherDefinitionPublished, { businessUnit: 'SDM', voucherDefinitionId: 'vd-0100' }),
    )
      .withRequest('GET', path, (req) => req.headers(memberHeaders(requestId)).query({ businessUnit: 'SDM' }))
      .willRespondWith(200, (res) => res.headers(successHeaders(requestId)).jsonBody(eachLike(summary('vd-0100', 'SDM'))))
      .executeTest(settled(async (mock) => {
        const result = await sdk(mock.url).listVoucherDefinitions({
          correlationId: alice,
          sessionToken: placeholderSessionToken,
          businessUnit: 'SDM',
          requestId,
        });
        expect(result.response.status).toBe(200);
        expect(result.data?.map((d) => d.businessUnit)).toEqual(['SDM']);
      }));
  });

  it('200: answers an empty array when no definition matches', () => {
    const requestId = 'contract-list-vouchers-200-empty';
    return interaction(
      pact,
      'a request to list voucher definitions of a business unit without any',
      aliceExists,
      partnerUnits('LCL'),
    )
      .withRequest('GET', path, (req) => req.headers(memberHeaders(requestId)).query({ businessUnit: 'GAS' }))
      .willRespondWith(200, (res) => res.headers(successHeaders(requestId)).jsonBody([]))
      .executeTest(settled(async (mock) => {
        const result = await sdk(mock.url).listVoucherDefinitions({
          correlationId: alice,
          sessionToken: placeholderSessionToken,
          businessUnit: 'GAS',
          requestId,
        });
        expect(result.response.status).toBe(200);
        expect(result.data).toEqual([]);
      }));
  });

  it('400 INVALID_BUSINESS_UNIT: refuses a business unit the client has not enabled', () => {
    const requestId = 'contract-list-vouchers-400-invalid-bu';
    return interaction(pact, 'a request to list voucher definitions of a business unit the client has not enabled', aliceExists, partnerUnits('LCL'))
      .withRequest('GET', path, (req) => req.headers(memberHeaders(requestId)).query({ businessUnit: 'XYZ' }))
      .willRespondWith(400, (res) =>
        res
          .headers(jsonContentType)
          .jsonBody(errorBody(400, 'INVALID_BUSINESS_UNIT', { example: 'Business unit is not enabled for the client' })),
      )
      .executeTest(settled(async (mock) => {
        const result = await sdk(mock.url).listVoucherDefinitions({
          correlationId: alice,
          sessionToken: placeholderSessionToken,
          businessUnit: 'XYZ',
          requestId,
        });
        expectError(result, 400, 'INVALID_BUSINESS_UNIT');
      }));
  });

  it('400 BUSINESS_UNIT_REQUIRED: needs a business unit when the client has no default', () => {
    const requestId = 'contract-list-vouchers-400-bu-required';
    return interaction(pact, 'a request to list voucher definitions without a business unit when the client has no default', aliceExists, partnerUnits(null))
      .withRequest('GET', path, (req) => req.headers(memberHeaders(requestId)))
      .willRespondWith(400, (res) =>
        res.headers(jsonContentType).jsonBody(errorBody(400, 'BUSINESS_UNIT_REQUIRED', { example: 'Business unit is required' })),
      )
      .executeTest(settled(async (mock) => {
        const result = await sdk(mock.url).listVoucherDefinitions({ correlationId: alice, sessionToken: placeholderSessionToken, requestId });
        expectError(result, 400, 'BUSINESS_UNIT_REQUIRED');
      }));
  });

  it('400 FEATURE_NOT_ENABLED: refuses a client with vouchers switched off', () => {
    const requestId = 'contract-list-vouchers-400-feature-off';
    return interaction(pact, 'a request to list voucher definitions for a client with vouchers switched off', aliceExists, state(states.clientVouchersOff, {}))
      .withRequest('GET', path, (req) => req.headers(memberHeaders(requestId)))
      .willRespondWith(400, (res) =>
        res
          .headers(jsonContentType)
          .jsonBody(errorBody(400, 'FEATURE_NOT_ENABLED', { example: 'Voucher feature is not enabled for the client' })),
      )
      .executeTest(settled(async (mock) => {
        const result = await sdk(mock.url).listVoucherDefinitions({ correlationId: alice, sessionToken: placeholderSessionToken, requestId });
        expectError(result, 400, 'FEATURE_NOT_ENABLED');
      }));
  });

  it('400 INVALID_REQUEST: refuses a business unit the schema does not allow', () => {
    const requestId = 'contract-list-vouchers-400-invalid-request';
    const tooLong = 'B'.repeat(65);
    return interaction(pact, 'a request to list voucher definitions with a business unit longer than the spec allows', aliceExists)
      .withRequest('GET', path, (req) => req.headers(memberHeaders(requestId)).query({ businessUnit: tooLong }))
      .willRespondWith(400, (res) =>
        res.headers(jsonContentType).jsonBody({
          ...errorBody(400, 'INVALID_REQUEST', schemaMismatch),
          details: eachLike({ path: string('/query/businessUnit'), message: string('must NOT have more than 64 characters') }),
        }),
      )
      .executeTest(settled(async (mock) => {
        const result = await sdk(mock.url).listVoucherDefinitions({
          correlationId: alice,
          sessionToken: placeholderSessionToken,
          businessUnit: tooLong,
          requestId,
        });
        expectError(result, 400, 'INVALID_REQUEST');
      }));
  });

  it('403: refuses the publishable key from an origin it does not name', () => {
    const requestId = 'contract-list-vouchers-403-origin';
    const elsewhere = 'https://elsewhere.example';
    return interaction(pact, 'a request to list voucher definitions with the publishable key from another origin', aliceExists)
      .withRequest('GET', path, (req) => req.headers(pageHeaders(requestId, elsewhere)))
      .willRespondWith(403, forbidden('A publishable key works only from a page on one of its origins'))
      .executeTest(settled(async (mock) => {
        const result = await pageSdk(mock.url, elsewhere).listVoucherDefinitions({ correlationId: alice, sessionToken: placeholderSessionToken, requestId });
        expectError(result, 403, 'FORBIDDEN');
        expect(result.error?.errorMessage).toBe('A publishable key works only from a page on one of its origins');
      }));
  });

  it('403: refuses the secret key sent from a page', () => {
    const requestId = 'contract-list-vouchers-403-secret-from-page';
    return interaction(pact, 'a request to list voucher definitions with the secret key, sent from a page', aliceExists)
      .withRequest('GET', path, (req) => req.headers({ ...memberHeaders(requestId), Origin: pageOrigin }))
      .willRespondWith(403, forbidden('Secret keys must not be sent from a web page: use a publishable key there'))
      .executeTest(settled(async (mock) => {
        const result = await sdk(mock.url, apiKeys.partner, pageOrigin).listVoucherDefinitions({ correlationId: alice, sessionToken: placeholderSessionToken, requestId });
        expectError(result, 403, 'FORBIDDEN');
      }));
  });

  it('431: refuses headers over 16 KiB', () => {
    const requestId = 'contract-list-vouchers-431';
    return interaction(pact, 'a request to list voucher definitions with headers over 16 KiB', aliceExists)
      .withRequest('GET', path, (req) => req.headers({ ...memberHeaders(requestId), ...oversizedHeader }))
      .willRespondWith(431, headersTooLarge)
      .executeTest(settled(async (mock) => {
        // The raw client: the SDK's own calls send no header of the app's.
        const result = await sdk(mock.url).raw.GET('/client/users/{correlation_id}/voucher-definitions', {
          params: { path: { correlation_id: alice } },
          headers: { 'X-Request-Id': requestId, ...oversizedHeader },
          middleware: [sessionAuth(placeholderSessionToken)],
        });
        expectError(result, 431, 'REQUEST_HEADERS_TOO_LARGE');
      }));
  });

  it('500: answers INTERNAL_ERROR when the store fails unexpectedly', () => {
    const requestId = 'contract-list-vouchers-500';
    return interaction(pact, 'a request to list voucher definitions while the store fails', aliceExists, state(states.storeFails, {}))
      .withRequest('GET', path, (req) => req.headers(memberHeaders(requestId)))
      .willRespondWith(500, internalError)
      .executeTest(settled(async (mock) => {
        const result = await sdk(mock.url).listVoucherDefinitions({ correlationId: alice, sessionToken: placeholderSessionToken, requestId });
        expectError(result, 500, 'INTERNAL_ERROR');
      }));
  });

  it('503: answers SERVICE_UNAVAILABLE when the store is unavailable', () => {
    const requestId = 'contract-list-vouchers-503';
    return interaction(pact, 'a request to list voucher definitions while the store is unavailable', aliceExists, state(states.storeUnavailable, {}))
      .withRequest('GET', path, (req) => req.headers(memberHeaders(requestId)))
      .willRespondWith(503, serviceUnavailable)
      .executeTest(settled(async (mock) => {
        const result = await sdk(mock.url).listVoucherDefinitions({ correlationId: alice, sessionToken: placeholderSessionToken, requestId });
        expectError(result, 503, 'SERVICE_UNAVAILABLE');
      }));
  });
});
