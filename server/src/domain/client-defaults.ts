import type { ClientRecord } from './model';

/**
 * A client's settings when whoever describes it leaves them out: the
 * fixture format gives them as its schema's defaults
 * (features/load/fixture-schema.ts), the loader applies them, and the
 * tests' record builders start from them. One place to change them.
 */
export const clientDefaults: Readonly<Omit<ClientRecord, 'clientId' | 'enabledBusinessUnits'>> = Object.freeze({
  defaultBusinessUnit: null,
  vouchersEnabled: true,
  sessionTtlSeconds: 3600,
  reservationDurationSeconds: 900,
  extendedDurationSeconds: 3600,
  redemptionTiers: null,
  dailyRedemptionCap: null,
});
