import { randomUUID } from 'node:crypto';

/**
 * Records of the loyalty domain, as the store keeps them. Plain data: no
 * Express, no MongoDB types. Dates are `Date`; points are whole numbers.
 */

export const identifierTypes = ['CARD_NUMBER', 'EMAIL', 'PHONE_NUMBER', 'MEMBER_ID'] as const;
export type IdentifierType = (typeof identifierTypes)[number];

/** A client application and its configuration; its API keys are records of their own (`ApiKeyRecord`). */
export interface ClientRecord {
  clientId: string;
  enabledBusinessUnits: string[];
  defaultBusinessUnit: string | null;
  vouchersEnabled: boolean;
  sessionTtlSeconds: number;
  reservationDurationSeconds: number;
  extendedDurationSeconds: number;
  /** Allowed reservation amounts; null means any amount. */
  redemptionTiers: number[] | null;
  /** Points a member may reserve per UTC day through this client; null means no cap. */
  dailyRedemptionCap: number | null;
}

/**
 * The two kinds of API key. A *secret* key is for a partner's servers: it may
 * start member sessions, and is refused from a web page. A *publishable* key
 * is for web pages, which cannot keep a secret: it works only from a page on
 * one of its origins, on Operations A and B, with a session a secret key
 * started; it never starts one (key-use.ts).
 */
export const apiKeyKinds = ['secret', 'publishable'] as const;
export type ApiKeyKind = (typeof apiKeyKinds)[number];

/**
 * One API key of a client. A client may hold several; any live one
 * authenticates it. The secret is never stored, only its digest; `keyId` is
 * public (it may appear in logs and listings).
 */
export interface ApiKeyRecord {
  keyId: string;
  clientId: string;
  kind: ApiKeyKind;
  /** A publishable key's origins (origins.ts), at least one; a secret key's: none. */
  origins: string[];
  /** SHA-256 of the whole key, hex. */
  digest: string;
  createdAt: Date;
  /** When it stops authenticating (a rolled key's grace); null: never. */
  expiresAt: Date | null;
  /** When it was revoked; null: not revoked. */
  revokedAt: Date | null;
}

/** A key authenticates while it is neither revoked nor expired at `now`. */
export function isLiveKey(key: ApiKeyRecord, now: Date): boolean {
  return key.revokedAt === null && (key.expiresAt === null || key.expiresAt.getTime() > now.getTime());
}

/** Static facts of a member; its balance lives in its wallet. */
export interface MemberRecord {
  correlationId: string;
  /** The wallet holding this member's balance: its household's, or its own. */
  walletId: string;
  householdId: string | null;
  eligibleForRedemption: boolean;
  privileges: string[];
}

/**
 * A member session as the checks and the operations see it, whichever
 * token carried it: a sealed token (session-tokens.ts), which the server
 * opens without a read, or a token of an earlier release, whose record the
 * store keeps (`SessionRecord`).
 */
export interface MemberSession {
  sessionId: string;
  clientId: string;
  /** The API key that started it: the session ends when that key is revoked or expires. */
  keyId: string;
  correlationId: string;
  identifierType: IdentifierType;
  expiresAt: Date;
  /**
   * The member's wallet when the session started: where Operation B looks
   * first (it reads the member with the wallet and follows a member that
   * moved). Absent on sessions started before it was recorded.
   */
  walletId?: string;
}

/** A stored session, by its token's digest: how sessions were kept before sealed tokens (still read until they expire). */
export interface SessionRecord extends MemberSession {
  /** SHA-256 of the session token, hex. */
  tokenHash: string;
}

/**
 * A key that seals session tokens (AES-256-GCM): kept in the store, shared
 * by every process. The newest key whose `signsFrom` has come seals new
 * tokens; every key verifies until `verifiesUntil` (null: while it is the
 * newest), then it goes.
 */
export interface SessionKeyRecord {
  /** Public id, in clear in every token it sealed. */
  kid: string;
  /** 32 random bytes. */
  secret: Uint8Array;
  createdAt: Date;
  /** From when it seals new tokens: late enough for every process to know it first. */
  signsFrom: Date;
  /** Until when it still opens tokens (the longest session lifetime after its successor began sealing); null: no end yet. */
  verifiesUntil: Date | null;
}

