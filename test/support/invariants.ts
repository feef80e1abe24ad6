import type { AuditEntry, Contribution, ReservationRecord, Wallet, WalletSlice } from '../../server/src/domain/model';
import { totalsOf } from '../../server/src/domain/wallet-totals';

/**
 * The money rules, checked on the store's state (not on what the API said):
 *
 * conservation: balances never change (the API only reserves points); every
 *   reservation is funded by whole, positive contributions that sum to its
 *   amount; no member holds more than its balance in active reservations
 *   (available is never negative); no client passes its daily cap.
 *
 * audit: every change of a reservation is in the audit trail, and the trail
 *   of each reservation is one unbroken chain from its fixture state (or its
 *   creation) to its stored state, each entry's `before` being the previous
 *   entry's `after` and its shares exactly the points that moved per member.
 *   A lost update (two writers both starting from the same state) breaks the
 *   chain; a change without its entry leaves the chain short of the stored state.
 */

export interface StateCheckInput {
  wallets: Map<string, Wallet | null>;
  initial: Map<string, Wallet>;
  now: Date;
  /** Daily cap per client id; clients not listed have none. */
  caps: Record<string, number | null>;
}

const isActive = (r: ReservationRecord, now: Date) => r.expiresAt.getTime() > now.getTime();
const utcDay = (d: Date) => d.toISOString().slice(0, 10);
export const reservationKey = (r: { clientId: string; correlationId: string; reservationToken: string }) =>
  `${r.clientId}|${r.correlationId}|${r.reservationToken}`;

/**
 * The running totals a store keeps with a wallet are those of its stored
 * reservations (`totalsOf`): held points, daily sums and the count exactly,
 * the next expiry no later than the first.
 */
export function totalsProblems(walletId: string, wallet: Wallet | null, slice: WalletSlice | null): string[] {
  if (!wallet || !slice?.totals) return wallet || slice ? [`${walletId}: stored without totals`] : [];
  const expected = totalsOf(wallet.reservations);
  const { nextExpiry, ...stored } = slice.totals;
  const { nextExpiry: first, ...exact } = expected;
  const problems: string[] = [];
  if (JSON.stringify(stored) !== JSON.stringify(exact)) problems.push(`${walletId}: totals ${JSON.stringify(stored)}, reservations give ${JSON.stringify(exact)}`);
  if (first !== null && (nextExpiry === null || nextExpiry.getTime() > first.getTime())) problems.push(`${walletId}: next expiry ${String(nextExpiry)} after the first ${first.toISOString()}`);
  return problems;
}

export function conservationProblems({ wallets, initial, now, caps }: StateCheckInput): string[] {
  const problems: string[] = [];
  for (const [walletId, start] of initial) {
    const wallet = wallets.get(walletId);
    if (!wallet) {
      problems.push(`${walletId}: wallet is gone`);
      continue;
    }
    const balances = new Map(wallet.balances.map((b) => [b.correlationId, b.pointBalance]));
    for (const b of start.balances) {
      if (balances.get(b.correlationId) !== b.pointBalance) {
        problems.push(`${walletId}: balance of ${b.correlationId} is ${balances.get(b.correlationId)}, was ${b.pointBalance}`);
      }
    }
    if (wallet.balances.length !== start.balances.length) problems.push(`${walletId}: ${wallet.balances.length} balances, was ${start.balances.length}`);

    const held = new Map<string, number>();
    const keys = new Set<string>();
    const reservedToday = new Map<string, number>();
    for (const r of wallet.reservations) {
      const sum = r.contributions.reduce((total, c) => total + c.points, 0);
      if (!Number.isSafeInteger(r.reservationAmount) || r.reservationAmount < 0) problems.push(`${walletId}: ${r.reservationToken} amount ${r.reservationAmount}`);
      if (sum !== r.reservationAmount) problems.push(`${walletId}: ${r.reservationToken} contributions sum to ${sum}, amount is ${r.reservationAmount}`);
      for (const c of r.contributions) {
        if (!Number.isSafeInteger(c.points) || c.points <= 0) problems.push(`${walletId}: ${r.reservationToken} contribution ${c.correlationId}=${c.points}`);
        if (!balances.has(c.correlationId)) problems.push(`${walletId}: ${r.reservationToken} funded by ${c.correlationId}, not of this wallet`);
      }
      if (!isActive(r, now)) continue;
      const key = reservationKey(r);
      if (keys.has(key)) problems.push(`${walletId}: two active reservations ${key}`);
      keys.add(key);
      for (const c of r.contributions) held.set(c.correlationId, (held.get(c.correlationId) ?? 0) + c.points);
      if (!r.excludedFromCap && utcDay(r.createdAt) === utcDay(now)) {
        const capKey = `${r.clientId}|${r.correlationId}`;
        reservedToday.set(capKey, (reservedToday.get(capKey) ?? 0) + r.reservationAmount);
      }
    }
    for (const [member, points] of held) {
      const balance = balances.get(member) ?? 0;
      if (points > balance) problems.push(`${walletId}: ${member} holds ${points} of ${balance} (available ${balance - points})`);
    }
    for (const [capKey, points] of reservedToday) {
      const cap = caps[capKey.split('|')[0] ?? ''] ?? null;
      // A fixture may start above a cap; then nothing may be added to it.
      const initialToday = start.reservations
        .filter((r) => reservationKey(r).startsWith(`${capKey}|`) && isActive(r, now) && !r.excludedFromCap && utcDay(r.createdAt) === utcDay(now))
        .reduce((total, r) => total + r.reservationAmount, 0);
      if (cap !== null && points > Math.max(cap, initialToday)) problems.push(`${walletId}: ${capKey} reserved ${points} today, cap ${cap}`);
    }
  }
  return problems;
}

