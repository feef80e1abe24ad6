/**
 * What the consumer tests and the provider verification must agree on: the
 * pact's participants, the credentials the SDK sends, and the provider
 * states with their parameters. Both sides import this file, so a state
 * cannot be misspelt on one side only.
 *
 * Nothing here is a real secret: the keys exist only in the provider's
 * contract fixture (contracts/provider/fixtures/base.json).
 */
import path from 'node:path';

export const consumerName = 'loyalty-sdk';
export const providerName = 'loyalty-api';

/** The committed pact, which the provider verifies and CI compares with a fresh consumer run. */
export const committedPactDir = path.resolve(__dirname, '..', 'pacts');
export const pactFileName = `${consumerName}-${providerName}.json`;

/** Where the consumer tests write: `PACT_OUTPUT_DIR` (set by scripts/pact-consumer.mjs), else a scratch dir. */
export function pactOutputDir(): string {
  const fromEnv = process.env.PACT_OUTPUT_DIR?.trim();
  return fromEnv ? path.resolve(fromEnv) : path.resolve(__dirname, '..', '..', 'node_modules', '.cache', 'loyalty-pact', 'pacts');
}

/** API keys of the client applications in the provider's contract fixture. */
export const apiKeys = {
  /** The partner app's secret key, which every interaction uses unless it says otherwise. */
  partner: 'contract_secret_partner_app_0001',
  /** The partner app's publishable key, for its page on `pageOrigin`. */
  partnerPage: 'contract_publishable_partner_web_0001',
  /** A client whose rate limit a provider state uses up; no other interaction uses it. */
  throttled: 'contract_secret_throttled_app_0002',
  /** Known to no client. */
  unknown: 'contract_unknown_key_0000',
} as const;

/** The partner's page: the one origin of its publishable key. */
export const pageOrigin = 'https://app.partner.example';

/** Client ids of those keys, as provider-state parameters. */
export const clientIds = {
  partner: 'contract-partner-app',
  throttled: 'contract-throttled-app',
} as const;

/**
 * The bearer token the consumer sends for "a valid member session". The
 * provider's request filter replaces it with a real session token, started
 * for the member in the path; any other token reaches the app unchanged.
 */
export const placeholderSessionToken = 'st_contract_session_token_placeholder';
/** A token that is no session: the filter leaves it alone, the app answers 401. */
export const invalidSessionToken = 'st_contract_not_a_session_token_0000';

/**
 * The `If-None-Match` the consumer sends for "the list it holds is still
 * current". The provider's request filter replaces it with the current
 * `ETag` of the listing the request asks for; any other value reaches the
 * app unchanged.
 */
export const placeholderListingTag = '"contract-current-listing-tag"';

export type IdentifierTypeParam = 'CARD_NUMBER' | 'EMAIL' | 'PHONE_NUMBER' | 'MEMBER_ID';

/**
 * Provider states: a sentence with its parameters in braces, and the type of
 * those parameters. The provider has one handler per sentence
 * (contracts/provider/states.ts); the consumer passes the values.
 */
export const states = {
  memberExists: 'member {correlationId} exists with {pointBalance} points',
  memberIsUnknown: 'no member {correlationId} exists',
  memberIsNotEligible: 'member {correlationId} is not eligible for redemption and holds reservation {reservationToken}',
  memberHoldsReservation:
    'member {correlationId} holds reservation {reservationToken} of {reservationAmount} points, made in a {identifierType} session',
  householdMemberHoldsReservation:
    'member {correlationId} of household {householdId} holds reservation {reservationToken} funded by {contributions}',
  noReservation: 'member {correlationId} has no reservation {reservationToken}',
  walletFull: 'member {correlationId} holds as many live reservations as a wallet may',
  redemptionExists:
    'redemption {redemptionId} of redeemer {redeemerId} exists, with catalogue item {productCode} worth {pointsAmount} points',
  sessionIdentifierType: 'the member session was started with identifier type {identifierType}',
  clientBusinessUnits: 'the client application enables business units {enabledBusinessUnits} with default {defaultBusinessUnit}',
  clientVouchersOff: 'the client application has the voucher feature switched off',
  clientTiers: 'the client application allows only the reservation amounts {redemptionTiers}',
  clientDailyCap: 'the client application caps new reservations at {dailyRedemptionCap} points per member and day',
  voucherDefinitionPublished: 'business unit {businessUnit} has published voucher definition {voucherDefinitionId} usable on CUX',
  rateLimitUsedUp: 'client application {clientId} has used up its rate limit',
  storeUnavailable: 'the store is unavailable',
  storeFails: 'the store fails unexpectedly',
} as const;

export type StateName = (typeof states)[keyof typeof states];

/** Parameters of each state (JSON values only: they travel in the pact). */
export interface StateParams {
  [states.memberExists]: { correlationId: string; pointBalance: number };
  [states.memberIsUnknown]: { correlationId: string };
  [states.memberIsNotEligible]: { correlationId: string; reservationToken: string };
  [states.memberHoldsReservation]: {
    correlationId: string;
    reservationToken: string;
    reservationAmount: number;
    identifierType: IdentifierTypeParam;
  };
  [states.householdMemberHoldsReservation]: {
    correlationId: string;
    householdId: string;
    reservationToken: string;
    contributions: Array<{ correlationId: string; points: number }>;
  };
  [states.noReservation]: { correlationId: string; reservationToken: string };
  [states.walletFull]: { correlationId: string };
  [states.redemptionExists]: { redemptionId: string; redeemerId: string; productCode: string; pointsAmount: number };
  [states.sessionIdentifierType]: { identifierType: IdentifierTypeParam };
  [states.clientBusinessUnits]: { enabledBusinessUnits: string[]; defaultBusinessUnit: string | null };
  [states.clientVouchersOff]: Record<string, never>;
  [states.clientTiers]: { redemptionTiers: number[] };
  [states.clientDailyCap]: { dailyRedemptionCap: number };
  [states.voucherDefinitionPublished]: { businessUnit: string; voucherDefinitionId: string };
  [states.rateLimitUsedUp]: { clientId: string };
  [states.storeUnavailable]: Record<string, never>;
  [states.storeFails]: Record<string, never>;
}
