import { hash } from 'node:crypto';
import type { Document } from 'mongodb';
import { memberOfWalletId, type AuditEntry, type AuditState, type Contribution, type MemberBalance, type MemberMove, type ReservationKey, type ReservationRecord } from '../../../domain/model';
import type { WalletTotals } from '../../../domain/wallet-totals';
import type { Body } from '../documents';

/*
 * The documents of the wallets, their reservations and the audit trail,
 * and their explicit mapping to and from records, as ../documents.ts maps
 * the other collections'.
 */

/**
 * A wallet: balances, the running totals of its reservations, and the
 * outbox of the change that made this version until that is known to be
 * delivered. Its reservations are documents of their own (`ReservationDoc`),
 * so that a change reads and writes small documents whatever the wallet holds.
 */
export interface WalletDoc {
  _id: string; // walletId
  /** `sweepBucketOf(_id)`: the first part of the wallets' shard key (../shard-plan.ts). */
  bucket: number;
  version: number;
  balances: MemberBalance[];
  /** Members moving in or out (`MemberMove`); absent when none. */
  moves?: MemberMove[];
  /** `totalsOf` the wallet's reservations. */
  totals: WalletTotals;
  outbox?: OutboxDoc;
}

/**
 * What the change that made a wallet's version writes to other collections,
 * carried in the wallet's own compare-and-set and delivered after it
 * (outbox.ts): the truth for those documents until they hold it.
 */
export interface OutboxDoc {
  /** When the change was saved: the sweep delivers an outbox left longer than its grace. */
  at: Date;
  /** The reservation documents the change wrote. */
  reservations: ReservationWrite[];
  /** The change's audit entry; delivered last, so its presence in the trail says the outbox is delivered. */
  audit: AuditDoc | null;
  /** Set by the sweep when a delivery failed: it takes the outbox again only then (outbox-sweep.ts). */
  retryAt?: Date;
  /** Deliveries of it that failed, by the sweep. */
  failures?: number;
}

/** One reservation as a change left it: its new state, or null when the change removed it. */
export interface ReservationWrite {
  key: ReservationKey;
  reservation: ReservationRecord | null;
  /** Set when the change added it (a whole save knows): its delivery first tries an insert. */
  created?: true;
}

/**
 * A reservation of a wallet, keyed by wallet and reservation key. It holds
 * the version of the wallet change that wrote it, so a late delivery of an
 * older change never overwrites a newer one; a removed reservation stays as a
 * tombstone (`removedAt` with the wallet and version that removed it) for a
 * day (TTL index), for the same reason.
 */
export type ReservationDoc = { _id: string } & ReservationDocBody;

/** A reservation document without its `_id`. */
export type ReservationDocBody = { walletId: string; walletVersion: number } & (ReservationRecord | { removedAt: Date });

