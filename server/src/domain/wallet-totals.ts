import type { DailyReserved, HeldPoints, ReservationRecord, WalletTotals } from './model';

/*
 * Running totals of a wallet's reservations, stored with the wallet so that a
 * change to one reservation reads and writes that reservation and these
 * totals only, whatever else the wallet holds (Operation B's cost does not
 * grow with the wallet). `totalsOf` defines them; a change updates them with
 * `withChange`; both sides of every store keep them equal to `totalsOf` of
 * the reservations stored (`nextExpiry` aside: a lower bound, see below).
 *
 * Every reservation the wallet stores counts, expired or not: expiry needs a
 * clock, the totals do not. Once `nextExpiry` has passed they may include an
 * expired reservation (they are stale), and the reservation service works on
 * the whole wallet instead, dropping what expired.
 */

export type { WalletTotals } from './model';

const msPerDay = 86_400_000;

/** The last day `utcDay` named: consecutive calls mostly ask for the same one. */
let lastDay = { number: NaN, name: '' };

/** The UTC day of a date, as `YYYY-MM-DD`. */
export function utcDay(date: Date): string {
  const number = Math.floor(date.getTime() / msPerDay);
  // NaN (an invalid date) never equals itself: toISOString throws for it.
  if (number !== lastDay.number) lastDay = { number, name: date.toISOString().slice(0, 10) };
  return lastDay.name;
}

/** The totals of these reservations (by key, so that a whole wallet takes one pass). */
export function totalsOf(reservations: readonly ReservationRecord[]): WalletTotals {
  const held = new Map<string, HeldPoints>();
  const daily = new Map<string, DailyReserved>();
  let nextExpiry: number | null = null;
  for (const r of reservations) {
    for (const c of r.contributions) {
      const entry = held.get(c.correlationId);
      if (entry) entry.points += c.points;
      else held.set(c.correlationId, { correlationId: c.correlationId, points: c.points });
    }
    if (!r.excludedFromCap) {
      const day = utcDay(r.createdAt);
      const key = JSON.stringify([day, r.clientId, r.correlationId]);
      const entry = daily.get(key);
      if (entry) entry.points += r.reservationAmount;
      else daily.set(key, { day, clientId: r.clientId, correlationId: r.correlationId, points: r.reservationAmount });
    }
    const expiry = r.expiresAt.getTime();
    if (nextExpiry === null || expiry < nextExpiry) nextExpiry = expiry;
  }
  return canonical([...held.values()], [...daily.values()], reservations.length, nextExpiry);
}

/**
 * The totals after `before` (null: none) became `after` (null: removed).
 * Totals that are correct for the stored reservations stay correct. The
 * entries of `totals` are never changed (a store may hold them frozen): a
 * changed entry is a new object.
 */
export function withChange(totals: WalletTotals, before: ReservationRecord | null, after: ReservationRecord | null): WalletTotals {
  const held = totals.held.slice();
  const daily = totals.daily.slice();
  if (before) add(held, daily, before, -1);
  if (after) add(held, daily, after, 1);
  const count = totals.count - (before ? 1 : 0) + (after ? 1 : 0);
  let nextExpiry = totals.nextExpiry?.getTime() ?? null;
  const expiry = after?.expiresAt.getTime();
  if (expiry !== undefined && (nextExpiry === null || expiry < nextExpiry)) nextExpiry = expiry;
  return canonical(held, daily, count, count === 0 ? null : nextExpiry);
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

/**
 * Adds `sign` times what `r` holds and reserves to one wallet's entries
 * (unsorted, zero and below kept until `canonical`): one scan per entry
 * changed, no keys built, where copying the entries already takes one.
 */
function add(held: HeldPoints[], daily: DailyReserved[], r: ReservationRecord, sign: 1 | -1): void {
  for (const c of r.contributions) {
    const i = held.findIndex((h) => h.correlationId === c.correlationId);
    const points = (i < 0 ? 0 : held[i]!.points) + sign * c.points;
    if (i < 0) held.push({ correlationId: c.correlationId, points });
    else held[i] = { correlationId: c.correlationId, points };
  }
  if (r.excludedFromCap) return;
  const day = utcDay(r.createdAt);
  const { clientId, correlationId } = r;
  const i = daily.findIndex((d) => d.day === day && d.clientId === clientId && d.correlationId === correlationId);
  const points = (i < 0 ? 0 : daily[i]!.points) + sign * r.reservationAmount;
  if (i < 0) daily.push({ day, clientId, correlationId, points });
  else daily[i] = { day, clientId, correlationId, points };
}

/** One form for equal totals: entries over 0, in a fixed order. */
function canonical(held: HeldPoints[], daily: DailyReserved[], count: number, nextExpiry: number | null): WalletTotals {
  return {
    held: held.filter((h) => h.points > 0).sort((a, b) => compare(a.correlationId, b.correlationId)),
    daily: daily
      .filter((d) => d.points > 0)
      .sort((a, b) => compare(a.day, b.day) || compare(a.clientId, b.clientId) || compare(a.correlationId, b.correlationId)),
    count,
    nextExpiry: nextExpiry === null ? null : new Date(nextExpiry),
  };
}

function compare(a: string, b: string): number {
  return a === b ? 0 : a < b ? -1 : 1;
}
