import { auditEntryIdPrefix, type AuditEntry, type AuditState, type Contribution } from '../../domain/model';

/*
 * How the memory store's audit log keeps its entries: each one packed as
 * JSON of arrays (dates as epoch milliseconds), stored as UTF-8 bytes in the
 * log's chunks, outside the JavaScript heap (see audit-log.ts). The trail
 * only grows; kept as objects, it made the old generation (and with it the
 * process) grow by several times its size.
 */

type PackedContribution = [correlationId: string, points: number];
type PackedAuditState = [reservationAmount: number, contributions: PackedContribution[], expiresAt: number | null];

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

function packState(s: AuditState): PackedAuditState {
  return [s.reservationAmount, packContributions(s.contributions), time(s.expiresAt)];
}

function unpackState(p: PackedAuditState): AuditState {
  return { reservationAmount: p[0], contributions: unpackContributions(p[1]), expiresAt: dateOf(p[2]) };
}

/**
 * An entry as the audit log keeps it: without its reservation token (the
 * log's index key, given back on reading), and of an id of the usual form
 * (`newAuditEntryId`) only its random part, in an array; a fifth smaller.
 */
type LoggedAudit = [id: string | [random: string], walletId: string, walletVersion: number, at: number | null, action: AuditEntry['action'], clientId: string, sessionId: string, correlationId: string, before: PackedAuditState | null, after: PackedAuditState, shares: PackedContribution[]];

/** Whether the entry's id is of the usual form: its wallet's and version's prefix, then its random part. */
export function hasUsualId(e: AuditEntry): boolean {
  return e.id.startsWith(auditEntryIdPrefix(e.walletId, e.walletVersion));
}

/** `usual`: `hasUsualId(e)` (the caller has usually checked already). */
export function packAudit(e: AuditEntry, usual = hasUsualId(e)): string {
  const logged: LoggedAudit = [
    usual ? [e.id.slice(auditEntryIdPrefix(e.walletId, e.walletVersion).length)] : e.id,
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
    id: typeof p[0] === 'string' ? p[0] : `${auditEntryIdPrefix(p[1], p[2])}${p[0][0]}`,
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
