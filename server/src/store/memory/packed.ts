import { auditEntryId, type AuditEntry, type Contribution, type ReservationRecord, type Wallet } from '../../domain/model';

/*
 * How the memory store keeps wallets and audit entries: each one packed as
 * JSON of arrays (dates as epoch milliseconds), stored as UTF-8 bytes
 * outside the JavaScript heap (a buffer per wallet, rewritten in place; the
 * audit log's chunks).
 *
 * Both are written on every update of a reservation. Kept as objects, a
 * wallet of twenty reservations is about a hundred objects that outlive the
 * young generation and die in the old one on every update, the garbage
 * collector's most expensive kind of work, and the audit trail made the old
 * generation (and with it the process) grow by several times its size.
 * Reading unpacks a fresh copy and writing packs one, so the store still
 * never shares an object with its callers.
 */

type PackedContribution = [correlationId: string, points: number];
type PackedReservation = [
  reservationToken: string,
  clientId: string,
  correlationId: string,
  identifierType: string,
  reservationAmount: number,
  contributions: PackedContribution[],
  expiresAt: number | null,
  createdAt: number | null,
  excludedFromCap: boolean,
];
type PackedWallet = [
  walletId: string,
  version: number,
  balances: PackedContribution[],
  reservations: PackedReservation[],
  /** Absent when the wallet has no `pendingAudit` (a present empty list stays a list). */
  pendingAudit?: PackedAudit[],
];

type AuditState = NonNullable<AuditEntry['before']>;
type PackedAuditState = [reservationAmount: number, contributions: PackedContribution[], expiresAt: number | null];
type PackedAudit = [
  id: string,
  walletId: string,
  walletVersion: number,
  at: number | null,
  action: AuditEntry['action'],
  clientId: string,
  sessionId: string,
  correlationId: string,
  reservationToken: string,
  before: PackedAuditState | null,
  after: PackedAuditState,
  shares: PackedContribution[],
];

/** Epoch ms; an invalid Date (NaN, which JSON cannot hold) as null. */
const time = (date: Date): number | null => {
  const ms = date.getTime();
  return Number.isNaN(ms) ? null : ms;
};
const dateOf = (ms: number | null): Date => new Date(ms ?? Number.NaN);

function packContributions(list: readonly Contribution[]): PackedContribution[] {
  const packed = new Array<PackedContribution>(list.length);
  for (let i = 0; i < list.length; i++) packed[i] = [list[i]!.correlationId, list[i]!.points];
  return packed;
}

function unpackContributions(packed: PackedContribution[]): Contribution[] {
  const list = new Array<Contribution>(packed.length);
  for (let i = 0; i < packed.length; i++) list[i] = { correlationId: packed[i]![0], points: packed[i]![1] };
  return list;
}

function packReservation(r: ReservationRecord): PackedReservation {
  return [
    r.reservationToken,
    r.clientId,
    r.correlationId,
    r.identifierType,
    r.reservationAmount,
    packContributions(r.contributions),
    time(r.expiresAt),
    time(r.createdAt),
    r.excludedFromCap,
  ];
}

function unpackReservation(p: PackedReservation): ReservationRecord {
  return {
    reservationToken: p[0],
    clientId: p[1],
    correlationId: p[2],
    identifierType: p[3],
    reservationAmount: p[4],
    contributions: unpackContributions(p[5]),
    expiresAt: dateOf(p[6]),
    createdAt: dateOf(p[7]),
    excludedFromCap: p[8],
  };
}

/** The wallet as one string, stored with `version`. */
export function packWallet(wallet: Wallet, version: number): string {
  const balances = new Array<PackedContribution>(wallet.balances.length);
  for (let i = 0; i < wallet.balances.length; i++) balances[i] = [wallet.balances[i]!.correlationId, wallet.balances[i]!.pointBalance];
  const packed: PackedWallet = [wallet.walletId, version, balances, wallet.reservations.map(packReservation)];
  if (wallet.pendingAudit !== undefined) packed.push(wallet.pendingAudit.map(packAuditEntry));
  return JSON.stringify(packed);
}

export function unpackWallet(text: string): Wallet {
  const [walletId, version, balances, reservations, pendingAudit] = JSON.parse(text) as PackedWallet;
  const list = new Array<ReservationRecord>(reservations.length);
  for (let i = 0; i < reservations.length; i++) list[i] = unpackReservation(reservations[i]!);
  const wallet: Wallet = {
    walletId,
    version,
    balances: balances.map(([correlationId, pointBalance]) => ({ correlationId, pointBalance })),
    reservations: list,
  };
  if (pendingAudit !== undefined) wallet.pendingAudit = pendingAudit.map(unpackAuditEntry);
  return wallet;
}

function packState(s: AuditState): PackedAuditState {
  return [s.reservationAmount, packContributions(s.contributions), time(s.expiresAt)];
}

function unpackState(p: PackedAuditState): AuditState {
  return { reservationAmount: p[0], contributions: unpackContributions(p[1]), expiresAt: dateOf(p[2]) };
}

function packAuditEntry(e: AuditEntry): PackedAudit {
  return [
    e.id,
    e.walletId,
    e.walletVersion,
    time(e.at),
    e.action,
    e.clientId,
    e.sessionId,
    e.correlationId,
    e.reservationToken,
    e.before === null ? null : packState(e.before),
    packState(e.after),
    packContributions(e.shares),
  ];
}

function unpackAuditEntry(p: PackedAudit): AuditEntry {
  return {
    id: p[0],
    walletId: p[1],
    walletVersion: p[2],
    at: dateOf(p[3]),
    action: p[4],
    clientId: p[5],
    sessionId: p[6],
    correlationId: p[7],
    reservationToken: p[8],
    before: p[9] === null ? null : unpackState(p[9]),
    after: unpackState(p[10]),
    shares: unpackContributions(p[11]),
  };
}

/**
 * An entry as the audit log keeps it: without its reservation token (the
 * log's index key, given back on reading) and without its id when that is
 * the usual `<walletId>@<walletVersion>` (0 in its place); a fifth smaller.
 */
type LoggedAudit = [id: string | 0, walletId: string, walletVersion: number, at: number | null, action: AuditEntry['action'], clientId: string, sessionId: string, correlationId: string, before: PackedAuditState | null, after: PackedAuditState, shares: PackedContribution[]];

export function packAudit(e: AuditEntry): string {
  const logged: LoggedAudit = [
    e.id === auditEntryId(e.walletId, e.walletVersion) ? 0 : e.id,
    e.walletId,
    e.walletVersion,
    time(e.at),
    e.action,
    e.clientId,
    e.sessionId,
    e.correlationId,
    e.before === null ? null : packState(e.before),
    packState(e.after),
    packContributions(e.shares),
  ];
  return JSON.stringify(logged);
}

export function unpackAudit(text: string, reservationToken: string): AuditEntry {
  const p = JSON.parse(text) as LoggedAudit;
  return {
    id: p[0] === 0 ? auditEntryId(p[1], p[2]) : p[0],
    walletId: p[1],
    walletVersion: p[2],
    at: dateOf(p[3]),
    action: p[4],
    clientId: p[5],
    sessionId: p[6],
    correlationId: p[7],
    reservationToken,
    before: p[8] === null ? null : unpackState(p[8]),
    after: unpackState(p[9]),
    shares: unpackContributions(p[10]),
  };
}
