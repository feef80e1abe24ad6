/**
 * The data every integration test starts from. Numbers here are the ones the
 * tests' expected balances are computed from: change one, recompute those.
 */
import {
  fixtureCatalogueItem,
  fixtureClient,
  fixtureDefinition,
  fixtureMember,
  fixtureRedemption,
  fixtureReservation,
} from '../../server/src/test-support/fixture-entries';

export const t0 = Date.parse('2026-11-21T12:00:00.000Z');

export const keys = {
  partner: 'demo_secret_partner_app_0001',
  tiered: 'demo_secret_tiered_app_0002',
  noVouchers: 'demo_secret_novouchers_0003',
  noDefault: 'demo_secret_nodefault_0004',
} as const;


const coffeeMessages = {
  'en-CA': { promptText: 'Redeem for a coffee?', receiptTextLong: 'Coffee redeemed with points', receiptTextShort: 'Coffee' },
};

export const baseFixture = {
  clients: [
    fixtureClient('partner-app', keys.partner, {
      enabledBusinessUnits: ['LCL', 'SDM', 'GAS'],
      defaultBusinessUnit: 'LCL',
      sessionTtlSeconds: 3600,
      reservationDurationSeconds: 900,
      extendedDurationSeconds: 3600,
      dailyRedemptionCap: 100000,
    }),
    fixtureClient('tiered-app', keys.tiered, { defaultBusinessUnit: 'LCL', redemptionTiers: [1000, 2500, 5000], dailyRedemptionCap: 6000 }),
    fixtureClient('novouchers-app', keys.noVouchers, { defaultBusinessUnit: 'LCL', vouchersEnabled: false }),
    fixtureClient('nodefault-app', keys.noDefault, { defaultBusinessUnit: null }),
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
    fixtureReservation('rt-tier', 'm-tier', { 'm-tier': 5000 }, { clientId: 'tiered-app' }),
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
