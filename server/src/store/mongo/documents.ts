import {
  auditEntryId,
  type AuditEntry,
  type AuditState,
  type CatalogueItemRecord,
  type ClientRecord,
  type Contribution,
  type MemberBalance,
  type MemberRecord,
  type RedemptionRecord,
  type ReservationRecord,
  type SessionRecord,
  type VoucherDefinitionRecord,
  type Wallet,
} from '../../domain/model';

/*
 * Document shapes of each collection and their explicit mapping to and from
 * records. Every field is named on the way in and on the way out: `_id` and
 * anything else the database adds never leave the adapter, and a stray
 * property on a record never reaches the database. Dates stay `Date` (BSON
 * dates).
 */

export interface ClientDoc {
  _id: string; // clientId
  apiKeyHash: string;
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

export interface SessionDoc {
  _id: string; // tokenHash
  sessionId: string;
  clientId: string;
  correlationId: string;
  identifierType: SessionRecord['identifierType'];
  expiresAt: Date;
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

export interface WalletDoc {
  _id: string; // walletId
  version: number;
  balances: MemberBalance[];
  reservations: ReservationRecord[];
  pendingAudit?: Body<AuditDoc>[];
}

export interface AuditDoc {
  _id: string; // `<walletId>@<walletVersion>`: a second copy of the same entry replaces the first
  walletId: string;
  walletVersion: number;
  reservationToken: string;
  at: Date;
  action: AuditEntry['action'];
  clientId: string;
  sessionId: string;
  correlationId: string;
  before: AuditEntry['before'];
  after: AuditEntry['after'];
  shares: Contribution[];
}

/** A document without its key: what replaceOne and upserts take. */
export type Body<T> = Omit<T, '_id'>;

// --- clients ---------------------------------------------------------------

export function clientBody(c: ClientRecord): Body<ClientDoc> {
  return {
    apiKeyHash: c.apiKeyHash,
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
    apiKeyHash: d.apiKeyHash,
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
    correlationId: s.correlationId,
    identifierType: s.identifierType,
    expiresAt: s.expiresAt,
  };
}

export function sessionFromDoc(d: SessionDoc): SessionRecord {
  return {
    tokenHash: d._id,
    sessionId: d.sessionId,
    clientId: d.clientId,
    correlationId: d.correlationId,
    identifierType: d.identifierType,
    expiresAt: d.expiresAt,
  };
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

// --- wallets ---------------------------------------------------------------

function contributionsOf(contributions: Contribution[]): Contribution[] {
  return contributions.map((c) => ({ correlationId: c.correlationId, points: c.points }));
}

function reservationFields(r: ReservationRecord): ReservationRecord {
  return {
    reservationToken: r.reservationToken,
    clientId: r.clientId,
    correlationId: r.correlationId,
    identifierType: r.identifierType,
    reservationAmount: r.reservationAmount,
    contributions: contributionsOf(r.contributions),
    expiresAt: r.expiresAt,
    createdAt: r.createdAt,
    excludedFromCap: r.excludedFromCap === true,
  };
}

export function walletBody(w: Wallet, version: number): Body<WalletDoc> {
  const body: Body<WalletDoc> = {
    version,
    balances: w.balances.map((b) => ({ correlationId: b.correlationId, pointBalance: b.pointBalance })),
    reservations: w.reservations.map(reservationFields),
  };
  if (w.pendingAudit) body.pendingAudit = w.pendingAudit.map(auditBody);
  return body;
}

export function walletFromDoc(d: WalletDoc): Wallet {
  const wallet: Wallet = {
    walletId: d._id,
    version: d.version,
    balances: d.balances.map((b) => ({ correlationId: b.correlationId, pointBalance: b.pointBalance })),
    reservations: d.reservations.map(reservationFields),
  };
  if (d.pendingAudit) wallet.pendingAudit = d.pendingAudit.map((a) => auditFromDoc({ ...a, _id: auditEntryId(a.walletId, a.walletVersion) }));
  return wallet;
}

// --- audit -----------------------------------------------------------------

function auditState(s: AuditState): AuditState {
  return { reservationAmount: s.reservationAmount, contributions: contributionsOf(s.contributions), expiresAt: s.expiresAt };
}

export function auditDoc(e: AuditEntry): AuditDoc {
  return { _id: e.id, ...auditBody(e) };
}

function auditBody(e: AuditEntry): Body<AuditDoc> {
  return {
    walletId: e.walletId,
    walletVersion: e.walletVersion,
    reservationToken: e.reservationToken,
    at: e.at,
    action: e.action,
    clientId: e.clientId,
    sessionId: e.sessionId,
    correlationId: e.correlationId,
    before: e.before ? auditState(e.before) : null,
    after: auditState(e.after),
    shares: contributionsOf(e.shares),
  };
}

export function auditFromDoc(d: AuditDoc): AuditEntry {
  return {
    id: d._id,
    walletId: d.walletId,
    walletVersion: d.walletVersion,
    at: d.at,
    action: d.action,
    clientId: d.clientId,
    sessionId: d.sessionId,
    correlationId: d.correlationId,
    reservationToken: d.reservationToken,
    before: d.before ? auditState(d.before) : null,
    after: auditState(d.after),
    shares: contributionsOf(d.shares),
  };
}
