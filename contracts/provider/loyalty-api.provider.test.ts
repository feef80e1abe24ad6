/**
 * Verifies the committed pact (contracts/pacts/) against the real app,
 * started by the test harness (main's own start-up on a free port, responses
 * validated against the spec),
 * on the embedded store always and on MongoDB too when one is reachable
 * (MONGODB_URI, or a mongod binary; see mongo-test-server.ts).
 *
 * With PACT_BROKER_BASE_URL set it also verifies the pacts in the broker
 * (main branch, deployed or released, matching branch) and, with
 * PACT_PUBLISH_VERIFICATION_RESULTS=true, publishes the results that
 * `can-i-deploy` reads. See CONTRIBUTING.md, "Pact Broker and can-i-deploy".
 */
import path from 'node:path';
import { Verifier, type VerifierOptions } from '@pact-foundation/pact';
import type { RequestHandler } from 'express';
import { systemClock } from '../../server/src/domain/clock';
import { createServices } from '../../server/src/features';
import { MemoryStore } from '../../server/src/store/memory/memory-store';
import { MongoStore } from '../../server/src/store/mongo/mongo-store';
import { faultInjecting, type FaultInjectingStore } from '../../server/src/store/test-support/fault-injecting-store';
import { dropTestDatabase, testMongoSource, uniqueDbName } from '../../server/src/store/test-support/mongo-test-server';
import type { Store } from '../../server/src/store/port';
import { startTestApp } from '../../server/src/test-support/app-harness';
import { participantBranch, participantVersion } from '../../scripts/pact-participant.mjs';
import { committedPactDir, consumerName, pactFileName, providerName } from '../shared/contract';
import { forwardUnparsedBody, listingTagFilter, sessionFilter } from './request-filter';
import { resetState, stateHandlers, type StateContext } from './states';

/**
 * Low enough that a provider state can use up a dedicated client's quota in
 * a few hundred requests, high enough for every request the verification
 * sends with the partner's key (one per interaction).
 */
const rateLimitPerMinute = 200;
const verificationTimeoutMs = 120_000;

interface RunningProvider {
  context: StateContext;
  options: Pick<VerifierOptions, 'providerBaseUrl' | 'stateHandlers' | 'requestFilter' | 'beforeEach' | 'afterEach'>;
  close(): Promise<void>;
}

/** The app on `store`, wrapped so that states can make it fail, started by the test harness. */
async function startProvider(store: Store): Promise<RunningProvider> {
  let faults: FaultInjectingStore | undefined;
  const app = await startTestApp({
    store,
    wrapStore: (plain) => (faults = faultInjecting(plain)),
    config: { rateLimitPerMinute },
  });
  const context: StateContext = {
    store,
    faults: faults!,
    now: app.now,
    baseUrl: app.baseUrl,
    rateLimitPerMinute,
    sessionIdentifierType: 'CARD_NUMBER',
    failures: [],
  };
  // Sessions for the request filter come from the store without faults:
  // "the store is unavailable" must fail the request, not its set-up.
  const filterServices = createServices({ store, clock: app.now });
  const filter = sessionFilter({ services: filterServices, identifierType: () => context.sessionIdentifierType, failures: context.failures });
  const tagFilter = listingTagFilter({ services: filterServices, failures: context.failures });

  return {
    context,
    options: {
      providerBaseUrl: app.baseUrl,
      // Pact types the handlers too narrowly to take setup/teardown objects.
      stateHandlers: stateHandlers(context) as VerifierOptions['stateHandlers'],
      // The proxy mounts this with app.use, which takes a list: the error
      // handler first (it sees the proxy's own body-parser errors), then the filters.
      requestFilter: [forwardUnparsedBody, filter, tagFilter] as unknown as RequestHandler,
      beforeEach: () => resetState(context),
      afterEach: async () => context.faults.inject(null),
    },
    close: () => app.close(),
  };
}

/**
 * Runs a verification; a failed state set-up or request filter (which Pact
 * only logs) fails it too, and is named first.
 */
async function verify(provider: RunningProvider, options: VerifierOptions): Promise<void> {
  let verification: { failed: false } | { failed: true; error: unknown } = { failed: false };
  try {
    await new Verifier({ ...provider.options, provider: providerName, logLevel: 'warn', ...options }).verifyProvider();
  } catch (error) {
    verification = { failed: true, error };
  }
  const failures = provider.context.failures.splice(0);
  if (failures.length > 0) {
    throw new Error(`Provider set-up failed, so interactions may have failed for that reason:\n  ${failures.join('\n  ')}`);
  }
  if (verification.failed) throw verification.error;
}

function verifyCommittedPact(provider: RunningProvider): Promise<void> {
  return verify(provider, { pactUrls: [path.join(committedPactDir, pactFileName)] });
}

describe(`${providerName} honours the pact of ${consumerName}`, () => {
  describe('on the embedded store', () => {
    let provider: RunningProvider;
    beforeAll(async () => {
      provider = await startProvider(new MemoryStore({ clock: systemClock }));
    });
    afterAll(() => provider?.close());

    it('verifies every interaction of the committed pact', () => verifyCommittedPact(provider), verificationTimeoutMs);

    const broker = process.env.PACT_BROKER_BASE_URL?.trim();
    (broker ? it : it.skip)(
      broker ? `verifies the pacts in the broker ${broker}` : 'verifies the pacts in a Pact Broker: skipped, PACT_BROKER_BASE_URL is not set',
      async () => {
        await verify(provider, {
          pactBrokerUrl: broker,
          ...brokerCredentials(),
          consumerVersionSelectors: [{ mainBranch: true }, { deployedOrReleased: true }, { matchingBranch: true }],
          enablePending: true,
          publishVerificationResult: process.env.PACT_PUBLISH_VERIFICATION_RESULTS === 'true',
          providerVersion: participantVersion(),
          providerVersionBranch: participantBranch(),
        });
      },
      verificationTimeoutMs,
    );
  });

  const mongoSource = testMongoSource();
  if (mongoSource.kind === 'none') {
    it.skip(`on MongoDB: skipped, ${mongoSource.reason}`, () => undefined);
  } else {
    describe('on MongoDB', () => {
      const dbName = uniqueDbName('pact_provider');
      let provider: RunningProvider | undefined;

      beforeAll(async () => {
        provider = await startProvider(await MongoStore.connect({ uri: mongoSource.uri, dbName, serverSelectionTimeoutMS: 10_000 }));
      }, 120_000);

      afterAll(async () => {
        await provider?.close();
        await dropTestDatabase(mongoSource.uri, dbName);
      }, 60_000);

      it('verifies every interaction of the committed pact', () => verifyCommittedPact(provider as RunningProvider), verificationTimeoutMs);
    });
  }
});

function brokerCredentials(): Pick<VerifierOptions, 'pactBrokerToken' | 'pactBrokerUsername' | 'pactBrokerPassword'> {
  const token = process.env.PACT_BROKER_TOKEN?.trim();
  if (token) return { pactBrokerToken: token };
  const username = process.env.PACT_BROKER_USERNAME?.trim();
  const password = process.env.PACT_BROKER_PASSWORD;
  return username && password ? { pactBrokerUsername: username, pactBrokerPassword: password } : {};
}

