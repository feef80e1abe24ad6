/**
 * The provider state handlers: one per sentence of `states`
 * (contracts/shared/contract.ts), reading its parameters. Data goes into the
 * store only through `parseFixture` + `loadFixture` and the Store port.
 *
 * Pact swallows a handler's error (it logs it and answers 200), so every
 * failure is also recorded in `failures`, which the provider test asserts is
 * empty after verification.
 */
import type { StateHandlers } from '@pact-foundation/pact/src/dsl/verifier/proxy/types';
import { defaultWalletLimits } from '../../server/src/domain/limits';
import type { IdentifierType } from '../../server/src/domain/model';
import { walletIdOf } from '../../server/src/domain/model';
import { loadFixture } from '../../server/src/features/load/load-fixture';
import { parseFixture } from '../../server/src/features/load/parse-fixture';
import type { Store } from '../../server/src/store/port';
import type { FaultInjectingStore } from '../../server/src/store/test-support/fault-injecting-store';
import { fixtureRedemption } from '../../server/src/test-support/fixture-entries';
import { updateWallet } from '../../server/src/store/wallet-update';
import { clientIds, states, type StateName, type StateParams } from '../shared/contract';
import {
  apiKeyOf,
  baseFixture,
  catalogueItem,
  member,
  partnerClient,
  reservation,
  voucherDefinition,
} from './fixtures/records';

export interface StateContext {
  /** The store itself, without injected faults: fixtures always load. */
  store: Store;
  /** The same store as the app sees it. */
  faults: FaultInjectingStore;
  now: () => Date;
  /** Base URL of the app under test (for states reached only over HTTP, such as a used-up rate limit). */
  baseUrl: string;
  /** Requests per minute and client the app allows. */
  rateLimitPerMinute: number;
  /** Identifier type of the sessions the request filter starts. */
  sessionIdentifierType: IdentifierType;
  failures: string[];
}

type Handler<S extends StateName> = (params: StateParams[S], context: StateContext) => Promise<void>;
type HandlerWithTeardown<S extends StateName> = { setup: Handler<S>; teardown: Handler<S> };

async function load(context: StateContext, fixture: unknown, source: string): Promise<void> {
  await loadFixture(context.store, parseFixture(fixture, source), context.now());
}

/** Makes sure a member has no reservation under a token (a previous run on the same store may have made one). */
async function removeReservation(context: StateContext, correlationId: string, reservationToken: string): Promise<void> {
  const stored = await context.store.findMember(correlationId);
  if (!stored) return;
  await updateWallet(context.store, stored.walletId, (wallet) => {
    const before = wallet.reservations.length;
    wallet.reservations = wallet.reservations.filter(
      (r) => !(r.reservationToken === reservationToken && r.correlationId === correlationId && r.clientId === clientIds.partner),
    );
    return wallet.reservations.length !== before;
  });
}

/** Sends requests with the client's key until the app answers 429. */
async function useUpRateLimit(context: StateContext, clientId: string): Promise<void> {
  const apiKey = apiKeyOf(clientId);
  // Sessions for a member nobody is: each request has valid credentials, so it counts, then is refused with 404, changing nothing.
  const url = `${context.baseUrl}/client/users/m-nobody/sessions`;
  for (let sent = 0; sent <= context.rateLimitPerMinute + 5; sent++) {
    const response = await fetch(url, { method: 'POST', headers: { 'X-Api-Key': apiKey, 'X-Identifier-Type': 'CARD_NUMBER' } });
    await response.arrayBuffer();
    if (response.status === 429) return;
  }
  throw new Error(`client ${clientId} still not limited after ${context.rateLimitPerMinute + 5} requests`);
}

const heal: Handler<StateName> = async (_params, context) => {
  context.faults.inject(null);
};

