import type { AppConfig } from '../config';
import type { Liveness } from '../http/health';
import type { SendInit, TestResponse } from './api-client';
import { startTestApp, type TestApp } from './app-harness';
import { apiKeyRecord, catalogueItemRecord, clientRecord, sessionRecord } from '../store/test-support/records';
import type { ApiKeyRecord, ClientRecord, IdentifierType, MemberSession, SessionRecord } from '../domain/model';
import { documentedAnswerToRefusedBody } from '../features/reservations/body-rules';
import type {
  AuthenticatedClient,
  ReservationContext,
  ReservationUpdateRequest,
  ReservationUpdateResponse,
  Services,
  SessionLookup,
  VoucherDefinitionSummary,
} from '../domain/services';

/**
 * Canned data for app tests: two clients with a secret key each, the
 * partner's publishable key for its page, one member session. Every value
 * matches the spec.
 */
export const apiKeys = { partner: 'sk_test_partner', other: 'sk_test_other', partnerPage: 'publishable_test_partner_page', unknown: 'sk_test_nobody' } as const;
/** The origin of the partner's page: its publishable key's only one. */
export const partnerPageOrigin = 'https://app.partner.example';
export const aliceToken = 'st_alice_0123456789abcdefghijkl';

export const partnerClient: ClientRecord = clientRecord('client-partner', { extendedDurationSeconds: 1800 });

export const otherClient: ClientRecord = clientRecord('client-other', { extendedDurationSeconds: 1800 });

/** The key record of each client's one key (the fakes never look at its digest). */
function keyOf(client: ClientRecord): ApiKeyRecord {
  return apiKeyRecord(`key_${client.clientId}`, client.clientId, { digest: 'not-used-by-the-fakes' });
}

const partnerPageKey: ApiKeyRecord = apiKeyRecord('key_client-partner-page', partnerClient.clientId, {
  kind: 'publishable',
  origins: [partnerPageOrigin],
  digest: 'not-used-by-the-fakes',
});

const clientsByKey = new Map<string | undefined, AuthenticatedClient>([
  [apiKeys.partner, { client: partnerClient, key: keyOf(partnerClient) }],
  [apiKeys.other, { client: otherClient, key: keyOf(otherClient) }],
  [apiKeys.partnerPage, { client: partnerClient, key: partnerPageKey }],
]);

export const aliceSession: SessionRecord = sessionRecord('not-used-by-the-fakes', {
  sessionId: '3f6c1c9e-8f0a-4b7e-9a52-5d1e2c7b8a90',
  clientId: partnerClient.clientId,
  keyId: keyOf(partnerClient).keyId,
  identifierType: 'CARD_NUMBER',
  expiresAt: new Date('2030-01-01T00:00:00.000Z'),
});

export function voucherSummary(businessUnit: string): VoucherDefinitionSummary {
  return {
    voucherDefinitionId: 'vd-0001',
    businessUnit,
    definitionName: '$5 off your order',
    rewardType: 'DOLLAR_OFF',
    rewardValue: 5,
    rewardMetadata: { amount: 5, unit: 'FLAT' },
    scope: 'CART',
    expiryRule: { type: 'ROLLING', rollingDays: 30 },
    creative: { 'en-CA': { shortDescription1: '$5 off', smallImageURI: 'https://cdn.example.com/5off.png' } },
    pointValue: 5000,
    redeemableValue: null,
  };
}

export const reservationResult: ReservationUpdateResponse = {
  reservationToken: 'rt-alice-1',
  reservationDuration: 900,
  availablePointBalance: 42500,
  pointBalance: 50000,
  sessionId: aliceSession.sessionId,
};

/** A catalogue that has an item for every product code asked. */
const everyCodeKnown = { findCatalogueItems: async (codes: string[]) => codes.map((code) => catalogueItemRecord(code)) };

/** Services whose every method is a typed jest mock. */
export type FakeServices = { [S in keyof Services]: MockedMethods<Services[S]> };
type MockedMethods<T> = { [K in keyof T]: T[K] extends (...args: infer A) => infer R ? jest.Mock<R, A> : T[K] };

/**
 * Services that answer from the canned data: two known keys, and
 * `aliceToken` the only session (the partner's, for m-alice). Each method is a
 * jest mock, so a test can inspect calls or make one throw.
 */
export function fakeServices(): FakeServices {
  return {
    auth: {
      publishableOrigins: jest.fn(async (): Promise<ReadonlySet<string>> => new Set(partnerPageKey.origins)),
      // No combined lookup: the app then authenticates the key and the session one by one, as it would for a missing session.
      lookUpSession: jest.fn(async (_bearerToken: string | undefined): Promise<SessionLookup | null> => null),
      authenticateClient: jest.fn(async (apiKey: string | undefined) => clientsByKey.get(apiKey) ?? null),
      authenticateSession: jest.fn(async (client: ClientRecord, token: string | undefined, correlationId: string) =>
        client.clientId === aliceSession.clientId && token === aliceToken && correlationId === aliceSession.correlationId
          ? aliceSession
          : null,
      ),
    },
    sessions: {
      startSession: jest.fn(async (_client: ClientRecord, _keyId: string, _correlationId: string, identifierType: IdentifierType) => ({
        sessionToken: aliceToken,
        sessionId: aliceSession.sessionId,
        identifierType,
        expiresAt: aliceSession.expiresAt,
      })),
      endSession: jest.fn(async (_session: MemberSession): Promise<void> => undefined),
    },
    voucherDefinitions: {
      listVoucherDefinitions: jest.fn(async (_client: ClientRecord, businessUnit: string | undefined) => ({
        businessUnit: businessUnit ?? 'LCL',
        summaries: [voucherSummary(businessUnit ?? 'LCL')],
      })),
    },
    reservations: {
      updateReservation: jest.fn(async (_context: ReservationContext, _request: ReservationUpdateRequest) => reservationResult),
      // Operation B's own body rules, on a catalogue that knows every product code: only malformed entries are invalid.
      documentedAnswerToRefusedBody: jest.fn((body: unknown) => documentedAnswerToRefusedBody(everyCodeKnown, body)),
    },
  };
}

/** As m-alice with a valid session. */
export const asAlice: SendInit = { bearer: aliceToken };

/** As m-alice with a valid session, from the partner's page with its publishable key. */
export const asAliceFromPage: SendInit = { bearer: aliceToken, apiKey: apiKeys.partnerPage, headers: { origin: partnerPageOrigin } };

/** The app on fake services: their mocks, `/readyz`'s ping and `/healthz`'s liveness to inspect or make fail. */
export interface FakeApp extends TestApp {
  services: FakeServices;
  ping: jest.Mock<Promise<void>, []>;
  liveness: jest.Mock<ReturnType<Liveness>, []>;
  /** Sends the partner's key unless `apiKey` says otherwise (null: none). */
  send(method: string, path: string, init?: SendInit): Promise<TestResponse>;
}

export async function startFakeApp(config: Partial<AppConfig> = {}): Promise<FakeApp> {
  const services = fakeServices();
  const ping = jest.fn(async (): Promise<void> => undefined);
  const liveness = jest.fn((): ReturnType<Liveness> => ({ live: true }));
  const app = await startTestApp({ deps: { services, store: { ping, close: async () => undefined }, liveness }, config });
  return {
    ...app,
    services,
    ping,
    liveness,
    send: (method, path, init = {}) => app.send(method, path, { ...init, apiKey: init.apiKey === undefined ? apiKeys.partner : init.apiKey }),
  };
}
