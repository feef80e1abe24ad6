/**
 * The data the reliability tests, the race tests and the soak start from.
 * Its own copy (not test/integration's): these tests depend on its numbers.
 *
 * Household hh-1: m-hh-1 30000, m-hh-2 20000 (both REDEEM), m-hh-3 1000 (no
 * REDEEM). Reservations of partner-app hold 6000 + 4000 (rt-hh-1), 1 + 1 + 1
 * (rt-odd) and 1500 + 3000 + 500 (rt-hh-2).
 */
import { identifierTypes, walletIdOf } from '../../../server/src/domain/model';
import {
  fixtureCatalogueItem,
  fixtureClient,
  fixtureDefinition,
  fixtureMember,
  fixtureRedemption,
  fixtureReservation,
} from '../../../server/src/test-support/fixture-entries';

export { identifierTypes };
export const t0 = Date.parse('2026-11-21T12:00:00.000Z');

export const keys = {
  partner: 'pk_rel_partner_app_0001',
  capped: 'pk_rel_capped_app_0002',
  tiered: 'pk_rel_tiered_app_0003',
  other: 'pk_rel_other_app_0004',
  noVouchers: 'pk_rel_novouchers_0005',
} as const;

export type ClientName = keyof typeof keys;

export const clientIds: Record<ClientName, string> = {
  partner: 'partner-app',
  capped: 'capped-app',
  tiered: 'tiered-app',
  other: 'other-app',
  noVouchers: 'novouchers-app',
};

export const members = ['m-alice', 'm-hh-1', 'm-hh-2', 'm-hh-3', 'm-solo', 'm-blocked', 'm-bob'] as const;
export type MemberId = (typeof members)[number];

export const initialBalances: Record<MemberId, number> = {
  'm-alice': 50000,
  'm-hh-1': 30000,
  'm-hh-2': 20000,
  'm-hh-3': 1000,
  'm-solo': 100,
  'm-blocked': 9000,
  'm-bob': 20000,
};

export const householdOf: Partial<Record<MemberId, string>> = { 'm-hh-1': 'hh-1', 'm-hh-2': 'hh-1', 'm-hh-3': 'hh-1' };

export function walletIdOfMember(member: string): string {
  return walletIdOf(member, householdOf[member as MemberId] ?? null);
}

export const walletIds = [...new Set(members.map(walletIdOfMember))];

/** Administrative fields members never see, with values the leak checks look for (answers.ts). */
const administrative = {
  rewardMetadata: { amount: 5, unit: 'FLAT', scopeType: 'CART', internalRef: 'INT-7' },
  version: 7,
  basedOn: 'vd-base',
};

const coffeeMessages = {
  'en-CA': { promptText: 'Redeem for a coffee?', receiptTextLong: 'Coffee redeemed with points', receiptTextShort: 'Coffee' },
};

/** Reservations the fixture holds: partner-app's unless another client is named. */
export const fixtureReservations = [
  fixtureReservation('rt-alice-1', 'm-alice', { 'm-alice': 10000 }),
  fixtureReservation('rt-alice-email', 'm-alice', { 'm-alice': 1000 }, { identifierType: 'EMAIL' }),
  fixtureReservation('rt-alice-expired', 'm-alice', { 'm-alice': 400 }, { expiresAt: new Date(t0 - 1000).toISOString() }),
  fixtureReservation('rt-alice-other', 'm-alice', { 'm-alice': 2000 }, { clientId: clientIds.other }),
  fixtureReservation('rt-hh-1', 'm-hh-1', { 'm-hh-1': 6000, 'm-hh-2': 4000 }),
  fixtureReservation('rt-odd', 'm-hh-1', { 'm-hh-1': 1, 'm-hh-2': 1, 'm-hh-3': 1 }),
  fixtureReservation('rt-hh-2', 'm-hh-2', { 'm-hh-2': 3000, 'm-hh-1': 1500, 'm-hh-3': 500 }),
  fixtureReservation('rt-bob-capped', 'm-bob', { 'm-bob': 5000 }, { clientId: clientIds.capped }),
  fixtureReservation('rt-bob-tier', 'm-bob', { 'm-bob': 2500 }, { clientId: clientIds.tiered }),
];