interface Snapshot {
  reservationAmount: number;
  contributions: Contribution[];
  expiresAt: Date;
}

const sameSnapshot = (a: Snapshot, b: Snapshot) =>
  a.reservationAmount === b.reservationAmount &&
  a.expiresAt.getTime() === b.expiresAt.getTime() &&
  JSON.stringify(a.contributions) === JSON.stringify(b.contributions);

const snapshotOf = (r: ReservationRecord): Snapshot => ({
  reservationAmount: r.reservationAmount,
  contributions: r.contributions,
  expiresAt: r.expiresAt,
});

const pointsOf = (contributions: Contribution[]) => new Map(contributions.map((c) => [c.correlationId, c.points]));

/** Per member, points that went back to it (negative: taken) between two states. */
function expectedShares(before: Snapshot | null, after: Snapshot): Map<string, number> {
  const was = pointsOf(before?.contributions ?? []);
  const is = pointsOf(after.contributions);
  const moved = new Map<string, number>();
  for (const id of new Set([...was.keys(), ...is.keys()])) {
    const delta = (was.get(id) ?? 0) - (is.get(id) ?? 0);
    if (delta !== 0) moved.set(id, delta);
  }
  return moved;
}

export interface AuditSummary {
  problems: string[];
  /** Points taken into reservations by creations. */
  reserved: number;
  /** Points given back by lowerings. */
  returned: number;
  entries: number;
}

/**
 * Checks the audit trail against the stored state. `audit` is every entry
 * written since the state was `initial` (any order: concurrent requests may
 * append in another order than they saved).
 */
export function auditProblems(wallets: Map<string, Wallet | null>, initial: Map<string, Wallet>, audit: AuditEntry[]): AuditSummary {
  const problems: string[] = [];
  let reserved = 0;
  let returned = 0;

  const byKey = new Map<string, AuditEntry[]>();
  for (const entry of audit) {
    const key = reservationKey(entry);
    byKey.set(key, [...(byKey.get(key) ?? []), entry]);

    const expected = expectedShares(entry.before, entry.after);
    const shares = new Map(entry.shares.filter((s) => s.points !== 0).map((s) => [s.correlationId, s.points]));
    if (JSON.stringify([...expected].sort()) !== JSON.stringify([...shares].sort())) {
      problems.push(`audit ${key}: shares ${JSON.stringify([...shares])} but the contributions moved ${JSON.stringify([...expected])}`);
    }
    if (entry.action === 'CREATE' && entry.before !== null) problems.push(`audit ${key}: CREATE with a before`);
    if (entry.action === 'UPDATE' && entry.before === null) problems.push(`audit ${key}: UPDATE without a before`);
    if (!entry.sessionId || !entry.clientId) problems.push(`audit ${key}: no session or client`);
    for (const s of entry.shares) {
      if (s.points < 0) reserved -= s.points;
      else returned += s.points;
    }
  }

  const stored = new Map<string, ReservationRecord>();
  const start = new Map<string, ReservationRecord>();
  for (const wallet of wallets.values()) for (const r of wallet?.reservations ?? []) stored.set(reservationKey(r), r);
  for (const wallet of initial.values()) for (const r of wallet.reservations) start.set(reservationKey(r), r);

  for (const key of new Set([...stored.keys(), ...byKey.keys()])) {
    const entries = [...(byKey.get(key) ?? [])];
    let current: Snapshot | null = start.has(key) ? snapshotOf(start.get(key)!) : null;
    // Walk the chain: each next entry starts where the previous one ended.
    while (entries.length > 0) {
      const from = current;
      const index = entries.findIndex((e) =>
        e.before === null
          ? // a creation: nothing was there, or what was there had expired
            from === null || from.expiresAt.getTime() <= e.at.getTime()
          : from !== null && sameSnapshot(e.before, from),
      );
      if (index < 0) {
        problems.push(
          `audit ${key}: broken chain (a lost update or a duplicate): from ${JSON.stringify(current)} no entry continues; left: ${JSON.stringify(entries.map((e) => [e.before?.reservationAmount ?? null, e.after.reservationAmount]))}`,
        );
        break;
      }
      current = entries.splice(index, 1)[0]!.after;
    }
    const now = stored.get(key);
    if (now && current && !sameSnapshot(snapshotOf(now), current)) {
      problems.push(`audit ${key}: stored ${JSON.stringify(snapshotOf(now))} but the trail ends at ${JSON.stringify(current)} (a change without its audit entry)`);
    }
    if (now && !current) problems.push(`audit ${key}: stored but never audited nor in the fixture`);
  }
  return { problems, reserved, returned, entries: audit.length };
}
