/** Collection names, in one place for operators, migrations and tests. */
export const collectionNames = {
  clients: 'clients',
  apiKeys: 'apiKeys',
  members: 'members',
  sessions: 'sessions',
  catalogueItems: 'catalogueItems',
  redemptions: 'redemptions',
  voucherDefinitions: 'voucherDefinitions',
  wallets: 'wallets',
  reservations: 'reservations',
  audit: 'audit',
  /** The rate limit's count per key and window (quota-claim.ts). */
  rateLimits: 'rateLimits',
  /** The data layout the database holds (layout.ts). */
  meta: 'meta',
} as const;
