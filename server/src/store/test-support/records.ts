/**
 * Record builders for every test, the pact provider and the bench: each
 * gives a typical record, `overrides` change any field. The overrides are
 * copied, so that one preset may serve many records and a test that changes
 * a record changes no other. Two families:
 *
 * - `...Record`, `wallet`, `auditEntry` (here): domain records
 *   (domain/model.ts), as the store keeps them and the Store port takes them;
 * - `fixture...` (src/test-support/fixture-entries.ts, above the loader
 *   whose format they follow): entries of a fixture file, the JSON
 *   `parseFixture` takes.
 *
 * The bench compiles this file too, so it stays light: at run time it loads
 * the domain model and the secrets' hash (node:crypto), none of which loads
 * a library, and never the rest of the server.
 */
import {
  auditEntryIdPrefix,
  walletIdOf,
  type ApiKeyRecord,
  type AuditEntry,
  type CatalogueItemRecord,
  type ClientRecord,
  type Contribution,
  type MemberRecord,
  type RedemptionRecord,
  type ReservationRecord,
  type SessionRecord,
  type VoucherDefinitionRecord,
  type Wallet,
} from '../../domain/model';
import { hashSecret } from '../../domain/secrets';
import { clientDefaults } from '../../domain/client-defaults';

/** Who funds a reservation: points by member (in that order), or the contributions themselves. */
export type Contributions = Record<string, number> | readonly Contribution[];

function contributionsOf(contributions: Contributions): Contribution[] {
  return Array.isArray(contributions)
    ? contributions.map((c: Contribution) => ({ correlationId: c.correlationId, points: c.points }))
    : Object.entries(contributions).map(([correlationId, points]) => ({ correlationId, points }));
}

/** The overrides as the builders take them: a copy, which nothing the caller keeps can change. */
export const copied = <T>(overrides: T): T => structuredClone(overrides);

const sumOf = (contributions: readonly Contribution[]): number => contributions.reduce((sum, c) => sum + c.points, 0);

/** What a fixture's reservation and the domain's share: partner-app's, by card number, its amount the sum of its contributions. */
export function reservationOf(reservationToken: string, correlationId: string, contributions: Contributions) {
  const funded = contributionsOf(contributions);
  return {
    reservationToken,
    clientId: 'partner-app',
    correlationId,
    identifierType: 'CARD_NUMBER' as const,
    reservationAmount: sumOf(funded),
    contributions: funded,
  };
}

// ---------------------------------------------------------------------------
// Domain records

/** A client enabled for LCL, its default unit; a client's defaults for the rest (domain/client-defaults.ts). */
export function clientRecord(clientId: string, overrides: Partial<ClientRecord> = {}): ClientRecord {
  return { ...clientDefaults, clientId, enabledBusinessUnits: ['LCL'], defaultBusinessUnit: 'LCL', ...copied(overrides) };
}

/** A live secret key whose secret is `secret-of-<keyId>` (only its digest is kept). */
export function apiKeyRecord(keyId: string, clientId: string, overrides: Partial<ApiKeyRecord> = {}): ApiKeyRecord {
  return {
    keyId,
    clientId,
    kind: 'secret',
    origins: [],
    digest: hashSecret(`secret-of-${keyId}`),
    createdAt: new Date('2030-01-01T00:00:00.000Z'),
    expiresAt: null,
    revokedAt: null,
    ...copied(overrides),
  };
}

/** An eligible member with the REDEEM privilege, in its household's wallet (its own without one). */
export function memberRecord(correlationId: string, overrides: Partial<MemberRecord> = {}): MemberRecord {
  const householdId = overrides.householdId ?? null;
  return {
    correlationId,
    walletId: walletIdOf(correlationId, householdId),
    householdId,
    eligibleForRedemption: true,
    privileges: ['REDEEM'],
    ...copied(overrides),
  };
}

/** A session of partner-app's key for m-alice, by email, ending an hour from now. */
export function sessionRecord(tokenHash: string, overrides: Partial<SessionRecord> = {}): SessionRecord {
  return {
    tokenHash,
    sessionId: `sid-${tokenHash}`,
    clientId: 'partner-app',
    keyId: 'key_partner1',
    correlationId: 'm-alice',
    identifierType: 'EMAIL',
    expiresAt: new Date(Date.now() + 3_600_000),
    ...copied(overrides),
  };
}