export interface AuditDoc {
  _id: string; // `newAuditEntryId`, made with the change: delivering the same entry twice stores it once
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

function contributionsOf(contributions: Contribution[]): Contribution[] {
  return contributions.map((c) => ({ correlationId: c.correlationId, points: c.points }));
}

export function reservationFields(r: ReservationRecord): ReservationRecord {
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

export function balanceFields(b: MemberBalance): MemberBalance {
  return { correlationId: b.correlationId, pointBalance: b.pointBalance };
}

export function moveFields(m: MemberMove): MemberMove {
  return m.state === 'leaving'
    ? { correlationId: m.correlationId, state: m.state, walletId: m.walletId, until: m.until }
    : { correlationId: m.correlationId, state: m.state, walletId: m.walletId };
}

/** A wallet document's moves as a record carries them: absent when there are none. */
export function movesOf(doc: Pick<WalletDoc, 'moves'>): { moves?: MemberMove[] } {
  return doc.moves && doc.moves.length > 0 ? { moves: doc.moves.map(moveFields) } : {};
}

export function totalsFields(t: WalletTotals): WalletTotals {
  return {
    held: t.held.map((h) => ({ correlationId: h.correlationId, points: h.points })),
    daily: t.daily.map((d) => ({ day: d.day, clientId: d.clientId, correlationId: d.correlationId, points: d.points })),
    count: t.count,
    nextExpiry: t.nextExpiry,
  };
}

/** Sweep buckets of the wallets: the outbox sweep asks each in turn, so that each query targets its shards. */
export const sweepBuckets = 16;

/** The wallet's bucket: from a hash of its id, so wallets spread evenly and never by time. */
export function sweepBucketOf(walletId: string): number {
  return Number.parseInt(hash('sha256', walletId, 'hex').slice(0, 8), 16) % sweepBuckets;
}

/** The filter of one wallet: its whole shard key (bucket and id). */
export function walletFilter(walletId: string): { bucket: number; _id: string } {
  return { bucket: sweepBucketOf(walletId), _id: walletId };
}

/**
 * `_id` of a reservation document: the wallet and the reservation's key,
 * each part length-prefixed, so that distinct keys never meet whatever
 * characters their parts hold.
 */
export function reservationDocId(walletId: string, key: ReservationKey): string {
  return [walletId, key.clientId, key.correlationId, key.reservationToken].map((part) => `${part.length}:${part}`).join('');
}

/**
 * Every reservation document of a wallet, as a range of `_id` (the
 * reservations' shard key): their ids all start with the wallet's part,
 * `<length>:<walletId>`, which no other wallet's ids start with (the length
 * fixes where the wallet id ends), and go on with a digit.
 */
export function reservationIdsOf(walletId: string): { $gte: string; $lt: string } {
  const prefix = `${walletId.length}:${walletId}`;
  return { $gte: prefix, $lt: `${prefix};` };
}

/** What a reservation document holds, `_id` aside (replaceOne takes it from the filter). */
export function reservationDocBody(walletId: string, walletVersion: number, r: ReservationRecord | null, now: Date): ReservationDocBody {
  return r ? { walletId, walletVersion, ...reservationFields(r) } : { walletId, walletVersion, removedAt: now };
}

/** The reservation a document holds; null for a tombstone. */
export function reservationFromDoc(d: ReservationDoc): ReservationRecord | null {
  return 'removedAt' in d ? null : reservationFields(d);
}

export function keyOfReservation(r: ReservationKey): ReservationKey {
  return { clientId: r.clientId, correlationId: r.correlationId, reservationToken: r.reservationToken };
}

export function reservationWriteDocs(writes: readonly ReservationWrite[]): ReservationWrite[] {
  return writes.map(reservationWriteFields);
}

export function reservationWritesFromDocs(writes: readonly ReservationWrite[] | undefined): ReservationWrite[] {
  return (writes ?? []).map(reservationWriteFields);
}

function reservationWriteFields(w: ReservationWrite): ReservationWrite {
  const write: ReservationWrite = { key: keyOfReservation(w.key), reservation: w.reservation ? reservationFields(w.reservation) : null };
  if (w.created === true && w.reservation) write.created = true;
  return write;
}

/**
 * Every member an outbox names: the wallet's own member, the reservations'
 * members and funders, the audit entry's member and shares. Its delivery's
 * failure is marked with them (outbox.ts): the error may quote them, and
 * the log shows them only as LOG_MEMBER_IDS says. Read as stored, whatever
 * it lacks: marking a failure must never fail in its place.
 */
export function outboxMemberIds(walletId: string, outbox: OutboxDoc): string[] {
  const ids: string[] = [];
  const member = memberOfWalletId(walletId);
  if (member !== null) ids.push(member);
  const named = (value: { correlationId?: unknown } | null | undefined) => {
    if (typeof value?.correlationId === 'string') ids.push(value.correlationId);
  };
  for (const write of outbox.reservations ?? []) {
    named(write.key);
    for (const c of write.reservation?.contributions ?? []) named(c);
  }
  const audit = outbox.audit;
  named(audit);
  for (const c of [...(audit?.shares ?? []), ...(audit?.before?.contributions ?? []), ...(audit?.after?.contributions ?? [])]) named(c);
  return ids;
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

// --- whether an outbox is delivered ----------------------------------------

/** A wallet as read with the `$lookup` of `deliveredLookup`: `delivered` holds its outbox's entry once it is in the trail. */
export type WalletWithDelivery = WalletDoc & { delivered?: Document[] };

/**
 * Aggregation stages that tell, with a wallet, whether its outbox is
 * delivered: its audit entry looked up in the trail by `_id` (the equality
 * form of `$lookup`, which every server answers from the `_id` index), with
 * only the `_id` kept.
 */
export function deliveredLookup(audit: string): Document[] {
  return [
    { $lookup: { from: audit, localField: 'outbox.audit._id', foreignField: '_id', as: 'delivered' } },
    { $project: { 'delivered.walletId': 0, 'delivered.before': 0, 'delivered.after': 0, 'delivered.shares': 0 } },
  ];
}

/** True when `doc` has no outbox, or its audit entry is in the trail (as read with `deliveredLookup`). */
export function isDelivered(doc: WalletWithDelivery): boolean {
  return !doc.outbox || (doc.outbox.audit !== null && (doc.delivered?.length ?? 0) > 0);
}
