/**
 * The data the reliability tests, the race tests and the soak start from.
 * Its own copy (not test/integration's): these tests depend on its numbers.
 *
 * Household hh-1: m-hh-1 30000, m-hh-2 20000 (both REDEEM), m-hh-3 1000 (no
 * REDEEM). Reservations of partner-app hold 6000 + 4000 (rt-hh-1), 1 + 1 + 1
 * (rt-odd) and 1500 + 3000 + 500 (rt-hh-2).
 */
import { identifierTypes, walletIdOf } from '../../../server/src/domain/model';

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

/** Daily caps per client id (null: none), as configured below. */
export const dailyCaps: Record<string, number | null> = {
  'partner-app': 100000,
  'capped-app': 6000,
  'tiered-app': 6000,
  'other-app': null,
  'novouchers-app': null,
};

const reservation = (
  reservationToken: string,
  clientId: string,
  correlationId: string,
  contributions: Record<string, number>,
  extra: Record<string, unknown> = {},
) => ({
  reservationToken,
  clientId,
  correlationId,
  identifierType: 'CARD_NUMBER',
  reservationAmount: Object.values(contributions).reduce((a, b) => a + b, 0),
  contributions: Object.entries(contributions).map(([id, points]) => ({ correlationId: id, points })),
  ...extra,
});

const definition = (id: string, businessUnit: string, status: string, usageChannels?: string[]) => ({
  voucherDefinitionId: id,
  adminId: `ADM-${id}`,
  businessUnit,
  status,
  ...(usageChannels ? { usageChannels } : {}),
  definitionName: `Definition ${id}`,
  rewardType: 'DOLLAR_OFF',
  rewardMetadata: { amount: 5, unit: 'FLAT', scopeType: 'CART', internalRef: 'INT-7' },
  expiryRule: { type: 'ROLLING', rollingDays: 30 },
  creative: { 'en-CA': { shortDescription1: '$5 off', smallImageURI: 'https://cdn.example.com/5.png' } },
  pointValue: 5000,
  redeemableValue: null,
  systemOfRecord: 'LOYALTY_CORE',
  version: 7,
  basedOn: 'vd-base',
  features: ['STACKABLE'],
});

/** Reservations the fixture holds, by (client, member, token). */
export const fixtureReservations = [
  reservation('rt-alice-1', 'partner-app', 'm-alice', { 'm-alice': 10000 }),
  reservation('rt-alice-email', 'partner-app', 'm-alice', { 'm-alice': 1000 }, { identifierType: 'EMAIL' }),
  reservation('rt-alice-expired', 'partner-app', 'm-alice', { 'm-alice': 400 }, { expiresAt: new Date(t0 - 1000).toISOString() }),
  reservation('rt-alice-other', 'other-app', 'm-alice', { 'm-alice': 2000 }),
  reservation('rt-hh-1', 'partner-app', 'm-hh-1', { 'm-hh-1': 6000, 'm-hh-2': 4000 }),
  reservation('rt-odd', 'partner-app', 'm-hh-1', { 'm-hh-1': 1, 'm-hh-2': 1, 'm-hh-3': 1 }),
  reservation('rt-hh-2', 'partner-app', 'm-hh-2', { 'm-hh-2': 3000, 'm-hh-1': 1500, 'm-hh-3': 500 }),
  reservation('rt-bob-capped', 'capped-app', 'm-bob', { 'm-bob': 5000 }),
  reservation('rt-bob-tier', 'tiered-app', 'm-bob', { 'm-bob': 2500 }),
];

export const reliabilityFixture = {
  clients: [
    {
      clientId: 'partner-app',
      apiKey: keys.partner,
      enabledBusinessUnits: ['LCL', 'SDM'],
      defaultBusinessUnit: 'LCL',
      sessionTtlSeconds: 3600,
      reservationDurationSeconds: 900,
      extendedDurationSeconds: 3600,
      dailyRedemptionCap: 100000,
    },
    { clientId: 'capped-app', apiKey: keys.capped, enabledBusinessUnits: ['LCL'], defaultBusinessUnit: 'LCL', dailyRedemptionCap: 6000 },
    {
      clientId: 'tiered-app',
      apiKey: keys.tiered,
      enabledBusinessUnits: ['LCL'],
      defaultBusinessUnit: 'LCL',
      redemptionTiers: [1000, 2500, 5000],
      dailyRedemptionCap: 6000,
    },
    { clientId: 'other-app', apiKey: keys.other, enabledBusinessUnits: ['LCL', 'GAS'], defaultBusinessUnit: 'GAS', sessionTtlSeconds: 600 },
    { clientId: 'novouchers-app', apiKey: keys.noVouchers, enabledBusinessUnits: ['LCL'], vouchersEnabled: false },
  ],
  members: [
    { correlationId: 'm-alice', pointBalance: initialBalances['m-alice'], privileges: ['REDEEM'] },
    { correlationId: 'm-hh-1', pointBalance: initialBalances['m-hh-1'], householdId: 'hh-1', privileges: ['REDEEM'] },
    { correlationId: 'm-hh-2', pointBalance: initialBalances['m-hh-2'], householdId: 'hh-1', privileges: ['REDEEM'] },
    { correlationId: 'm-hh-3', pointBalance: initialBalances['m-hh-3'], householdId: 'hh-1' },
    { correlationId: 'm-solo', pointBalance: initialBalances['m-solo'] },
    { correlationId: 'm-blocked', pointBalance: initialBalances['m-blocked'], eligibleForRedemption: false },
    { correlationId: 'm-bob', pointBalance: initialBalances['m-bob'], privileges: ['REDEEM'] },
  ],
  catalogueItems: [
    {
      productCode: '0000000001',
      catalogueItemId: 'ci-coffee',
      catalogueItemName: 'Medium coffee',
      redemptionType: 'TENDER',
      pointsAmount: 2000,
      messages: { 'en-CA': { promptText: 'Redeem for a coffee?', receiptTextLong: 'Coffee redeemed with points', receiptTextShort: 'Coffee' } },
    },
    { productCode: '0000000002', catalogueItemId: 'ci-muffin', catalogueItemName: 'Muffin', redemptionType: 'TENDER', pointsAmount: 1500, messages: {} },
    { productCode: '0000000003', catalogueItemId: 'ci-gum', catalogueItemName: 'Gum', redemptionType: 'TENDER', pointsAmount: 7, messages: {} },
  ],
  redemptions: [
    { redemptionId: 'rd-100', redeemerId: 'm-alice', redemptionName: 'In-store coffee' },
    { redemptionId: 'rd-200', redeemerId: 'm-hh-1', redemptionName: 'Household treats' },
  ],
  reservations: fixtureReservations,
  voucherDefinitions: [
    definition('vd-0001', 'LCL', 'PUBLISHED', ['CUX', 'POS']),
    definition('vd-0002', 'LCL', 'DRAFT', ['CUX']),
    definition('vd-0003', 'LCL', 'PUBLISHED'),
    definition('vd-0004', 'SDM', 'PUBLISHED', ['CUX']),
    definition('vd-0005', 'GAS', 'PUBLISHED', []),
  ],
};

export const productCodes = ['0000000001', '0000000002', '0000000003'] as const;
export const redemptions = [
  { redemptionId: 'rd-100', redeemerId: 'm-alice' },
  { redemptionId: 'rd-200', redeemerId: 'm-hh-1' },
] as const;
