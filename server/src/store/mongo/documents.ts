import type {
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

/**
 * A record's document: the record without its key, which becomes `_id`.
 * The fields are the record's own, declared once (domain/model.ts).
 */
type KeyedDoc<R, K extends keyof R> = Omit<R, K> & { _id: string };

export type ClientDoc = KeyedDoc<ClientRecord, 'clientId'>;

export type MemberDoc = KeyedDoc<MemberRecord, 'correlationId'>;

/** An API key: its digest only (unique index), never the secret. */
export type ApiKeyDoc = KeyedDoc<ApiKeyRecord, 'keyId'>;

export type SessionDoc = KeyedDoc<SessionRecord, 'tokenHash'>;

export type CatalogueItemDoc = KeyedDoc<CatalogueItemRecord, 'productCode'>;

export type RedemptionDoc = KeyedDoc<RedemptionRecord, 'redemptionId'>;

/** Keeps `voucherDefinitionId` as a field too: the listing index ends with it and sorts by it. */
export interface VoucherDefinitionDoc extends VoucherDefinitionRecord {
  _id: string; // voucherDefinitionId
}

/** A document without its key: what replaceOne and upserts take. */
export type Body<T> = Omit<T, '_id'>;

/** How a record keyed by `K` and its document map to each other (`keyedMapping`). */
interface KeyedMapping<R, K extends keyof R> {
  /** The document without its key: what replaceOne and upserts take. */
  body: (record: R) => Omit<R, K>;
  /** The whole document: what insertOne takes. */
  doc: (record: R) => KeyedDoc<R, K>;
  fromDoc: (doc: KeyedDoc<R, K>) => R;
}

/**
 * A record's mapping to and from its document, from one explicit list of
 * its other fields (`fields`), used both ways: the key becomes `_id` on the
 * way in and comes back from it on the way out.
 */
function keyedMapping<R extends Record<K, string>, K extends keyof R>(key: K, fields: (r: Omit<R, K>) => Omit<R, K>): KeyedMapping<R, K> {
  return {
    body: (record) => fields(record),
    doc: (record) => ({ _id: record[key], ...fields(record) }),
    // The cast: TypeScript cannot see that the key and the other fields make a whole R.
    fromDoc: (doc) => ({ [key]: doc._id, ...fields(doc) }) as unknown as R,
  };
}

// --- clients ---------------------------------------------------------------

/** Fields a document may lack read as null. */
export const { body: clientBody, fromDoc: clientFromDoc } = keyedMapping<ClientRecord, 'clientId'>('clientId', (c) => ({
  enabledBusinessUnits: [...c.enabledBusinessUnits],
  defaultBusinessUnit: c.defaultBusinessUnit ?? null,
  vouchersEnabled: c.vouchersEnabled,
  sessionTtlSeconds: c.sessionTtlSeconds,
  reservationDurationSeconds: c.reservationDurationSeconds,
  extendedDurationSeconds: c.extendedDurationSeconds,
  redemptionTiers: c.redemptionTiers ? [...c.redemptionTiers] : null,
  dailyRedemptionCap: c.dailyRedemptionCap ?? null,
}));

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

/** A household a document lacks reads as null. */
export const { body: memberBody, fromDoc: memberFromDoc } = keyedMapping<MemberRecord, 'correlationId'>('correlationId', (m) => ({
  walletId: m.walletId,
  householdId: m.householdId ?? null,
  eligibleForRedemption: m.eligibleForRedemption,
  privileges: [...m.privileges],
}));

// --- sessions --------------------------------------------------------------

/** `walletId` only when it is a string: sessions of older releases lack it. */
export const { doc: sessionDoc, fromDoc: sessionFromDoc } = keyedMapping<SessionRecord, 'tokenHash'>('tokenHash', (s) => ({
  sessionId: s.sessionId,
  clientId: s.clientId,
  keyId: s.keyId,
  correlationId: s.correlationId,
  identifierType: s.identifierType,
  expiresAt: s.expiresAt,
  ...(typeof s.walletId === 'string' && { walletId: s.walletId }),
}));

// --- catalogue and redemptions --------------------------------------------

export const { body: catalogueItemBody, fromDoc: catalogueItemFromDoc } = keyedMapping<CatalogueItemRecord, 'productCode'>('productCode', (i) => ({
  catalogueItemId: i.catalogueItemId,
  catalogueItemName: i.catalogueItemName,
  redemptionType: i.redemptionType,
  pointsAmount: i.pointsAmount,
  messages: i.messages,
}));

export const { body: redemptionBody, fromDoc: redemptionFromDoc } = keyedMapping<RedemptionRecord, 'redemptionId'>('redemptionId', (r) => ({
  redeemerId: r.redeemerId,
  redemptionName: r.redemptionName,
}));

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
