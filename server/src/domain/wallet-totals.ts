import type { ReservationRecord } from './model';

/*
 * Running totals of a wallet's reservations, stored with the wallet so that a
 * change to one reservation reads and writes that reservation and these
 * totals only, whatever else the wallet holds (Operation B's cost does not
 * grow with the wallet). `totalsOf` defines them; a change updates them with
 * `withChange`; both sides of every store keep them equal to `totalsOf` of
 * the reservations stored.
 *
 * Every reservation the wallet stores counts, expired or not: expiry needs a
 * clock, the totals do not. Once `nextExpiry` has passed they may include an
 * expired reservation (they are stale), and the reservation service works on
 * the whole wallet instead, dropping what expired.
 */

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

export const noTotals: WalletTotals = Object.freeze({ held: [], daily: [], count: 0, nextExpiry: null }) as WalletTotals;

/** The UTC day of a date, as `YYYY-MM-DD`. */
export function utcDay(date: Date): string {
  return date.toISOString().slice(0, 10);
}

/** The totals of these reservations. */
export function totalsOf(reservations: readonly ReservationRecord[]): WalletTotals {
  const held = new Map<string, number>();
  const daily = new Map<string, DailyReserved>();
  let nextExpiry: number | null = null;
  for (const r of reservations) {
    for (const c of r.contributions) held.set(c.correlationId, (held.get(c.correlationId) ?? 0) + c.points);
    if (!r.excludedFromCap) addDaily(daily, r, r.reservationAmount);
    const expiry = r.expiresAt.getTime();
    if (nextExpiry === null || expiry < nextExpiry) nextExpiry = expiry;
  }
  return canonical(held, daily, reservations.length, nextExpiry);
}

/**
 * The totals after `before` (null: none) became `after` (null: removed).
 * Totals that are correct for the stored reservations stay correct.
 */
export function withChange(totals: WalletTotals, before: ReservationRecord | null, after: ReservationRecord | null): WalletTotals {
  const held = new Map(totals.held.map((h) => [h.correlationId, h.points]));
  const daily = new Map(totals.daily.map((d) => [dailyKey(d.day, d.clientId, d.correlationId), { ...d }]));
  for (const [r, sign] of [[before, -1], [after, 1]] as const) {
    if (!r) continue;
    for (const c of r.contributions) held.set(c.correlationId, (held.get(c.correlationId) ?? 0) + sign * c.points);
    if (!r.excludedFromCap) addDaily(daily, r, sign * r.reservationAmount);
  }
  const count = totals.count - (before ? 1 : 0) + (after ? 1 : 0);
  const earliest = [totals.nextExpiry?.getTime(), after?.expiresAt.getTime()].filter((t): t is number => t !== undefined);
  const nextExpiry = count === 0 ? null : earliest.length > 0 ? Math.min(...earliest) : null;
  return canonical(held, daily, count, nextExpiry);
}

/** Whether the totals may include an expired reservation at `now`. */
export function isStale(totals: WalletTotals, now: Date): boolean {
  return totals.nextExpiry !== null && totals.nextExpiry.getTime() <= now.getTime();
}

export function heldOf(totals: WalletTotals, correlationId: string): number {
  return totals.held.find((h) => h.correlationId === correlationId)?.points ?? 0;
}

export function reservedOn(totals: WalletTotals, day: string, clientId: string, correlationId: string): number {
  return totals.daily.find((d) => d.day === day && d.clientId === clientId && d.correlationId === correlationId)?.points ?? 0;
}

function dailyKey(day: string, clientId: string, correlationId: string): string {
  return JSON.stringify([day, clientId, correlationId]);
}

function addDaily(daily: Map<string, DailyReserved>, r: ReservationRecord, points: number): void {
  const day = utcDay(r.createdAt);
  const key = dailyKey(day, r.clientId, r.correlationId);
  const entry = daily.get(key);
  if (entry) entry.points += points;
  else daily.set(key, { day, clientId: r.clientId, correlationId: r.correlationId, points });
}

/** One form for equal totals: entries over 0, in a fixed order. */
function canonical(held: Map<string, number>, daily: Map<string, DailyReserved>, count: number, nextExpiry: number | null): WalletTotals {
  return {
    held: [...held]
      .filter(([, points]) => points > 0)
      .sort(([a], [b]) => compare(a, b))
      .map(([correlationId, points]) => ({ correlationId, points })),
    daily: [...daily.values()]
      .filter((d) => d.points > 0)
      .sort((a, b) => compare(a.day, b.day) || compare(a.clientId, b.clientId) || compare(a.correlationId, b.correlationId)),
    count,
    nextExpiry: nextExpiry === null ? null : new Date(nextExpiry),
  };
}

function compare(a: string, b: string): number {
  return a === b ? 0 : a < b ? -1 : 1;
}
