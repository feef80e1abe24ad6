import type { Contribution, MemberBalance, MemberMove, ReservationRecord, Wallet } from '../../domain/model';
import type { WalletTotals } from '../../domain/wallet-totals';

/*
 * Wallets as the memory store keeps them: deep-frozen values, handed out as
 * they are. Loading a wallet copies nothing; a caller cannot change what the
 * store holds (writing to a frozen record throws), it can only save a new
 * wallet.
 *
 * Saving copies only what the store does not hold yet. A whole save (a
 * stale wallet, a fixture) passes back the reservations and balances it
 * loaded, and those are kept as they are (recognised by identity with the
 * version stored); the changed reservation and the lists holding it are
 * copied and frozen. A slice save (Operation B's usual path) copies its one
 * reservation and totals. So reading a
 * wallet allocates nothing, and an update a handful of objects.
 *
 * Dates are copied on the way in and shared on the way out, like every
 * other part of a frozen record. A Date cannot be frozen (its setters ignore
 * `Object.freeze`); nothing in this code base changes a Date in place, it
 * makes a new one.
 */

/** `wallet` as the store keeps it, with `version`; `stored` is the version the store holds now (its parts are kept). */
export function frozenWallet(wallet: Wallet, version: number, stored: Wallet | undefined): Wallet {
  const next: Wallet = {
    walletId: wallet.walletId,
    version,
    balances: stored && wallet.balances === stored.balances ? stored.balances : frozenList(wallet.balances, frozenBalance),
    reservations: reservationsOf(wallet.reservations, stored?.reservations ?? []),
  };
  if (wallet.moves && wallet.moves.length > 0) next.moves = frozenList(wallet.moves, frozenMove);
  return Object.freeze(next);
}

/**
 * The reservations to keep: each one the store already holds is kept as it
 * is (found by identity: only the store's own objects are known to be
 * frozen through and through), any other is copied and frozen.
 */
function reservationsOf(given: readonly ReservationRecord[], held: readonly ReservationRecord[]): ReservationRecord[] {
  if (given === held) return held as ReservationRecord[];
  const out = new Array<ReservationRecord>(given.length);
  // Services keep the stored order, dropping some and appending the changed
  // one: most records are the next held one. The others are looked up in a
  // map built once, so a save is linear in the wallet's size whatever it is
  // given (a fixture's copies, a reordered list).
  let next = 0;
  let positions: Map<ReservationRecord, number> | undefined;
  for (let i = 0; i < given.length; i++) {
    const reservation = given[i]!;
    if (held[next] === reservation) {
      out[i] = reservation;
      next++;
      continue;
    }
    positions ??= new Map(held.map((record, at) => [record, at]));
    const at = positions.get(reservation);
    if (at !== undefined) next = at + 1;
    out[i] = at !== undefined ? reservation : frozenReservation(reservation);
  }
  return Object.freeze(out) as ReservationRecord[];
}

export function frozenList<T>(list: readonly T[], copy: (item: T) => T): T[] {
  const out = new Array<T>(list.length);
  for (let i = 0; i < list.length; i++) out[i] = copy(list[i]!);
  return Object.freeze(out) as T[];
}

function frozenBalance(b: MemberBalance): MemberBalance {
  return Object.freeze({ correlationId: b.correlationId, pointBalance: b.pointBalance });
}

function frozenMove(m: MemberMove): MemberMove {
  return Object.freeze(m.state === 'leaving' ? { ...m, until: date(m.until) } : { ...m });
}

function frozenContribution(c: Contribution): Contribution {
  return Object.freeze({ correlationId: c.correlationId, points: c.points });
}

export function frozenReservation(r: ReservationRecord): ReservationRecord {
  return Object.freeze({
    reservationToken: r.reservationToken,
    clientId: r.clientId,
    correlationId: r.correlationId,
    identifierType: r.identifierType,
    reservationAmount: r.reservationAmount,
    contributions: frozenList(r.contributions, frozenContribution),
    expiresAt: date(r.expiresAt),
    createdAt: date(r.createdAt),
    excludedFromCap: r.excludedFromCap,
  });
}

/** A new Date at the same time. */
function date(value: Date): Date {
  return new Date(value.getTime());
}

/** Totals as the store keeps them: frozen, dates copied in. */
export function frozenTotals(t: WalletTotals): WalletTotals {
  return Object.freeze({
    held: frozenList(t.held, (h) => Object.freeze({ correlationId: h.correlationId, points: h.points })),
    daily: frozenList(t.daily, (d) => Object.freeze({ day: d.day, clientId: d.clientId, correlationId: d.correlationId, points: d.points })),
    count: t.count,
    nextExpiry: t.nextExpiry === null ? null : date(t.nextExpiry),
  });
}