const handlers: { [S in StateName]: Handler<S> | HandlerWithTeardown<S> } = {
  [states.memberExists]: async ({ correlationId, pointBalance }, context) => {
    await load(context, { members: [member(correlationId, pointBalance)] }, states.memberExists);
  },

  [states.memberIsUnknown]: async ({ correlationId }, context) => {
    if (await context.store.findMember(correlationId)) throw new Error(`member ${correlationId} exists`);
  },

  [states.memberIsNotEligible]: async ({ correlationId, reservationToken }, context) => {
    await load(
      context,
      {
        members: [member(correlationId, 9000, { eligibleForRedemption: false, privileges: [] })],
        reservations: [reservation(context.now(), reservationToken, correlationId, [{ correlationId, points: 1000 }])],
      },
      states.memberIsNotEligible,
    );
  },

  [states.memberHoldsReservation]: async ({ correlationId, reservationToken, reservationAmount, identifierType }, context) => {
    await load(
      context,
      {
        members: [member(correlationId, 50000)],
        reservations: [reservation(context.now(), reservationToken, correlationId, [{ correlationId, points: reservationAmount }], identifierType)],
      },
      states.memberHoldsReservation,
    );
  },

  [states.householdMemberHoldsReservation]: async ({ correlationId, householdId, reservationToken, contributions }, context) => {
    const ids = [...new Set([correlationId, ...contributions.map((c) => c.correlationId)])];
    await load(
      context,
      {
        members: ids.map((id) => member(id, id === correlationId ? 30000 : 20000, { householdId })),
        reservations: [reservation(context.now(), reservationToken, correlationId, contributions)],
      },
      states.householdMemberHoldsReservation,
    );
    const stored = await context.store.findMember(correlationId);
    if (stored?.walletId !== walletIdOf(correlationId, householdId)) throw new Error(`member ${correlationId} is not in household ${householdId}`);
  },

  [states.noReservation]: async ({ correlationId, reservationToken }, context) => {
    await removeReservation(context, correlationId, reservationToken);
  },

  [states.walletFull]: async ({ correlationId }, context) => {
    // As many as the app under test allows: it runs with the server's default limit.
    const count = defaultWalletLimits.maxActiveReservationsPerWallet;
    const reservations = Array.from({ length: count }, (_, i) => reservation(context.now(), `rt-full-${i}`, correlationId, [{ correlationId, points: 1 }]));
    await load(context, { members: [member(correlationId, 10 * count)], reservations }, states.walletFull);
  },

  [states.redemptionExists]: async ({ redemptionId, redeemerId, productCode, pointsAmount }, context) => {
    await load(
      context,
      { redemptions: [fixtureRedemption(redemptionId, redeemerId)], catalogueItems: [catalogueItem(productCode, pointsAmount)] },
      states.redemptionExists,
    );
  },

  [states.sessionIdentifierType]: async ({ identifierType }, context) => {
    context.sessionIdentifierType = identifierType;
  },

  [states.clientBusinessUnits]: async ({ enabledBusinessUnits, defaultBusinessUnit }, context) => {
    await load(context, { clients: [partnerClient({ enabledBusinessUnits, defaultBusinessUnit })] }, states.clientBusinessUnits);
  },

  [states.clientVouchersOff]: async (_params, context) => {
    await load(context, { clients: [partnerClient({ vouchersEnabled: false })] }, states.clientVouchersOff);
  },

  [states.clientTiers]: async ({ redemptionTiers }, context) => {
    await load(context, { clients: [partnerClient({ redemptionTiers })] }, states.clientTiers);
  },

  [states.clientDailyCap]: async ({ dailyRedemptionCap }, context) => {
    await load(context, { clients: [partnerClient({ dailyRedemptionCap })] }, states.clientDailyCap);
  },

  [states.voucherDefinitionPublished]: async ({ businessUnit, voucherDefinitionId }, context) => {
    await load(context, { voucherDefinitions: [voucherDefinition(voucherDefinitionId, businessUnit)] }, states.voucherDefinitionPublished);
  },

  [states.rateLimitUsedUp]: async ({ clientId }, context) => {
    await useUpRateLimit(context, clientId);
  },

  [states.storeUnavailable]: {
    setup: async (_params, context) => context.faults.inject({ fault: 'unavailable' }),
    teardown: heal,
  },

  [states.storeFails]: {
    setup: async (_params, context) => context.faults.inject({ fault: 'error' }),
    teardown: heal,
  },
};

/** Before each interaction: no faults, CARD_NUMBER sessions, the base fixture (client settings back to normal). */
export async function resetState(context: StateContext): Promise<void> {
  context.faults.inject(null);
  context.sessionIdentifierType = 'CARD_NUMBER';
  await load(context, baseFixture, 'contracts/provider/fixtures/base.json');
}

/** The handlers in the shape Pact's verifier calls them, each failure recorded. */
export function stateHandlers(context: StateContext): StateHandlers {
  const recorded =
    <S extends StateName>(name: S, action: string, handler: Handler<S>) =>
    async (params?: unknown) => {
      try {
        await handler((params ?? {}) as StateParams[S], context);
      } catch (error) {
        context.failures.push(`state "${name}" (${action}) with ${JSON.stringify(params)}: ${(error as Error).message}`);
        throw error;
      }
      return undefined;
    };

  const result: StateHandlers = {};
  for (const name of Object.keys(handlers) as StateName[]) {
    const handler = handlers[name] as Handler<StateName> | HandlerWithTeardown<StateName>;
    result[name] =
      typeof handler === 'function'
        ? { setup: recorded(name, 'setup', handler) }
        : { setup: recorded(name, 'setup', handler.setup), teardown: recorded(name, 'teardown', handler.teardown) };
  }
  return result;
}
