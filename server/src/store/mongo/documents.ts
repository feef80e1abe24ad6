import type {
  ApiKeyKind,
  ApiKeyRecord,
  CatalogueItemRecord,
  ClientRecord,
  MemberRecord,
  RedemptionRecord,
  SessionRecord,
  VoucherDefinitionRecord,
} from '../../domain/model';

/*
 * Document shapes of each collection and their explicit mapping to and from
 * records (the wallets, their reservations and the audit trail: in
 * wallets/documents.ts). Every field is named on the way in and on the way
 * out: `_id` and anything else the database adds never leave the adapter,
 * and a stray property on a record never reaches the database. Dates stay
 * `Date` (BSON dates).
 */

export interface ClientDoc {
  _id: string; // clientId
  enabledBusinessUnits: string[];
  defaultBusinessUnit: string | null;
  vouchersEnabled: boolean;
  sessionTtlSeconds: number;
  reservationDurationSeconds: number;
  extendedDurationSeconds: number;
  redemptionTiers: number[] | null;
  dailyRedemptionCap: number | null;
}

export interface MemberDoc {
  _id: string; // correlationId
  walletId: string;
  householdId: string | null;
  eligibleForRedemption: boolean;
  privileges: string[];
}

/** An API key: its digest only (unique index), never the secret. */
export interface ApiKeyDoc {
  _id: string; // keyId
  clientId: string;
  kind: ApiKeyKind;
  origins: string[];
  digest: string;
  createdAt: Date;
  expiresAt: Date | null;
  revokedAt: Date | null;
}

export interface SessionDoc {
  _id: string; // tokenHash
  sessionId: string;
  clientId: string;
  keyId: string;
  correlationId: string;
  identifierType: SessionRecord['identifierType'];
  expiresAt: Date;
  walletId?: string;
}

export interface CatalogueItemDoc {
  _id: string; // productCode
  catalogueItemId: string;
  catalogueItemName: string;
  redemptionType: string;
  pointsAmount: number;
  messages: CatalogueItemRecord['messages'];
}

export interface RedemptionDoc {
  _id: string; // redemptionId
  redeemerId: string;
  redemptionName: string;
}

/** Keeps `voucherDefinitionId` as a field too: the listing index ends with it and sorts by it. */
export interface VoucherDefinitionDoc extends VoucherDefinitionRecord {
  _id: string; // voucherDefinitionId
}

/** A document without its key: what replaceOne and upserts take. */
export type Body<T> = Omit<T, '_id'>;

// --- clients ---------------------------------------------------------------

export function clientBody(c: ClientRecord): Body<ClientDoc> {
  return {
    enabledBusinessUnits: [...c.enabledBusinessUnits],
    defaultBusinessUnit: c.defaultBusinessUnit,
    vouchersEnabled: c.vouchersEnabled,
    sessionTtlSeconds: c.sessionTtlSeconds,
    reservationDurationSeconds: c.reservationDurationSeconds,
    extendedDurationSeconds: c.extendedDurationSeconds,
    redemptionTiers: c.redemptionTiers ? [...c.redemptionTiers] : null,
    dailyRedemptionCap: c.dailyRedemptionCap,
  };
}

export function clientFromDoc(d: ClientDoc): ClientRecord {
  return {
    clientId: d._id,
    enabledBusinessUnits: d.enabledBusinessUnits,
    defaultBusinessUnit: d.defaultBusinessUnit ?? null,
    vouchersEnabled: d.vouchersEnabled,
    sessionTtlSeconds: d.sessionTtlSeconds,
    reservationDurationSeconds: d.reservationDurationSeconds,
    extendedDurationSeconds: d.extendedDurationSeconds,
    redemptionTiers: d.redemptionTiers ?? null,
    dailyRedemptionCap: d.dailyRedemptionCap ?? null,
  };
}

// --- API keys ------------------------------------------------------------

export function apiKeyDoc(k: ApiKeyRecord): ApiKeyDoc {
  return {
    _id: k.keyId,
    clientId: k.clientId,
    kind: k.kind,
    origins: [...k.origins],
    digest: k.digest,
    createdAt: k.createdAt,
    expiresAt: k.expiresAt,
    revokedAt: k.revokedAt,
  };
}