/**
 * A published $5-off definition of LCL, usable on every channel (no
 * `usageChannels`), with the administrative fields members never see.
 * Fields come in the fixture format's order whatever the overrides' order.
 */
export function definitionRecord(voucherDefinitionId: string, overrides: Partial<VoucherDefinitionRecord> = {}): VoucherDefinitionRecord {
  const { usageChannels, ...rest } = overrides;
  return {
    voucherDefinitionId,
    adminId: `ADM-${voucherDefinitionId}`,
    businessUnit: 'LCL',
    status: 'PUBLISHED',
    ...(usageChannels === undefined ? {} : { usageChannels: [...usageChannels] }),
    definitionName: `Definition ${voucherDefinitionId}`,
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
    ...copied(rest),
  };
}

/** A tender item of 2,000 points named after its product code, with English messages. */
export function catalogueItemRecord(productCode: string, overrides: Partial<CatalogueItemRecord> = {}): CatalogueItemRecord {
  return {
    productCode,
    catalogueItemId: `ci-${productCode}`,
    catalogueItemName: `Item ${productCode}`,
    redemptionType: 'TENDER',
    pointsAmount: 2000,
    messages: { 'en-CA': { promptText: 'Redeem?', receiptTextLong: 'Redeemed with points', receiptTextShort: 'Redeemed' } },
    ...copied(overrides),
  };
}

export function redemptionRecord(redemptionId: string, redeemerId: string, overrides: Partial<RedemptionRecord> = {}): RedemptionRecord {
  return { redemptionId, redeemerId, redemptionName: 'In-store coffee', ...copied(overrides) };
}

/**
 * A reservation of partner-app made with a card number, its amount the sum of
 * its contributions, made 2030-01-01T00:00Z for 15 minutes, counted by the daily cap.
 */
export function reservationRecord(
  reservationToken: string,
  correlationId: string,
  contributions: Contributions,
  overrides: Partial<ReservationRecord> = {},
): ReservationRecord {
  return {
    ...reservationOf(reservationToken, correlationId, contributions),
    expiresAt: new Date('2030-01-01T00:15:00.000Z'),
    createdAt: new Date('2030-01-01T00:00:00.000Z'),
    excludedFromCap: false,
    ...copied(overrides),
  };
}

/** A wallet never saved (version 0) holding `balances` by member and `reservations`. */
export function wallet(walletId: string, balances: Record<string, number>, reservations: ReservationRecord[] = [], overrides: Partial<Wallet> = {}): Wallet {
  return {
    walletId,
    version: 0,
    balances: Object.entries(balances).map(([correlationId, pointBalance]) => ({ correlationId, pointBalance })),
    reservations,
    ...copied(overrides),
  };
}

/**
 * The entry of a change by partner-app (session sid-1) that lowered a
 * reservation funded by its member alone from `amount` + 1 points to `amount`
 * (returning 1 point), as wallet version `amount` of the member's own wallet.
 * The member (m-alice unless `correlationId` is given) and the wallet's id
 * and version follow the overrides; so does the entry's id, of the usual
 * form with a fixed random part (building the same entry twice gives equal
 * records; two changes of one wallet version need an `id` each).
 */
export function auditEntry(reservationToken: string, at: string, amount: number, overrides: Partial<AuditEntry> = {}): AuditEntry {
  const correlationId = overrides.correlationId ?? 'm-alice';
  const walletId = overrides.walletId ?? walletIdOf(correlationId, null);
  const walletVersion = overrides.walletVersion ?? amount;
  const expiresAt = new Date('2030-01-01T00:15:00.000Z');
  return {
    id: `${auditEntryIdPrefix(walletId, walletVersion)}00000000-0000-4000-8000-000000000000`,
    walletId,
    walletVersion,
    at: new Date(at),
    action: 'UPDATE',
    clientId: 'partner-app',
    sessionId: 'sid-1',
    correlationId,
    reservationToken,
    before: { reservationAmount: amount + 1, contributions: [{ correlationId, points: amount + 1 }], expiresAt },
    after: { reservationAmount: amount, contributions: [{ correlationId, points: amount }], expiresAt },
    shares: [{ correlationId, points: 1 }],
    ...copied(overrides),
  };
}
