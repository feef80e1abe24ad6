import { clientDefaults } from '../../domain/client-defaults';
import { walletIdOf, type ApiKeyRecord, type ClientRecord, type MemberRecord, type ReservationRecord, type VoucherDefinitionRecord } from '../../domain/model';
import { hashSecret } from '../../domain/secrets';
import { deepCopy } from '../../store/copy';
import { fixtureKeysOf } from './fixture-keys';
import { fixtureSchema, type FixtureClient, type FixtureMember, type FixtureReservation, type FixtureVoucherDefinition } from './fixture-schema';

/*
 * The fixture's entries as the store's records: the defaults of what an
 * entry leaves out applied, and the keys by which a record replaces the
 * stored one.
 */

const memberSettings = fixtureSchema.properties.members.items.properties;

/** A reservation is identified by client, member and token together. */
export function reservationKey(r: { clientId: string; correlationId: string; reservationToken: string }): string {
  return JSON.stringify([r.clientId, r.correlationId, r.reservationToken]);
}

/**
 * The keys of a fixture's client, with ids of their own (`fixtureKeyId`):
 * loading the same fixture again replaces the same records, a key changed in
 * the fixture replaces the one at its place. Created at load time, no expiry.
 */
export function toApiKeyRecords(client: FixtureClient, clientIndex: number, now: Date): ApiKeyRecord[] {
  return fixtureKeysOf(client, clientIndex).map((key) => ({
    keyId: key.keyId,
    clientId: client.clientId,
    kind: key.kind,
    origins: key.origins,
    digest: hashSecret(key.apiKey),
    createdAt: new Date(now.getTime()),
    expiresAt: null,
    revokedAt: null,
  }));
}

export function toClientRecord(client: FixtureClient): ClientRecord {
  return {
    clientId: client.clientId,
    enabledBusinessUnits: [...client.enabledBusinessUnits],
    defaultBusinessUnit: client.defaultBusinessUnit ?? clientDefaults.defaultBusinessUnit,
    vouchersEnabled: client.vouchersEnabled ?? clientDefaults.vouchersEnabled,
    sessionTtlSeconds: client.sessionTtlSeconds ?? clientDefaults.sessionTtlSeconds,
    reservationDurationSeconds: client.reservationDurationSeconds ?? clientDefaults.reservationDurationSeconds,
    extendedDurationSeconds: client.extendedDurationSeconds ?? clientDefaults.extendedDurationSeconds,
    redemptionTiers: client.redemptionTiers ? [...client.redemptionTiers] : clientDefaults.redemptionTiers,
    dailyRedemptionCap: client.dailyRedemptionCap ?? clientDefaults.dailyRedemptionCap,
  };
}

export function toMemberRecord(member: FixtureMember): MemberRecord {
  const householdId = member.householdId ?? null;
  return {
    correlationId: member.correlationId,
    walletId: walletIdOf(member.correlationId, householdId),
    householdId,
    eligibleForRedemption: member.eligibleForRedemption ?? memberSettings.eligibleForRedemption.default,
    privileges: [...(member.privileges ?? memberSettings.privileges.default)],
  };
}

export function toVoucherDefinitionRecord(definition: FixtureVoucherDefinition): VoucherDefinitionRecord {
  const copy = deepCopy(definition);
  return { ...copy, pointValue: copy.pointValue ?? null, redeemableValue: copy.redeemableValue ?? null };
}

/** `durationSeconds` is the client's; `checkFixture` ensures it is known when `expiresAt` is absent. */
export function toReservationRecord(r: FixtureReservation, durationSeconds: number | undefined, now: Date): ReservationRecord {
  const { expiresAt, createdAt, ...reservation } = deepCopy(r);
  return {
    ...reservation,
    expiresAt: expiresAt === undefined ? defaultExpiry(r, durationSeconds, now) : new Date(expiresAt),
    createdAt: createdAt === undefined ? new Date(now.getTime()) : new Date(createdAt),
    excludedFromCap: false,
  };
}

function defaultExpiry(r: FixtureReservation, durationSeconds: number | undefined, now: Date): Date {
  if (durationSeconds === undefined) throw new Error(`reservation ${r.reservationToken}: no expiresAt and no client to default it`);
  return new Date(now.getTime() + durationSeconds * 1000);
}
