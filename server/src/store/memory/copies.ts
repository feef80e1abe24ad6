import type { ClientRecord, MemberRecord, SessionRecord } from '../../domain/model';

/*
 * Copies of the records the memory store hands out on every request
 * (client, session, member), field by field. The generic `deepCopy` walks
 * each object's keys and checks each value's kind; these build each record
 * in one literal, several times faster. They copy exactly the fields of the
 * record types, as the MongoDB adapter maps them (documents.ts); Dates are
 * new Dates, arrays new arrays. Wallets are kept frozen instead
 * (frozen-wallet.ts), audit entries packed (packed.ts).
 */

/** A new Date at the same time. */
export const date = (value: Date): Date => new Date(value.getTime());

export function copyClient(c: ClientRecord): ClientRecord {
  return {
    clientId: c.clientId,
    apiKeyHash: c.apiKeyHash,
    enabledBusinessUnits: c.enabledBusinessUnits.slice(),
    defaultBusinessUnit: c.defaultBusinessUnit,
    vouchersEnabled: c.vouchersEnabled,
    sessionTtlSeconds: c.sessionTtlSeconds,
    reservationDurationSeconds: c.reservationDurationSeconds,
    extendedDurationSeconds: c.extendedDurationSeconds,
    redemptionTiers: c.redemptionTiers === null ? null : c.redemptionTiers.slice(),
    dailyRedemptionCap: c.dailyRedemptionCap,
  };
}

export function copyMember(m: MemberRecord): MemberRecord {
  return {
    correlationId: m.correlationId,
    walletId: m.walletId,
    householdId: m.householdId,
    eligibleForRedemption: m.eligibleForRedemption,
    privileges: m.privileges.slice(),
  };
}

export function copySession(s: SessionRecord): SessionRecord {
  return {
    tokenHash: s.tokenHash,
    sessionId: s.sessionId,
    clientId: s.clientId,
    correlationId: s.correlationId,
    identifierType: s.identifierType,
    expiresAt: date(s.expiresAt),
  };
}
