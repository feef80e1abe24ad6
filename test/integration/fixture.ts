/**
 * The data every integration test starts from. Numbers here are the ones the
 * tests' expected balances are computed from: change one, recompute those.
 */
export const t0 = Date.parse('2026-11-21T12:00:00.000Z');

export const keys = {
  partner: 'pk_test_partner_app_0001',
  tiered: 'pk_test_tiered_app_0002',
  noVouchers: 'pk_test_novouchers_0003',
  noDefault: 'pk_test_nodefault_0004',
} as const;

const definition = (id: string, businessUnit: string, status: string, usageChannels?: string[]) => ({
  voucherDefinitionId: id,
  adminId: `ADM-${id}`,
  businessUnit,
  status,
  ...(usageChannels ? { usageChannels } : {}),
  definitionName: `Definition ${id}`,
  rewardType: 'DOLLAR_OFF',
  rewardMetadata: { amount: 5, unit: 'FLAT', scopeType: 'CART' },
  expiryRule: { type: 'ROLLING', rollingDays: 30 },
  creative: { 'en-CA': { shortDescription1: '$5 off', smallImageURI: 'https://cdn.example.com/5.png' } },
  pointValue: 5000,
  redeemableValue: null,
  systemOfRecord: 'LOYALTY_CORE',
  version: 2,
  basedOn: null,
  features: ['STACKABLE'],
});

/** A reservation of the partner app, its amount the sum of its contributions. */
export const reservation = (
  reservationToken: string,
  correlationId: string,
  contributions: Record<string, number>,
  extra: Record<string, unknown> = {},
) => ({
  reservationToken,
  clientId: 'partner-app',
  correlationId,
  identifierType: 'CARD_NUMBER',
  reservationAmount: Object.values(contributions).reduce((a, b) => a + b, 0),
  contributions: Object.entries(contributions).map(([id, points]) => ({ correlationId: id, points })),
  ...extra,
});

export const baseFixture = {
  clients: [
    {
      clientId: 'partner-app',
      apiKey: keys.partner,
      enabledBusinessUnits: ['LCL', 'SDM', 'GAS'],
      defaultBusinessUnit: 'LCL',
      sessionTtlSeconds: 3600,
      reservationDurationSeconds: 900,
      extendedDurationSeconds: 3600,
      dailyRedemptionCap: 100000,
    },
    {
      clientId: 'tiered-app',
      apiKey: keys.tiered,
      enabledBusinessUnits: ['LCL'],
      defaultBusinessUnit: 'LCL',
      redemptionTiers: [1000, 2500, 5000],
      dailyRedemptionCap: 6000,
    },
    { clientId: 'novouchers-app', apiKey: keys.noVouchers, enabledBusinessUnits: ['LCL'], defaultBusinessUnit: 'LCL', vouchersEnabled: false },
    { clientId: 'nodefault-app', apiKey: keys.noDefault, enabledBusinessUnits: ['LCL'], defaultBusinessUnit: null },
  ],
  members: [
    { correlationId: 'm-alice', pointBalance: 50000, privileges: ['REDEEM'] },
    { correlationId: 'm-hh-1', pointBalance: 30000, householdId: 'hh-1', privileges: ['REDEEM'] },
    { correlationId: 'm-hh-2', pointBalance: 20000, householdId: 'hh-1', privileges: ['REDEEM'] },
    { correlationId: 'm-hh-3', pointBalance: 1000, householdId: 'hh-1' },
    { correlationId: 'm-blocked', pointBalance: 9000, eligibleForRedemption: false },
    { correlationId: 'm-solo', pointBalance: 100 },
    { correlationId: 'm-tier', pointBalance: 10000, privileges: ['REDEEM'] },
  ],
  catalogueItems: [
    {
      productCode: '0000000001',
      catalogueItemId: 'ci-coffee',
      catalogueItemName: 'Medium coffee',
      redemptionType: 'TENDER',
      pointsAmount: 2000,
      messages: {
        'en-CA': { promptText: 'Redeem for a coffee?', receiptTextLong: 'Coffee redeemed with points', receiptTextShort: 'Coffee' },
      },
    },
    {
      productCode: '0000000002',
      catalogueItemId: 'ci-muffin',
      catalogueItemName: 'Muffin',
      redemptionType: 'TENDER',
      pointsAmount: 1500,
      messages: {},
    },
  ],
  redemptions: [{ redemptionId: 'rd-100', redeemerId: 'm-alice', redemptionName: 'In-store coffee' }],
  reservations: [
    reservation('rt-alice-1', 'm-alice', { 'm-alice': 10000 }),
    reservation('rt-alice-email', 'm-alice', { 'm-alice': 1000 }, { identifierType: 'EMAIL' }),
    reservation('rt-alice-late', 'm-alice', { 'm-alice': 500 }, { expiresAt: new Date(t0 + 7200_000).toISOString() }),
    reservation('rt-alice-expired', 'm-alice', { 'm-alice': 400 }, { expiresAt: new Date(t0 - 1000).toISOString() }),
    reservation('rt-hh-1', 'm-hh-1', { 'm-hh-1': 6000, 'm-hh-2': 4000 }),
    reservation('rt-odd', 'm-hh-1', { 'm-hh-1': 1, 'm-hh-2': 1, 'm-hh-3': 1 }),
    reservation('rt-tier', 'm-tier', { 'm-tier': 5000 }, { clientId: 'tiered-app' }),
  ],
  voucherDefinitions: [
    definition('vd-0001', 'LCL', 'PUBLISHED', ['CUX', 'POS']),
    definition('vd-0002', 'LCL', 'DRAFT', ['CUX']),
    definition('vd-0003', 'LCL', 'PUBLISHED'),
    definition('vd-0004', 'LCL', 'PUBLISHED', []),
    definition('vd-0005', 'LCL', 'PUBLISHED', ['POS']),
    definition('vd-0006', 'SDM', 'PUBLISHED', ['CUX']),
    definition('vd-0007', 'LCL', 'ARCHIVED'),
    definition('vd-0000', 'LCL', 'PUBLISHED', ['CUX']),
  ],
};
