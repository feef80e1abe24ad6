/**
 * The data the tests of the whole start from: one table of the clients, by
 * name, with their ids and API keys, and two data sets on it, each with the
 * numbers its tests compute their expected balances from (change one,
 * recompute those):
 *
 * - `integrationFixture`, the integration tests' (test/integration/);
 * - `reliabilityFixture`, the reliability tests', the races' and the soak's,
 *   with the tables below it (members, balances, caps...).
 */
import { identifierTypes, walletIdOf } from '../../server/src/domain/model';
import {
  fixtureCatalogueItem,
  fixtureClient,
  fixtureDefinition,
  fixtureMember,
  fixtureRedemption,
  fixtureReservation,
} from '../../server/src/test-support/fixture-entries';

export { identifierTypes };
export const t0 = Date.parse('2026-11-21T12:00:00.000Z');

/** What every API key of the tests starts with: the logs are searched for it (LogSink), and unknown keys use it too. */
export const testKeyPrefix = 'test_key_';

/** The clients the data sets are made of, by name: each data set has some of them. */
export type ClientName = 'partner' | 'tiered' | 'noVouchers' | 'noDefault' | 'capped' | 'other';

export const clientIds: Record<ClientName, string> = {
  partner: 'partner-app',
  tiered: 'tiered-app',
  noVouchers: 'novouchers-app',
  noDefault: 'nodefault-app',
  capped: 'capped-app',
  other: 'other-app',
};

export const keys: Record<ClientName, string> = {
  partner: `${testKeyPrefix}partner_app_0001`,
  tiered: `${testKeyPrefix}tiered_app_0002`,
  noVouchers: `${testKeyPrefix}novouchers_0003`,
  noDefault: `${testKeyPrefix}nodefault_0004`,
  capped: `${testKeyPrefix}capped_app_0005`,
  other: `${testKeyPrefix}other_app_0006`,
};

const coffeeMessages = {
  'en-CA': { promptText: 'Redeem for a coffee?', receiptTextLong: 'Coffee redeemed with points', receiptTextShort: 'Coffee' },
};

// --- the integration tests' data --------------------------------------------

export const integrationFixture = {
  clients: [
    fixtureClient(clientIds.partner, keys.partner, {
      enabledBusinessUnits: ['LCL', 'SDM', 'GAS'],
      defaultBusinessUnit: 'LCL',
      sessionTtlSeconds: 3600,
      reservationDurationSeconds: 900,
      extendedDurationSeconds: 3600,
      dailyRedemptionCap: 100000,
    }),
    fixtureClient(clientIds.tiered, keys.tiered, { defaultBusinessUnit: 'LCL', redemptionTiers: [1000, 2500, 5000], dailyRedemptionCap: 6000 }),
    fixtureClient(clientIds.noVouchers, keys.noVouchers, { defaultBusinessUnit: 'LCL', vouchersEnabled: false }),
    fixtureClient(clientIds.noDefault, keys.noDefault, { defaultBusinessUnit: null }),
  ],
  members: [
    fixtureMember('m-alice', 50000, { privileges: ['REDEEM'] }),
    fixtureMember('m-hh-1', 30000, { householdId: 'hh-1', privileges: ['REDEEM'] }),
    fixtureMember('m-hh-2', 20000, { householdId: 'hh-1', privileges: ['REDEEM'] }),
    fixtureMember('m-hh-3', 1000, { householdId: 'hh-1' }),
    fixtureMember('m-blocked', 9000, { eligibleForRedemption: false }),
    fixtureMember('m-solo', 100),
    fixtureMember('m-tier', 10000, { privileges: ['REDEEM'] }),
  ],
  catalogueItems: [
    fixtureCatalogueItem('0000000001', { catalogueItemId: 'ci-coffee', catalogueItemName: 'Medium coffee', messages: coffeeMessages }),
    fixtureCatalogueItem('0000000002', { catalogueItemId: 'ci-muffin', catalogueItemName: 'Muffin', pointsAmount: 1500, messages: {} }),
  ],
  redemptions: [fixtureRedemption('rd-100', 'm-alice')],
  reservations: [
    fixtureReservation('rt-alice-1', 'm-alice', { 'm-alice': 10000 }),
    fixtureReservation('rt-alice-email', 'm-alice', { 'm-alice': 1000 }, { identifierType: 'EMAIL' }),
    fixtureReservation('rt-alice-late', 'm-alice', { 'm-alice': 500 }, { expiresAt: new Date(t0 + 7200_000).toISOString() }),
    fixtureReservation('rt-alice-expired', 'm-alice', { 'm-alice': 400 }, { expiresAt: new Date(t0 - 1000).toISOString() }),
    fixtureReservation('rt-hh-1', 'm-hh-1', { 'm-hh-1': 6000, 'm-hh-2': 4000 }),
    fixtureReservation('rt-odd', 'm-hh-1', { 'm-hh-1': 1, 'm-hh-2': 1, 'm-hh-3': 1 }),
    fixtureReservation('rt-tier', 'm-tier', { 'm-tier': 5000 }, { clientId: clientIds.tiered }),
  ],
  voucherDefinitions: [
    fixtureDefinition('vd-0001', { usageChannels: ['CUX', 'POS'] }),
    fixtureDefinition('vd-0002', { status: 'DRAFT', usageChannels: ['CUX'] }),
    fixtureDefinition('vd-0003'),
    fixtureDefinition('vd-0004', { usageChannels: [] }),
    fixtureDefinition('vd-0005', { usageChannels: ['POS'] }),
    fixtureDefinition('vd-0006', { businessUnit: 'SDM', usageChannels: ['CUX'] }),
    fixtureDefinition('vd-0007', { status: 'ARCHIVED' }),
    fixtureDefinition('vd-0000', { usageChannels: ['CUX'] }),
  ],
};

// --- the reliability tests' data ----------------------------------------------
//
// Household hh-1: m-hh-1 30000, m-hh-2 20000 (both REDEEM), m-hh-3 1000 (no
// REDEEM). Reservations of partner-app hold 6000 + 4000 (rt-hh-1), 1 + 1 + 1
// (rt-odd) and 1500 + 3000 + 500 (rt-hh-2).

/** Its clients, in this order (the properties' generators draw from it, by a fixed seed). */
export const reliabilityClients = ['partner', 'capped', 'tiered', 'other', 'noVouchers'] as const satisfies readonly ClientName[];
export type ReliabilityClient = (typeof reliabilityClients)[number];

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