/** A session its member ended (signed out) before its expiry: kept until then, so that its token stays refused. */
export interface EndedSessionRecord {
  sessionId: string;
  endedAt: Date;
  /** When the session's token expires: the record can go after it. */
  expiresAt: Date;
}

export interface CatalogueItemMessages {
  promptText?: string;
  receiptTextLong?: string;
  receiptTextShort?: string;
}

export interface CatalogueItemRecord {
  productCode: string;
  catalogueItemId: string;
  catalogueItemName: string;
  redemptionType: string;
  pointsAmount: number;
  messages: Record<string, CatalogueItemMessages>;
}

export interface RedemptionRecord {
  redemptionId: string;
  redeemerId: string;
  redemptionName: string;
}

/** The one status Operation A lists: definitions in any other are not shown to members. */
export const publishedStatus = 'PUBLISHED';

export interface VoucherDefinitionRecord {
  voucherDefinitionId: string;
  adminId: string;
  businessUnit: string;
  status: string;
  usageChannels?: string[];
  definitionName: string;
  rewardType: string;
  rewardMetadata: { amount: number; scopeType: string; unit?: string; [key: string]: unknown };
  expiryRule: { type: string; rollingDays?: number };
  creative: Record<string, { shortDescription1?: string; smallImageURI?: string }>;
  pointValue: number | null;
  redeemableValue: number | null;
  systemOfRecord?: string;
  version?: number;
  basedOn?: string | null;
  features?: string[];
}

export interface Contribution {
  correlationId: string;
  points: number;
}

export interface ReservationRecord {
  reservationToken: string;
  clientId: string;
  /** The member the reservation was made for (the path member). */
  correlationId: string;
  identifierType: string;
  reservationAmount: number;
  /** Who funds it; points sum to reservationAmount. */
  contributions: Contribution[];
  expiresAt: Date;
  createdAt: Date;
  /** Made with isExcludedFromCap: true; does not count towards the daily cap. */
  excludedFromCap: boolean;
}

/** A reservation exists until it expires: from `expiresAt` on, it counts as not existing. */
export function isLiveReservation(reservation: Pick<ReservationRecord, 'expiresAt'>, now: Date): boolean {
  return reservation.expiresAt.getTime() > now.getTime();
}

export interface MemberBalance {
  correlationId: string;
  pointBalance: number;
}

/**
 * A member's move from one wallet to another under way, as each wallet
 * records it (an operator's load moves members: features/load/member-move-steps.ts). In
 * the wallet it leaves: `leaving` while the load fences it (until `until`:
 * nothing new may draw on its points there), then `left` once the move is
 * decided there (its balance gone; its requests follow `walletId`). In the
 * wallet it joins: `arriving`, its balance there not yet counted for the
 * others, until the load finishes the move.
 */
export type MemberMove =
  | { correlationId: string; state: 'leaving'; walletId: string; until: Date }
  | { correlationId: string; state: 'left'; walletId: string }
  | { correlationId: string; state: 'arriving'; walletId: string };

/**
 * The unit of consistency: the balances of one household (or one member
 * without a household) and every reservation they fund. Each change is one
 * compare-and-set on `version`, so points are conserved without
 * multi-document transactions.
 */
export interface Wallet {
  walletId: string;
  version: number;
  balances: MemberBalance[];
  reservations: ReservationRecord[];
  /** Members moving in or out (see `MemberMove`); absent or empty: none. */
  moves?: MemberMove[];
  /**
   * On a save only: the audit entry of the change this save makes. The store
   * writes it in the same compare-and-set as the change and delivers it to
   * the audit trail afterwards (its outbox), so a change never exists
   * without its entry. A loaded wallet has none.
   */
  audit?: AuditEntry;
}

/** What names a reservation: its token, for the client that made it, on its member's path. */
export interface ReservationKey {
  clientId: string;
  correlationId: string;
  reservationToken: string;
}

/** Whether `a` and `b` name the same reservation (a reservation record is its own key). */
export function sameKey(a: ReservationKey, b: ReservationKey): boolean {
  return a.reservationToken === b.reservationToken && a.clientId === b.clientId && a.correlationId === b.correlationId;
}

/**
 * The parts of a wallet one reservation change needs, read without the
 * wallet's other reservations: its balances, running totals and the
 * reservation stored under one key.
 */