export const reliabilityFixture = {
  clients: [
    fixtureClient(clientIds.partner, keys.partner, {
      enabledBusinessUnits: ['LCL', 'SDM'],
      defaultBusinessUnit: 'LCL',
      sessionTtlSeconds: 3600,
      reservationDurationSeconds: 900,
      extendedDurationSeconds: 3600,
      dailyRedemptionCap: 100000,
    }),
    fixtureClient(clientIds.capped, keys.capped, { defaultBusinessUnit: 'LCL', dailyRedemptionCap: 6000 }),
    fixtureClient(clientIds.tiered, keys.tiered, { defaultBusinessUnit: 'LCL', redemptionTiers: [1000, 2500, 5000], dailyRedemptionCap: 6000 }),
    fixtureClient(clientIds.other, keys.other, { enabledBusinessUnits: ['LCL', 'GAS'], defaultBusinessUnit: 'GAS', sessionTtlSeconds: 600 }),
    fixtureClient(clientIds.noVouchers, keys.noVouchers, { vouchersEnabled: false }),
  ],
  members: [
    fixtureMember('m-alice', initialBalances['m-alice'], { privileges: ['REDEEM'] }),
    fixtureMember('m-hh-1', initialBalances['m-hh-1'], { householdId: 'hh-1', privileges: ['REDEEM'] }),
    fixtureMember('m-hh-2', initialBalances['m-hh-2'], { householdId: 'hh-1', privileges: ['REDEEM'] }),
    fixtureMember('m-hh-3', initialBalances['m-hh-3'], { householdId: 'hh-1' }),
    fixtureMember('m-solo', initialBalances['m-solo']),
    fixtureMember('m-blocked', initialBalances['m-blocked'], { eligibleForRedemption: false }),
    fixtureMember('m-bob', initialBalances['m-bob'], { privileges: ['REDEEM'] }),
  ],
  catalogueItems: [
    fixtureCatalogueItem('0000000001', { catalogueItemId: 'ci-coffee', catalogueItemName: 'Medium coffee', messages: coffeeMessages }),
    fixtureCatalogueItem('0000000002', { catalogueItemId: 'ci-muffin', catalogueItemName: 'Muffin', pointsAmount: 1500, messages: {} }),
    fixtureCatalogueItem('0000000003', { catalogueItemId: 'ci-gum', catalogueItemName: 'Gum', pointsAmount: 7, messages: {} }),
  ],
  redemptions: [fixtureRedemption('rd-100', 'm-alice'), fixtureRedemption('rd-200', 'm-hh-1', { redemptionName: 'Household treats' })],
  reservations: fixtureReservations,
  voucherDefinitions: [
    fixtureDefinition('vd-0001', { ...administrative, usageChannels: ['CUX', 'POS'] }),
    fixtureDefinition('vd-0002', { ...administrative, status: 'DRAFT', usageChannels: ['CUX'] }),
    fixtureDefinition('vd-0003', administrative),
    fixtureDefinition('vd-0004', { ...administrative, businessUnit: 'SDM', usageChannels: ['CUX'] }),
    fixtureDefinition('vd-0005', { ...administrative, businessUnit: 'GAS', usageChannels: [] }),
  ],
};

/** Daily caps per client id (null: none), as the fixture configures them. */
export const dailyCaps: Record<string, number | null> = Object.fromEntries(
  reliabilityFixture.clients.map((client) => [client.clientId, client.dailyRedemptionCap ?? null]),
);

export const productCodes = reliabilityFixture.catalogueItems.map((item) => item.productCode);
export const redemptions = reliabilityFixture.redemptions.map(({ redemptionId, redeemerId }) => ({ redemptionId, redeemerId }));