/** A document whose kind is neither (written by hand, say) fails closed: it is read as a publishable key without origins, which no request may use. */
export function apiKeyFromDoc(d: ApiKeyDoc): ApiKeyRecord {
  const kind = d.kind === 'secret' ? 'secret' : 'publishable';
  return {
    keyId: d._id,
    clientId: d.clientId,
    kind,
    origins: kind === 'publishable' && Array.isArray(d.origins) ? d.origins.filter((origin) => typeof origin === 'string') : [],
    digest: d.digest,
    createdAt: d.createdAt,
    expiresAt: d.expiresAt ?? null,
    revokedAt: d.revokedAt ?? null,
  };
}

// --- members ---------------------------------------------------------------

export function memberBody(m: MemberRecord): Body<MemberDoc> {
  return {
    walletId: m.walletId,
    householdId: m.householdId,
    eligibleForRedemption: m.eligibleForRedemption,
    privileges: [...m.privileges],
  };
}

export function memberFromDoc(d: MemberDoc): MemberRecord {
  return {
    correlationId: d._id,
    walletId: d.walletId,
    householdId: d.householdId ?? null,
    eligibleForRedemption: d.eligibleForRedemption,
    privileges: d.privileges,
  };
}

// --- sessions --------------------------------------------------------------

export function sessionDoc(s: SessionRecord): SessionDoc {
  return {
    _id: s.tokenHash,
    sessionId: s.sessionId,
    clientId: s.clientId,
    keyId: s.keyId,
    correlationId: s.correlationId,
    identifierType: s.identifierType,
    expiresAt: s.expiresAt,
    ...(s.walletId !== undefined && { walletId: s.walletId }),
  };
}

export function sessionFromDoc(d: SessionDoc): SessionRecord {
  const session: SessionRecord = {
    tokenHash: d._id,
    sessionId: d.sessionId,
    clientId: d.clientId,
    keyId: d.keyId,
    correlationId: d.correlationId,
    identifierType: d.identifierType,
    expiresAt: d.expiresAt,
  };
  if (typeof d.walletId === 'string') session.walletId = d.walletId;
  return session;
}

// --- catalogue and redemptions --------------------------------------------

export function catalogueItemBody(i: CatalogueItemRecord): Body<CatalogueItemDoc> {
  return {
    catalogueItemId: i.catalogueItemId,
    catalogueItemName: i.catalogueItemName,
    redemptionType: i.redemptionType,
    pointsAmount: i.pointsAmount,
    messages: i.messages,
  };
}

export function catalogueItemFromDoc(d: CatalogueItemDoc): CatalogueItemRecord {
  return {
    productCode: d._id,
    catalogueItemId: d.catalogueItemId,
    catalogueItemName: d.catalogueItemName,
    redemptionType: d.redemptionType,
    pointsAmount: d.pointsAmount,
    messages: d.messages,
  };
}

export function redemptionBody(r: RedemptionRecord): Body<RedemptionDoc> {
  return { redeemerId: r.redeemerId, redemptionName: r.redemptionName };
}

export function redemptionFromDoc(d: RedemptionDoc): RedemptionRecord {
  return { redemptionId: d._id, redeemerId: d.redeemerId, redemptionName: d.redemptionName };
}

// --- voucher definitions --------------------------------------------------

/** The same explicit field list both ways; optional fields only when present. */
function definitionFields(d: VoucherDefinitionRecord): VoucherDefinitionRecord {
  return {
    voucherDefinitionId: d.voucherDefinitionId,
    adminId: d.adminId,
    businessUnit: d.businessUnit,
    status: d.status,
    ...(d.usageChannels != null ? { usageChannels: d.usageChannels } : {}),
    definitionName: d.definitionName,
    rewardType: d.rewardType,
    rewardMetadata: d.rewardMetadata,
    expiryRule: d.expiryRule,
    creative: d.creative,
    pointValue: d.pointValue ?? null,
    redeemableValue: d.redeemableValue ?? null,
    ...(d.systemOfRecord != null ? { systemOfRecord: d.systemOfRecord } : {}),
    ...(d.version != null ? { version: d.version } : {}),
    ...(d.basedOn !== undefined ? { basedOn: d.basedOn } : {}),
    ...(d.features != null ? { features: d.features } : {}),
  };
}

export function voucherDefinitionBody(d: VoucherDefinitionRecord): Body<VoucherDefinitionDoc> {
  return definitionFields(d);
}

export function voucherDefinitionFromDoc(d: VoucherDefinitionDoc): VoucherDefinitionRecord {
  return definitionFields(d);
}