export interface WalletSlice {
  walletId: string;
  version: number;
  balances: MemberBalance[];
  totals: WalletTotals;
  /** Members moving in or out (see `MemberMove`); absent: none. */
  moves?: MemberMove[];
  /** The reservation stored under the key, expired or not; null when there is none. */
  reservation: ReservationRecord | null;
  /** The member asked for with the slice (`withMember`), as stored now; null when there is none. */
  member?: MemberRecord | null;
}

/**
 * One reservation change (Operation B), written with the wallet's new totals
 * and the change's audit entry in one compare-and-set on the wallet's
 * version. How much of the wallet that write touches is the store's choice.
 */
export interface ReservationChange {
  walletId: string;
  /** Replaces the reservation stored under its key, or is added when there is none. */
  reservation: ReservationRecord;
  /** The totals of the wallet's live reservations once the change is made. */
  totals: WalletTotals;
  /** The change's audit entry, delivered to the trail by the store (see `Wallet.audit`). */
  audit: AuditEntry | null;
  /**
   * The stored reservations the change found expired (they count as not
   * existing, and `totals` leaves them out): removed with the change.
   * Absent or empty: none (the wallet's totals vouched that none had).
   */
  expired?: readonly ReservationKey[];
}

/** A reservation as an audit entry records it, before or after a change. */
export interface AuditState {
  reservationAmount: number;
  contributions: Contribution[];
  expiresAt: Date;
}

/** One reservation change, as the audit trail records it. */
export interface AuditEntry {
  /** Unique (`newAuditEntryId`), made with the change: delivering an entry twice stores it once. */
  id: string;
  walletId: string;
  /** The wallet version this change made; orders the changes of one wallet. */
  walletVersion: number;
  at: Date;
  action: 'CREATE' | 'UPDATE';
  clientId: string;
  sessionId: string;
  correlationId: string;
  reservationToken: string;
  before: AuditState | null;
  after: AuditState;
  /** Points returned (negative: taken) per member by this change. */
  shares: Contribution[];
}

/**
 * A new audit entry's id: `<walletId>@<walletVersion>.` and a random UUID
 * (122 random bits, which Node draws from a pool it refills: `randomBytes`
 * would ask the system for every change). The wallet and version say where
 * it comes from; the random part keeps it unique when a wallet reaches a
 * version again whose entry is already in the trail (a wallet reset, or
 * restored from a backup, while the trail is kept), where the new entry
 * would otherwise be taken for the old one, as delivered. Made once per
 * change and carried with it (the outbox), so every delivery of the entry
 * uses the same id, and stores it once.
 */
export function newAuditEntryId(walletId: string, walletVersion: number): string {
  return `${auditEntryIdPrefix(walletId, walletVersion)}${randomUUID()}`;
}

/** What every id `newAuditEntryId` makes for this wallet and version starts with. */
export function auditEntryIdPrefix(walletId: string, walletVersion: number): string {
  return `${walletId}@${walletVersion}.`;
}

/** Wallet id of a member: its household's, or its own. */
export function walletIdOf(correlationId: string, householdId: string | null): string {
  return householdId ? `household:${householdId}` : `${memberWalletPrefix}${correlationId}`;
}

const memberWalletPrefix = 'member:';

/** The member whose own wallet this is (its id holds the member's); null for a household's. */
export function memberOfWalletId(walletId: string): string | null {
  return walletId.startsWith(memberWalletPrefix) ? walletId.slice(memberWalletPrefix.length) : null;
}

// --- wallet totals (computed and kept equal to the reservations by wallet-totals.ts) ---

/** Points one member holds in the wallet's reservations. */
export interface HeldPoints {
  correlationId: string;
  points: number;
}

/** Points reserved by one client for one member on one UTC day, cap-exempt reservations aside (the daily cap counts these). */
export interface DailyReserved {
  /** `YYYY-MM-DD`, UTC, of the reservations' creation. */
  day: string;
  clientId: string;
  correlationId: string;
  points: number;
}

export interface WalletTotals {
  /** Members holding more than 0 points, by correlationId. */
  held: HeldPoints[];
  /** Entries over 0 points, by day, client and member. */
  daily: DailyReserved[];
  /** Reservations stored (a released one, at 0 points, too). */
  count: number;
  /** No stored reservation expires before this; null when there is none. A lower bound: extending the first to expire leaves it earlier than it could be. */
  nextExpiry: Date | null;
}
