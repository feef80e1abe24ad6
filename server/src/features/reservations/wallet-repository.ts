import {
  isLiveReservation,
  sameKey,
  type AuditEntry,
  type MemberBalance,
  type MemberMove,
  type MemberRecord,
  type ReservationChange,
  type ReservationKey,
  type ReservationRecord,
  type Wallet,
} from '../../domain/model';
import { heldOf, isStale, reservedOn, totalsOf, utcDay, withChange, type WalletTotals } from '../../domain/wallet-totals';
import type { ReservationStore } from '../../store/port';

/**
 * What one reservation change works on: the balances, the totals of the live
 * reservations and the live reservation under the key. Read from a slice of
 * the wallet (its cost does not grow with the wallet), or from the whole
 * wallet when the slice's totals may include an expired reservation; the
 * change then drops what expired.
 */
export interface WalletState {
  walletId: string;
  version: number;
  balances: readonly MemberBalance[];
  /** Members moving in or out (see `MemberMove`). */
  moves: readonly MemberMove[];
  /** Totals of the live reservations. */
  totals: WalletTotals;
  /** The live reservation under the key, or null. */
  current: ReservationRecord | null;
  /** Set when the state was read from the whole wallet. */
  whole: Wallet | null;
  /** The member asked for with the wallet (`withMember`). */
  member?: MemberRecord | null;
}

/** The wallet's state for a change of the reservation under `key`; null when there is no such wallet. */
export async function loadWalletState(store: ReservationStore, walletId: string, key: ReservationKey, now: Date, withMember?: string): Promise<WalletState | null> {
  const slice = await store.loadWalletSlice(walletId, key, withMember === undefined ? undefined : { withMember });
  if (!slice) return null;
  const member = slice.member === undefined ? {} : { member: slice.member };
  // Not stale: no stored reservation has expired by the totals. The one under
  // the key is checked too: the totals cannot vouch for a reservation they
  // do not include (a late delivery that put it back after its tombstone was gone).
  if (!isStale(slice.totals, now) && (slice.reservation === null || isLiveReservation(slice.reservation, now))) {
    return {
      walletId,
      version: slice.version,
      balances: slice.balances,
      moves: slice.moves ?? [],
      totals: slice.totals,
      current: slice.reservation,
      whole: null,
      ...member,
    };
  }
  const whole = await store.loadWallet(walletId);
  return whole ? { ...stateOfWhole(whole, key, now), ...member } : null;
}

function stateOfWhole(wallet: Wallet, key: ReservationKey, now: Date): WalletState {
  const live = wallet.reservations.filter((r) => isLiveReservation(r, now));
  return {
    walletId: wallet.walletId,
    version: wallet.version,
    balances: wallet.balances,
    moves: wallet.moves ?? [],
    totals: totalsOf(live),
    current: live.find((r) => sameKey(r, key)) ?? null,
    whole: wallet,
  };
}

/**
 * Saves `before` becoming `after` with its audit entry, against the version
 * the state was read at, dropping the reservations a whole read found
 * expired (they count as not existing); returns the state after it, or null
 * on conflict. How much of the wallet that writes is the store's choice.
 */
export async function saveChange(
  store: ReservationStore,
  state: WalletState,
  before: ReservationRecord | null,
  after: ReservationRecord,
  audit: AuditEntry,
  now: Date,
): Promise<WalletState | null> {
  const totals = withChange(state.totals, before, after);
  const expired = state.whole ? state.whole.reservations.filter((r) => !isLiveReservation(r, now)) : [];
  const change: ReservationChange = { walletId: state.walletId, reservation: after, totals, audit, ...(expired.length > 0 && { expired }) };
  const saved = await store.saveReservationChange(change, state.version);
  return saved ? { ...state, version: state.version + 1, totals, current: after, whole: null } : null;
}

/**
 * Every member a state names: its balances, moves and totals, and its
 * reservations' members and funders. A failed change is marked with them
 * (service.ts): its error may quote any of them.
 */
export function membersNamedBy(state: WalletState): string[] {
  const ids = state.balances.map((b) => b.correlationId);
  for (const move of state.moves) ids.push(move.correlationId);
  for (const held of state.totals.held) ids.push(held.correlationId);
  for (const daily of state.totals.daily) ids.push(daily.correlationId);
  for (const r of state.whole?.reservations ?? (state.current ? [state.current] : [])) {
    ids.push(r.correlationId);
    for (const c of r.contributions) ids.push(c.correlationId);
  }
  if (state.member) ids.push(state.member.correlationId);
  return ids;
}

export function pointBalanceOf(state: WalletState, correlationId: string): number {
  return state.balances.find((b) => b.correlationId === correlationId)?.pointBalance ?? 0;
}

/**
 * Balance minus what the member contributes to live reservations, and 0 when
 * the balance has fallen below that (it is set elsewhere: a fixture, the
 * points system): nothing is available then, and the spec promises no
 * negative balance.
 */
export function availableOf(state: WalletState, correlationId: string): number {
  return Math.max(0, pointBalanceOf(state, correlationId) - heldOf(state.totals, correlationId));
}

/** Points the member reserved through this client during the current UTC day, cap-exempt ones aside. */
export function reservedToday(state: WalletState, clientId: string, correlationId: string, now: Date): number {
  return reservedOn(state.totals, utcDay(now), clientId, correlationId);
}

/** Live reservations in the wallet (a released one, at 0, too: it exists until it expires). */
export function activeCount(state: WalletState): number {
  return state.totals.count;
}
